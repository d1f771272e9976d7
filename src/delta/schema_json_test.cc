// Tests for schema JSON: every type both ways, metadata by path, errors, physical names, and the
// schemaString of every conformance table in ../shared/testdata/delta.
#include "delta/schema_json.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io/local_file_system.h"

namespace cdclake::delta {
namespace {

using data::DataType;
using data::Field;
using data::Schema;
using Json = nlohmann::json;

const std::string& TestdataRoot() {
  static const std::string root = std::string(CDCLAKE_SHARED_DIR) + "/testdata/delta";
  return root;
}

// Every metaData.schemaString (with its table's column mapping mode) in every log JSON file.
struct LoggedSchema {
  std::string where;
  std::string schema_string;
  std::string mode;
};

std::vector<LoggedSchema> LoggedSchemas() {
  const io::FileSystem& fs = *io::LocalFileSystem::Instance();
  std::vector<LoggedSchema> out;
  auto tables = fs.List(TestdataRoot());
  EXPECT_TRUE(tables.ok()) << tables.status().ToString();
  if (!tables.ok()) return out;
  for (const io::FileInfo& t : *tables) {
    if (!t.is_directory) continue;
    std::string log = t.path + "/delta/_delta_log";
    if (!fs.Exists(log).ValueOr(false)) log = t.path + "/_delta_log";
    auto files = fs.List(log);
    if (!files.ok()) continue;
    for (const io::FileInfo& f : *files) {
      if (f.path.size() < 5 || f.path.substr(f.path.size() - 5) != ".json") continue;
      auto text = fs.ReadFile(f.path);
      EXPECT_TRUE(text.ok()) << text.status().ToString();
      if (!text.ok()) continue;
      size_t start = 0;
      while (start < text->size()) {
        size_t end = text->find('\n', start);
        if (end == std::string::npos) end = text->size();
        std::string line = text->substr(start, end - start);
        start = end + 1;
        Json action = Json::parse(line, nullptr, /*allow_exceptions=*/false);
        if (!action.is_object() || !action.contains("metaData")) continue;
        const Json& md = action["metaData"];
        std::string mode = "none";
        if (md.contains("configuration") &&
            md["configuration"].contains("delta.columnMapping.mode")) {
          mode = md["configuration"]["delta.columnMapping.mode"].get<std::string>();
        }
        out.push_back({f.path.substr(TestdataRoot().size() + 1),
                       md["schemaString"].get<std::string>(), mode});
      }
    }
  }
  return out;
}

TEST(SchemaJson, PrimitiveTypes) {
  const char* text = R"({"type":"struct","fields":[)"
                     R"({"name":"b","type":"boolean","nullable":true,"metadata":{}},)"
                     R"({"name":"i8","type":"byte","nullable":true,"metadata":{}},)"
                     R"({"name":"i16","type":"short","nullable":true,"metadata":{}},)"
                     R"({"name":"i32","type":"integer","nullable":false,"metadata":{}},)"
                     R"({"name":"i64","type":"long","nullable":true,"metadata":{}},)"
                     R"({"name":"f","type":"float","nullable":true,"metadata":{}},)"
                     R"({"name":"d","type":"double","nullable":true,"metadata":{}},)"
                     R"j({"name":"dec","type":"decimal(38,18)","nullable":true,"metadata":{}},)j"
                     R"({"name":"s","type":"string","nullable":true,"metadata":{}},)"
                     R"({"name":"bin","type":"binary","nullable":true,"metadata":{}},)"
                     R"({"name":"dt","type":"date","nullable":true,"metadata":{}},)"
                     R"({"name":"ts","type":"timestamp","nullable":true,"metadata":{}},)"
                     R"({"name":"ntz","type":"timestamp_ntz","nullable":true,"metadata":{}}]})";
  auto schema = ParseSchemaJson(text);
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  Schema want({Field{"b", DataType::Boolean()}, Field{"i8", DataType::Int8()},
               Field{"i16", DataType::Int16()}, Field{"i32", DataType::Int32(), false},
               Field{"i64", DataType::Int64()}, Field{"f", DataType::Float()},
               Field{"d", DataType::Double()}, Field{"dec", DataType::Decimal(38, 18)},
               Field{"s", DataType::String()}, Field{"bin", DataType::Binary()},
               Field{"dt", DataType::Date()}, Field{"ts", DataType::Timestamp()},
               Field{"ntz", DataType::TimestampNtz()}});
  EXPECT_EQ(*schema, want);
  EXPECT_EQ(SchemaToJson(*schema), text);
}

TEST(SchemaJson, NestedTypesAndMetadataPaths) {
  const char* text =
      R"({"type":"struct","fields":[)"
      R"({"name":"s","type":{"type":"struct","fields":[)"
      R"({"name":"x","type":"integer","nullable":false,"metadata":{"comment":"inner"}}]},"nullable":true,"metadata":{"k":1}},)"
      R"({"name":"arr","type":{"type":"array","elementType":{"type":"struct","fields":[)"
      R"({"name":"y","type":"long","nullable":true,"metadata":{"z":[1,2]}}]},"containsNull":false},"nullable":true,"metadata":{}},)"
      R"({"name":"m","type":{"type":"map","keyType":"string","valueType":{"type":"array","elementType":"date","containsNull":true},"valueContainsNull":false},"nullable":false,"metadata":{}},)"
      R"({"name":"a.b","type":"string","nullable":true,"metadata":{"dotted":true}}]})";
  auto parsed = ParseDeltaSchema(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const Schema& s = parsed->schema;
  ASSERT_EQ(s.num_fields(), 4u);
  EXPECT_EQ(*s.field(0).type, *DataType::Struct({Field{"x", DataType::Int32(), false}}));
  EXPECT_EQ(*s.field(1).type,
            *DataType::List(DataType::Struct({Field{"y", DataType::Int64()}}), false));
  EXPECT_EQ(*s.field(2).type,
            *DataType::Map(DataType::String(), DataType::List(DataType::Date(), true), false));
  EXPECT_FALSE(s.field(2).nullable);
  EXPECT_EQ(parsed->field_metadata.size(), 4u);
  EXPECT_EQ(parsed->field_metadata.at("s"), Json::parse(R"({"k":1})"));
  EXPECT_EQ(parsed->field_metadata.at("s.x"), Json::parse(R"({"comment":"inner"})"));
  EXPECT_EQ(parsed->field_metadata.at("arr.element.y"), Json::parse(R"({"z":[1,2]})"));
  EXPECT_EQ(parsed->field_metadata.at("`a.b`"), Json::parse(R"({"dotted":true})"));
  EXPECT_EQ(DeltaSchemaToJson(*parsed), text);
  auto again = ParseDeltaSchema(DeltaSchemaToJson(*parsed));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *parsed);
}

TEST(SchemaJson, FieldPathQuoting) {
  EXPECT_EQ(FieldPath({"a", "b"}), "a.b");
  EXPECT_EQ(FieldPath({"col-1", "element", "x"}), "col-1.element.x");
  EXPECT_EQ(FieldPath({"a.b", "c"}), "`a.b`.c");
  EXPECT_EQ(FieldPath({"we`ird"}), "`we``ird`");
  EXPECT_EQ(FieldPath({""}), "``");
}

TEST(SchemaJson, DecimalSpellings) {
  auto parse_one = [](const std::string& type) {
    return ParseSchemaJson(R"({"type":"struct","fields":[{"name":"d","type":")" + type +
                           R"(","nullable":true,"metadata":{}}]})");
  };
  auto spaced = parse_one("decimal( 10 , 2 )");
  ASSERT_TRUE(spaced.ok()) << spaced.status().ToString();
  EXPECT_EQ(*spaced->field(0).type, *DataType::Decimal(10, 2));
  auto bare = parse_one("decimal");
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(*bare->field(0).type, *DataType::Decimal(10, 0));
  EXPECT_EQ(parse_one("decimal(39,0)").status().code(), StatusCode::kCorrupt);
  EXPECT_EQ(parse_one("decimal(5,6)").status().code(), StatusCode::kCorrupt);
  EXPECT_EQ(parse_one("decimal(0,0)").status().code(), StatusCode::kCorrupt);
  EXPECT_EQ(parse_one("decimal(10)").status().code(), StatusCode::kCorrupt);
  EXPECT_EQ(parse_one("decimal(10,2)x").status().code(), StatusCode::kCorrupt);
  EXPECT_EQ(parse_one("decimal(10,-2)").status().code(), StatusCode::kNotSupported);
}

TEST(SchemaJson, UnknownTypesAreNotSupported) {
  for (std::string type :
       {"variant", "void", "null", "interval day to second", "interval year to month", "char(3)",
        "varchar(10)", "geometry", "Integer"}) {
    auto s = ParseSchemaJson(R"({"type":"struct","fields":[{"name":"v","type":")" + type +
                             R"(","nullable":true,"metadata":{}}]})");
    EXPECT_EQ(s.status().code(), StatusCode::kNotSupported) << type;
    EXPECT_EQ(s.status().message().find("type " + type), 0u) << s.status().message();
  }
  // Deep inside a nested type, and as an object type.
  auto nested = ParseSchemaJson(
      R"({"type":"struct","fields":[{"name":"a","type":{"type":"array","elementType":"variant","containsNull":true},"nullable":true,"metadata":{}}]})");
  EXPECT_EQ(nested.status().code(), StatusCode::kNotSupported);
  EXPECT_NE(nested.status().message().find("a.element"), std::string::npos)
      << nested.status().message();
  auto object = ParseSchemaJson(
      R"({"type":"struct","fields":[{"name":"a","type":{"type":"udt","class":"x"},"nullable":true,"metadata":{}}]})");
  EXPECT_EQ(object.status().code(), StatusCode::kNotSupported);
}

TEST(SchemaJson, MalformedIsCorrupt) {
  for (
      const char* text : {
          "",
          "{",
          "[]",
          R"({"type":"array","elementType":"integer","containsNull":true})",
          R"({"type":"struct"})",
          R"({"type":"struct","fields":{}})",
          R"({"type":"struct","fields":[1]})",
          R"({"type":"struct","fields":[{"type":"integer","nullable":true,"metadata":{}}]})",
          R"({"type":"struct","fields":[{"name":"a","nullable":true,"metadata":{}}]})",
          R"({"type":"struct","fields":[{"name":7,"type":"integer"}]})",
          R"({"type":"struct","fields":[{"name":"a","type":5}]})",
          R"({"type":"struct","fields":[{"name":"a","type":"integer","nullable":"yes"}]})",
          R"({"type":"struct","fields":[{"name":"a","type":"integer","metadata":[]}]})",
          R"({"type":"struct","fields":[{"name":"a","type":{"type":"array"}}]})",
          R"({"type":"struct","fields":[{"name":"a","type":{"type":"map","keyType":"string"}}]})",
          R"({"type":"struct","fields":[{"name":"a","type":{"elementType":"string"}}]})",
          R"({"type":"struct","fields":[{"name":"a","type":"integer"},{"name":"A","type":"long"}]})",
      }) {
    auto s = ParseDeltaSchema(text);
    EXPECT_EQ(s.status().code(), StatusCode::kCorrupt) << text << " -> " << s.status().ToString();
  }
}

TEST(SchemaJson, LenientDefaults) {
  // nullable, metadata, containsNull and valueContainsNull may be missing: Spark's defaults.
  auto s = ParseDeltaSchema(
      R"({"type":"struct","fields":[{"name":"a","type":{"type":"array","elementType":"integer"}},)"
      R"({"name":"m","type":{"type":"map","keyType":"string","valueType":"long"},"metadata":null}]})");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_TRUE(s->schema.field(0).nullable);
  EXPECT_EQ(*s->schema.field(0).type, *DataType::List(DataType::Int32(), true));
  EXPECT_EQ(*s->schema.field(1).type, *DataType::Map(DataType::String(), DataType::Int64(), true));
  EXPECT_TRUE(s->field_metadata.empty());
}

TEST(SchemaJson, ColumnMappingAndPhysicalSchema) {
  const char* text =
      R"({"type":"struct","fields":[)"
      R"({"name":"id","type":"long","nullable":true,"metadata":{"delta.columnMapping.id":1,"delta.columnMapping.physicalName":"col-a"}},)"
      R"({"name":"s","type":{"type":"struct","fields":[)"
      R"({"name":"x","type":"integer","nullable":true,"metadata":{"delta.columnMapping.id":3,"delta.columnMapping.physicalName":"col-x"}}]},)"
      R"("nullable":true,"metadata":{"delta.columnMapping.id":2,"delta.columnMapping.physicalName":"col-s"}},)"
      R"({"name":"m","type":{"type":"map","keyType":"integer","valueType":{"type":"struct","fields":[)"
      R"({"name":"v","type":"string","nullable":true,"metadata":{"delta.columnMapping.id":5,"delta.columnMapping.physicalName":"col-v"}}]},"valueContainsNull":true},)"
      R"("nullable":true,"metadata":{"delta.columnMapping.id":4,"delta.columnMapping.physicalName":"col-m"}}]})";
  auto parsed = ParseDeltaSchema(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();

  auto info = ColumnMappingOf(*parsed, "m.value.v");
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->physical_name, "col-v");
  EXPECT_EQ(info->id, 5);
  EXPECT_EQ(ColumnMappingOf(*parsed, "nope").status().code(), StatusCode::kNotFound);

  auto none = PhysicalSchema(*parsed, "none");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, parsed->schema);
  EXPECT_EQ(*PhysicalSchema(*parsed, ""), parsed->schema);

  for (const char* mode : {"name", "id", "NAME"}) {
    auto physical = PhysicalSchema(*parsed, mode);
    ASSERT_TRUE(physical.ok()) << physical.status().ToString();
    Schema want(
        {Field{"col-a", DataType::Int64()},
         Field{"col-s", DataType::Struct({Field{"col-x", DataType::Int32()}})},
         Field{"col-m", DataType::Map(DataType::Int32(),
                                      DataType::Struct({Field{"col-v", DataType::String()}}))}});
    EXPECT_EQ(*physical, want) << mode;
  }
  EXPECT_EQ(PhysicalSchema(*parsed, "bogus").status().code(), StatusCode::kNotSupported);

  // A field without a physical name under name mode is corrupt; so is a physicalName of the
  // wrong JSON type.
  auto missing = ParseDeltaSchema(
      R"({"type":"struct","fields":[{"name":"a","type":"integer","nullable":true,"metadata":{}}]})");
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(PhysicalSchema(*missing, "name").status().code(), StatusCode::kCorrupt);
  EXPECT_TRUE(PhysicalSchema(*missing, "none").ok());
  auto wrong = ParseDeltaSchema(
      R"({"type":"struct","fields":[{"name":"a","type":"integer","nullable":true,"metadata":{"delta.columnMapping.physicalName":3}}]})");
  ASSERT_TRUE(wrong.ok());
  EXPECT_EQ(PhysicalSchema(*wrong, "id").status().code(), StatusCode::kCorrupt);
}

TEST(SchemaJson, RealTablesRoundTrip) {
  std::vector<LoggedSchema> schemas = LoggedSchemas();
  ASSERT_GE(schemas.size(), 40u);
  int byte_identical = 0;
  for (const LoggedSchema& l : schemas) {
    SCOPED_TRACE(l.where);
    auto parsed = ParseDeltaSchema(l.schema_string);
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    std::string written = DeltaSchemaToJson(*parsed);
    // Same document; the same bytes unless metadata keys were not in sorted order.
    EXPECT_EQ(Json::parse(written), Json::parse(l.schema_string));
    if (l.schema_string.find("delta.identity") == std::string::npos) {
      EXPECT_EQ(written, l.schema_string);
    }
    byte_identical += written == l.schema_string;
    auto again = ParseDeltaSchema(written);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*again, *parsed);
    auto physical = PhysicalSchema(*parsed, l.mode);
    ASSERT_TRUE(physical.ok()) << physical.status().ToString();
    EXPECT_EQ(physical->num_fields(), parsed->schema.num_fields());
  }
  EXPECT_GE(byte_identical, 40);
}

TEST(SchemaJson, RealColumnMappingTable) {
  const io::FileSystem& fs = *io::LocalFileSystem::Instance();
  auto log = fs.ReadFile(
      TestdataRoot() +
      "/golden-table-with-columnmapping-mode-name/delta/_delta_log/00000000000000000000.json");
  ASSERT_TRUE(log.ok()) << log.status().ToString();
  std::string schema_string, stats;
  size_t start = 0;
  while (start < log->size()) {
    size_t end = log->find('\n', start);
    if (end == std::string::npos) end = log->size();
    Json a = Json::parse(log->substr(start, end - start), nullptr, false);
    start = end + 1;
    if (a.contains("metaData")) schema_string = a["metaData"]["schemaString"];
    if (a.contains("add") && stats.empty()) stats = a["add"]["stats"];
  }
  auto parsed = ParseDeltaSchema(schema_string);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->schema.num_fields(), 19u);

  auto aca = ColumnMappingOf(*parsed, "nested_struct.ac.aca");
  ASSERT_TRUE(aca.ok());
  EXPECT_EQ(aca->id, 16);
  EXPECT_EQ(aca->physical_name, "col-47272f8f-d4ab-45e7-a6b8-09a5684bcd0b");
  auto in_array = ColumnMappingOf(*parsed, "array_of_structs.element.ab");
  ASSERT_TRUE(in_array.ok());
  EXPECT_EQ(in_array->id, 20);
  auto in_map = ColumnMappingOf(*parsed, "map_of_rows.value.ab");
  ASSERT_TRUE(in_map.ok());
  EXPECT_EQ(in_map->id, 23);
  EXPECT_EQ(in_map->physical_name, "col-55f66bad-f3b9-49a5-83f2-a0ac99d084a7");

  auto physical = PhysicalSchema(*parsed, "name");
  ASSERT_TRUE(physical.ok()) << physical.status().ToString();
  // The stats Spark wrote name every column (nested ones too) by the physical names we derive.
  Json null_count = Json::parse(stats)["nullCount"];
  ASSERT_EQ(null_count.size(), physical->num_fields());
  for (const Field& f : physical->fields()) {
    ASSERT_TRUE(null_count.contains(f.name)) << f.name;
    if (f.type->id() == data::TypeId::kStruct) {
      for (const Field& inner : f.type->fields())
        EXPECT_TRUE(null_count[f.name].contains(inner.name)) << inner.name;
    }
  }
  const Field& nested = physical->field(
      static_cast<size_t>(physical->FieldIndex("col-bd5b1c73-a03c-4003-9f20-87824bdc7bdf")));
  EXPECT_EQ(nested.type->fields()[1].type->fields()[0].name,
            "col-47272f8f-d4ab-45e7-a6b8-09a5684bcd0b");
  const Field& array_of_structs = physical->field(
      static_cast<size_t>(physical->FieldIndex("col-5fe9016c-e5da-4157-81db-a34f864f1ef3")));
  EXPECT_EQ(array_of_structs.type->fields()[0].type->fields()[0].name,
            "col-235bb486-5ca5-47bb-84cb-c2dd859e425a");
}

}  // namespace
}  // namespace cdclake::delta
