// PgTypeMap against a real PostgreSQL: each type's text output (read with the pinned session
// settings, as the stream and COPY send it) parsed, and checked against what PostgreSQL itself
// computes from the same value (epoch microseconds, days, hex, element counts).
#include "sources/postgres/pg_type_map.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "base/bytes.h"
#include "data/decimal.h"
#include "sources/postgres/pg_connection.h"
#include "sources/postgres/testing/postgres_server.h"

namespace cdclake::sources::postgres {
namespace {

// The Delta type and parsed values of `expression` (a column of table `table`).
struct Parsed {
  PgColumnType type;
  data::Column column;
  std::vector<Status> errors;  // per row
};

Parsed ParseColumn(PgConnection& db, const std::string& table, const std::string& name) {
  auto attribute = db.Query("SELECT atttypid, atttypmod FROM pg_attribute WHERE attrelid = '" +
                            table + "'::regclass AND attname = " + QuoteLiteral(name));
  EXPECT_TRUE(attribute.ok() && attribute->rows.size() == 1) << name;
  Parsed out;
  out.type = PgColumnTypeOf(static_cast<uint32_t>(std::stoul(*attribute->rows[0][0])),
                            std::stoi(*attribute->rows[0][1]));
  out.column = data::Column(out.type.type);
  // A plain SELECT's text is the type's output function, as the stream and COPY send it
  // (a cast to text may differ: true::text is 'true', its output 't').
  auto values = db.Query("SELECT " + QuoteIdentifier(name) + " FROM " + table + " ORDER BY k");
  EXPECT_TRUE(values.ok()) << values.status().ToString();
  for (const auto& row : values->rows) {
    if (!row[0]) {
      out.column.AppendNull();
      out.errors.push_back(Status::OK());
      continue;
    }
    Status s = AppendPgText(out.type, *row[0], &out.column);
    if (!s.ok()) out.column.AppendNull();
    out.errors.push_back(s);
  }
  return out;
}

// PostgreSQL's own figure for each row of `table`, as text.
std::vector<std::optional<std::string>> Oracle(PgConnection& db, const std::string& table,
                                               const std::string& expression) {
  auto rows = db.Query("SELECT (" + expression + ")::text FROM " + table + " ORDER BY k");
  EXPECT_TRUE(rows.ok()) << expression << ": " << rows.status().ToString();
  std::vector<std::optional<std::string>> out;
  for (const auto& row : rows->rows) out.push_back(row[0]);
  return out;
}

TEST(PgTypeMap, ValuesOfARealServerAsPostgreSQLComputesThem) {
  auto db = testing::ConnectToSharedServer();
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(db->Execute(R"(
    CREATE TYPE mood AS ENUM ('sad', 'happy');
    CREATE TABLE v(k int PRIMARY KEY, b bool, i2 int2, i4 int4, i8 int8, f4 float4, f8 float8,
      n numeric(12,3), nu numeric, m money, d date, ts timestamp(6), tz timestamptz, tm time,
      by bytea, tx varchar(20), u uuid, j jsonb, ai int4[], at text[], e mood);
    INSERT INTO v VALUES
      (1, true, -32768, 2147483647, -9223372036854775808, 1.5, 0.1, -123456789.125,
       123456789012345678901234567890.123456789, '-1234.56', '2024-02-29',
       '1999-12-31 23:59:59.999999', '2024-06-01 12:00:00.5+02', '23:59:59.123456',
       '\x00ff10', 'héllo, "world"', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"a": [1, 2]}',
       '{1,NULL,-3}', '{"a,b","c\"d","e\\f",NULL,"NULL",""}', 'happy'),
      (2, false, 0, 0, 0, 'NaN', '-Infinity', 0, 'NaN', 0, '0001-01-01', '1970-01-01 00:00:00',
       '1970-01-01 00:00:00+00', '00:00:00', '\x', '', '00000000-0000-0000-0000-000000000000',
       'null', '{}', '{}', 'sad'),
      (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       NULL, NULL, NULL, NULL, NULL, NULL),
      (4, true, 1, 1, 1, 1, 1, 1, 1, 1, 'infinity', '2024-01-01 BC', 'infinity', '24:00:00',
       '\x01', 'x', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '[]', '{{1,2},{3,4}}', '{x}',
       'sad');
  )")
                  .ok());

  // Integers and booleans: PostgreSQL's text is the value.
  for (const char* name : {"i2", "i4", "i8"}) {
    Parsed p = ParseColumn(*db, "v", name);
    auto text = Oracle(*db, "v", name);
    for (int64_t r = 0; r < 4; ++r) {
      ASSERT_TRUE(p.errors[r].ok()) << name << r;
      EXPECT_EQ(p.column.IsNull(r), !text[r]) << name << r;
      if (text[r]) {
        EXPECT_EQ(std::to_string(p.column.IntegerAt(r)), *text[r]) << name << r;
      }
    }
  }
  EXPECT_EQ(ParseColumn(*db, "v", "i2").type.type->id(), data::TypeId::kInt16);
  EXPECT_EQ(ParseColumn(*db, "v", "i8").type.type->id(), data::TypeId::kInt64);
  {
    Parsed b = ParseColumn(*db, "v", "b");
    EXPECT_EQ(b.column.IntegerAt(0), 1);
    EXPECT_EQ(b.column.IntegerAt(1), 0);
    EXPECT_TRUE(b.column.IsNull(2));
  }
  // Floating point: the text read back is the same number (extra_float_digits=3 is exact).
  {
    Parsed f8 = ParseColumn(*db, "v", "f8");
    EXPECT_EQ(f8.column.ValueAt<double>(0), 0.1);
    EXPECT_TRUE(std::isinf(f8.column.ValueAt<double>(1)) && f8.column.ValueAt<double>(1) < 0);
    Parsed f4 = ParseColumn(*db, "v", "f4");
    EXPECT_EQ(f4.column.ValueAt<float>(0), 1.5f);
    EXPECT_TRUE(std::isnan(f4.column.ValueAt<float>(1)));
  }
  // numeric(p, s) is an exact DECIMAL; numeric without them an exact string; money DECIMAL(19,2).
  {
    Parsed n = ParseColumn(*db, "v", "n");
    EXPECT_EQ(n.type.type->ToString(), "decimal(12,3)");
    auto text = Oracle(*db, "v", "n");
    for (int64_t r : {0, 1, 3}) {
      EXPECT_EQ(data::FormatDecimal(n.column.ValueAt<data::Int128>(r), 3), *text[r]) << r;
    }
    Parsed nu = ParseColumn(*db, "v", "nu");
    EXPECT_EQ(nu.type.type->id(), data::TypeId::kString);
    EXPECT_EQ(nu.column.StringAt(0), "123456789012345678901234567890.123456789");
    EXPECT_EQ(nu.column.StringAt(1), "NaN");
    Parsed m = ParseColumn(*db, "v", "m");
    auto cents = Oracle(*db, "v", "(m::numeric * 100)::bigint");
    for (int64_t r : {0, 1, 3}) {
      ASSERT_TRUE(m.errors[r].ok()) << m.errors[r].ToString();
      EXPECT_EQ(data::Int128ToString(m.column.ValueAt<data::Int128>(r)), *cents[r]) << r;
    }
  }
  // Dates, timestamps and times against PostgreSQL's own arithmetic; infinity and BC refused.
  {
    Parsed d = ParseColumn(*db, "v", "d");
    auto days = Oracle(*db, "v", "CASE WHEN isfinite(d) THEN d - date '1970-01-01' END");
    for (int64_t r : {0, 1}) {
      EXPECT_EQ(std::to_string(d.column.IntegerAt(r)), *days[r]) << r;
    }
    EXPECT_FALSE(d.errors[3].ok());
    EXPECT_NE(d.errors[3].message().find("'infinity' is not a date Delta can hold"),
              std::string::npos)
        << d.errors[3].ToString();
    for (const char* name : {"ts", "tz"}) {
      Parsed t = ParseColumn(*db, "v", name);
      auto micros = Oracle(*db, "v",
                           std::string("CASE WHEN isfinite(") + name +
                               ") THEN (extract(epoch FROM " + name + ") * 1000000)::bigint END");
      for (int64_t r : {0, 1}) {
        ASSERT_TRUE(t.errors[r].ok()) << name << t.errors[r].ToString();
        EXPECT_EQ(std::to_string(t.column.IntegerAt(r)), *micros[r]) << name << r;
      }
      EXPECT_FALSE(t.errors[3].ok()) << name;  // BC, infinity
    }
    Parsed tm = ParseColumn(*db, "v", "tm");
    auto micros = Oracle(*db, "v", "(extract(epoch FROM tm) * 1000000)::bigint");
    for (int64_t r : {0, 1, 3}) {
      ASSERT_TRUE(tm.errors[r].ok()) << tm.errors[r].ToString();
      EXPECT_EQ(std::to_string(tm.column.IntegerAt(r)), *micros[r]) << r;
    }
  }
  // Bytes, strings, uuid, json, enums.
  {
    Parsed by = ParseColumn(*db, "v", "by");
    auto hex = Oracle(*db, "v", "encode(by, 'hex')");
    for (int64_t r : {0, 1, 3}) {
      EXPECT_EQ(HexEncode(by.column.StringAt(r)), *hex[r]) << r;
    }
    for (const char* name : {"tx", "u", "j", "e"}) {
      Parsed s = ParseColumn(*db, "v", name);
      auto text = Oracle(*db, "v", name);
      EXPECT_EQ(s.type.type->id(), data::TypeId::kString) << name;
      for (int64_t r = 0; r < 4; ++r) {
        EXPECT_EQ(s.column.IsNull(r), !text[r]);
        if (text[r]) {
          EXPECT_EQ(s.column.StringAt(r), *text[r]) << name << r;
        }
      }
    }
  }
  // Arrays: one dimension as ARRAY<element>, elements against unnest; two dimensions refused.
  {
    Parsed ai = ParseColumn(*db, "v", "ai");
    EXPECT_EQ(ai.type.type->ToString(), "array<int>");
    ASSERT_TRUE(ai.errors[0].ok()) << ai.errors[0].ToString();
    const data::Column& ints = ai.column.child(0);
    ASSERT_EQ(ints.length(), 3);  // row 0's three elements, row 1's none
    EXPECT_EQ(ints.IntegerAt(0), 1);
    EXPECT_TRUE(ints.IsNull(1));
    EXPECT_EQ(ints.IntegerAt(2), -3);
    EXPECT_EQ(ai.column.offsets()[1] - ai.column.offsets()[0], 3);
    EXPECT_EQ(ai.column.offsets()[2] - ai.column.offsets()[1], 0);
    EXPECT_FALSE(ai.errors[3].ok());
    EXPECT_NE(ai.errors[3].message().find("more than one dimension"), std::string::npos);
    Parsed at = ParseColumn(*db, "v", "at");
    auto elements = db->Query(
        "SELECT x.el FROM v, unnest(at) WITH ORDINALITY AS x(el, o) "
        "WHERE k = 1 ORDER BY o");
    ASSERT_TRUE(elements.ok()) << elements.status().ToString();
    const data::Column& strings = at.column.child(0);
    ASSERT_EQ(static_cast<size_t>(strings.length()), elements->rows.size() + 1);  // + row 4's
    for (size_t i = 0; i < elements->rows.size(); ++i) {
      const auto& e = elements->rows[i][0];
      EXPECT_EQ(strings.IsNull(static_cast<int64_t>(i)), !e) << i;
      if (e) {
        EXPECT_EQ(strings.StringAt(static_cast<int64_t>(i)), *e) << i;
      }
    }
  }
}

TEST(PgTypeMap, ModifiersAndUnknownTypes) {
  EXPECT_EQ(PgColumnTypeOf(1700, ((38 << 16) | 10) + 4).type->ToString(), "decimal(38,10)");
  EXPECT_EQ(PgColumnTypeOf(1700, ((39 << 16) | 0) + 4).type->ToString(), "string");     // too wide
  EXPECT_EQ(PgColumnTypeOf(1700, ((5 << 16) | 0x7fe) + 4).type->ToString(), "string");  // scale -2
  EXPECT_EQ(PgColumnTypeOf(1700, -1).type->ToString(), "string");
  EXPECT_EQ(PgColumnTypeOf(1231, ((9 << 16) | 2) + 4).type->ToString(), "array<decimal(9,2)>");
  EXPECT_EQ(PgColumnTypeOf(16385, -1).type->ToString(), "string");  // an enum or a domain
  data::Column c(data::DataType::Decimal(4, 1));
  EXPECT_FALSE(AppendPgText(PgColumnTypeOf(1700, ((4 << 16) | 1) + 4), "NaN", &c).ok());
  EXPECT_FALSE(AppendPgText(PgColumnTypeOf(1700, ((4 << 16) | 1) + 4), "12345", &c).ok());
  EXPECT_EQ(c.length(), 0);  // nothing appended by a refused value
}

}  // namespace
}  // namespace cdclake::sources::postgres
