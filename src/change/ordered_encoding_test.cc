// Tests that the ordered encoding sorts as SQL does and decodes back.
#include "change/ordered_encoding.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>

#include "data/column.h"
#include "data/value_compare.h"

namespace cdclake::change {
namespace {

using data::DataType;
using data::TypePtr;
using data::Value;

// Every pair: memcmp order of encodings == CompareForSort order, and each decodes back.
void CheckOrder(const std::vector<Value>& values, const TypePtr& type) {
  for (const Value& a : values) {
    std::string ea;
    AppendOrdered(a, *type, &ea);
    std::string_view in = ea;
    auto back = ReadOrdered(&in, *type);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_TRUE(*back == a) << a.DebugString() << " came back as " << back->DebugString();
    EXPECT_TRUE(in.empty());
    for (const Value& b : values) {
      std::string eb;
      AppendOrdered(b, *type, &eb);
      int want = data::CompareForSort(a, b, *type);
      int got = ea.compare(eb);
      EXPECT_EQ(want < 0, got < 0) << a.DebugString() << " vs " << b.DebugString();
      EXPECT_EQ(want == 0, got == 0) << a.DebugString() << " vs " << b.DebugString();
    }
  }
}

TEST(OrderedEncoding, IntegersSortNumericallyWithNullFirst) {
  std::vector<Value> v = {Value::Null(),
                          Value::Int(0),
                          Value::Int(-1),
                          Value::Int(1),
                          Value::Int(std::numeric_limits<int64_t>::min()),
                          Value::Int(std::numeric_limits<int64_t>::max()),
                          Value::Int(255),
                          Value::Int(256)};
  CheckOrder(v, DataType::Int64());
  CheckOrder(v, DataType::Timestamp());
}

TEST(OrderedEncoding, DecimalsAndDoubles) {
  CheckOrder({Value::Null(), Value::Decimal(0), Value::Decimal(-5), Value::Decimal(5),
              Value::Decimal(static_cast<data::Int128>(1) << 100),
              Value::Decimal(-(static_cast<data::Int128>(1) << 100))},
             DataType::Decimal(38, 2));
  CheckOrder({Value::Null(), Value::Double(0.5), Value::Double(-0.5), Value::Double(1e300),
              Value::Double(-1e300), Value::Double(std::numeric_limits<double>::infinity()),
              Value::Double(-std::numeric_limits<double>::infinity())},
             DataType::Double());
}

TEST(OrderedEncoding, StringsWithZeroBytesAndPrefixes) {
  CheckOrder({Value::Null(), Value::Bytes(""), Value::Bytes("a"), Value::Bytes("ab"),
              Value::Bytes(std::string("a\0", 2)), Value::Bytes(std::string("a\0b", 3)),
              Value::Bytes("b"), Value::Bytes("\xff")},
             DataType::String());
}

// Strings of random bytes, zero bytes frequent (runs of them, first, last, alone): each
// encodes to the reference escaping (0x00 -> 0x00 0xFF, then 0x00 0x00), decodes back whole,
// and a cut anywhere before the end is an error.
TEST(OrderedEncoding, StringsOfRandomBytesRoundTrip) {
  std::mt19937_64 rng(5);
  for (int n = 0; n < 2000; ++n) {
    std::string s(static_cast<size_t>(rng() % 40), '\0');
    for (char& c : s) c = rng() % 3 == 0 ? '\0' : static_cast<char>(rng() % 256);
    std::string reference;
    for (char c : s) {
      reference.push_back(c);
      if (c == 0) reference.push_back(static_cast<char>(0xFF));
    }
    reference.append(2, '\0');
    std::string encoded;
    AppendOrdered(Value::Bytes(s), *DataType::Binary(), &encoded);
    ASSERT_EQ(encoded.substr(1), reference) << "case " << n;
    std::string_view in = encoded;
    auto back = ReadOrdered(&in, *DataType::Binary());
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->bytes(), s) << "case " << n;
    EXPECT_TRUE(in.empty());
    for (size_t cut = 1; cut < encoded.size(); ++cut) {
      std::string_view part(encoded.data(), cut);
      EXPECT_FALSE(ReadOrdered(&part, *DataType::Binary()).ok()) << "case " << n << " cut " << cut;
    }
  }
}

TEST(OrderedEncoding, StructsCompareFieldByField) {
  TypePtr type = DataType::Struct({{"a", DataType::Int32()}, {"b", DataType::String()}});
  std::vector<Value> v;
  for (int a : {-1, 0, 1}) {
    for (const char* b : {"", "x", "xy"}) {
      v.push_back(Value::Nested({Value::Int(a), Value::Bytes(b)}));
    }
    v.push_back(Value::Nested({Value::Int(a), Value::Null()}));
  }
  CheckOrder(v, type);
}

TEST(OrderedEncoding, RandomIntegerTuplesSortLikeTuples) {
  std::mt19937_64 rng(7);
  std::vector<TypePtr> types = {DataType::Int32(), DataType::String()};
  std::vector<std::pair<std::vector<Value>, std::string>> rows;
  for (int i = 0; i < 500; ++i) {
    std::vector<Value> row = {Value::Int(static_cast<int>(rng() % 7) - 3),
                              Value::Bytes(std::string(rng() % 3, 'a' + rng() % 3))};
    if (rng() % 5 == 0) row[0] = Value::Null();
    rows.push_back({row, EncodeOrdered(row, types)});
  }
  std::sort(rows.begin(), rows.end(), [](auto& x, auto& y) { return x.second < y.second; });
  for (size_t i = 1; i < rows.size(); ++i) {
    int c = data::CompareForSort(rows[i - 1].first[0], rows[i].first[0], *types[0]);
    if (c == 0) c = data::CompareForSort(rows[i - 1].first[1], rows[i].first[1], *types[1]);
    EXPECT_LE(c, 0);
  }
}

TEST(OrderedEncoding, CellsEncodeLikeTheirValues) {
  std::vector<TypePtr> types = {DataType::Int8(),   DataType::Int16(),        DataType::Int32(),
                                DataType::Int64(),  DataType::Date(),         DataType::Timestamp(),
                                DataType::String(), DataType::Decimal(20, 3), DataType::Double(),
                                DataType::Boolean()};
  std::mt19937_64 rng(11);
  for (const TypePtr& type : types) {
    data::Column column(type);
    for (int i = 0; i < 50; ++i) {
      if (i % 7 == 0) {
        column.AppendNull();
        continue;
      }
      int64_t n = static_cast<int64_t>(rng() % 200) - 100;
      switch (type->id()) {
        case data::TypeId::kString:
          column.AppendValue(Value::Bytes(std::string(static_cast<size_t>(rng() % 20), 'a')));
          break;
        case data::TypeId::kDecimal:
          column.AppendValue(Value::Decimal(n * 1000003));
          break;
        case data::TypeId::kDouble:
          column.AppendValue(Value::Double(static_cast<double>(n) / 3));
          break;
        case data::TypeId::kBoolean:
          column.AppendValue(Value::Bool(n > 0));
          break;
        default:
          column.AppendValue(Value::Int(n));
      }
    }
    // Encoded as the column's type, and (integers) as a wider one: the same bytes.
    for (const TypePtr& as : {type, type->id() == data::TypeId::kInt8 ? DataType::Int64() : type}) {
      for (int64_t r = 0; r < column.length(); ++r) {
        std::string cell, value;
        AppendOrderedCell(column, r, *as, &cell);
        AppendOrdered(column.GetValue(r), *as, &value);
        EXPECT_EQ(cell, value) << type->ToString() << " row " << r;
      }
    }
  }
}

TEST(OrderedEncoding, TruncatedInputIsAnError) {
  std::string e;
  AppendOrdered(Value::Bytes("hello"), *DataType::String(), &e);
  std::string_view in(e.data(), e.size() - 1);
  EXPECT_FALSE(ReadOrdered(&in, *DataType::String()).ok());
  std::string_view empty;
  EXPECT_FALSE(ReadOrdered(&empty, *DataType::Int64()).ok());
}

TEST(OrderedEncoding, OrderableTypes) {
  EXPECT_TRUE(IsOrderable(*DataType::Int32()));
  EXPECT_TRUE(IsOrderable(*DataType::Struct({{"a", DataType::Date()}})));
  EXPECT_FALSE(IsOrderable(*DataType::List(DataType::Int32())));
  EXPECT_FALSE(IsOrderable(
      *DataType::Struct({{"a", DataType::Map(DataType::String(), DataType::Int32())}})));
}

}  // namespace
}  // namespace cdclake::change
