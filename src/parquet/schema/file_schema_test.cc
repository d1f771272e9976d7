// Schema mapping: the legacy list and map shapes other writers use, and the levels assigned.
#include "parquet/schema/file_schema.h"

#include <gtest/gtest.h>

namespace cdclake::parquet {
namespace {

using format::ConvertedType;
using format::FieldRepetitionType;
using format::SchemaElement;
using format::Type;

SchemaElement Group(std::string name, int children, std::optional<FieldRepetitionType> rep,
                    std::optional<ConvertedType> converted = std::nullopt) {
  SchemaElement e;
  e.name = std::move(name);
  e.num_children = children;
  e.repetition_type = rep;
  e.converted_type = converted;
  return e;
}

SchemaElement Leaf(std::string name, Type type, FieldRepetitionType rep) {
  SchemaElement e;
  e.name = std::move(name);
  e.type = type;
  e.repetition_type = rep;
  return e;
}

TEST(FileSchemaTest, LegacyListShapesReadAsListsOfRequiredElements) {
  // a: bare repeated int32; b: LIST with a repeated primitive; c: LIST with a repeated group
  // named "array"; d: LIST with a two-member repeated group (a list of structs).
  std::vector<SchemaElement> elements = {
      Group("schema", 4, std::nullopt),
      Leaf("a", Type::kInt32, FieldRepetitionType::kRepeated),
      Group("b", 1, FieldRepetitionType::kOptional, ConvertedType::kList),
      Leaf("element", Type::kInt64, FieldRepetitionType::kRepeated),
      Group("c", 1, FieldRepetitionType::kOptional, ConvertedType::kList),
      Group("array", 1, FieldRepetitionType::kRepeated),
      Leaf("x", Type::kInt32, FieldRepetitionType::kOptional),
      Group("d", 1, FieldRepetitionType::kRequired, ConvertedType::kList),
      Group("pair", 2, FieldRepetitionType::kRepeated),
      Leaf("k", Type::kInt32, FieldRepetitionType::kRequired),
      Leaf("v", Type::kDouble, FieldRepetitionType::kOptional),
  };
  auto schema = FileSchema::FromParquet(elements);
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  const data::Schema& s = schema->schema();
  EXPECT_EQ(s.field(0).type->ToString(), "array<int>");
  EXPECT_FALSE(s.field(0).nullable);
  EXPECT_EQ(s.field(1).type->ToString(), "array<bigint>");
  EXPECT_EQ(s.field(2).type->ToString(), "array<struct<x:int>>");
  EXPECT_EQ(s.field(3).type->ToString(), "array<struct<k:int not null,v:double>>");
  // Levels: b is optional (1) with a repeated element (2); c's x adds its own optional (3).
  ASSERT_EQ(schema->leaves().size(), 5u);
  EXPECT_EQ(schema->leaves()[0]->max_def, 1);
  EXPECT_EQ(schema->leaves()[0]->max_rep, 1);
  EXPECT_EQ(schema->leaves()[1]->max_def, 2);
  EXPECT_EQ(schema->leaves()[2]->max_def, 3);
  EXPECT_EQ(schema->leaves()[2]->max_rep, 1);
  EXPECT_EQ(schema->leaves()[3]->max_def, 1);
  EXPECT_EQ(schema->leaves()[4]->max_def, 2);
}

TEST(FileSchemaTest, ThreeLevelListsAndMapsRoundTripThroughTheWriterMapping) {
  data::Schema logical(
      {{"l", data::DataType::List(data::DataType::String())},
       {"m",
        data::DataType::Map(data::DataType::Int32(), data::DataType::List(data::DataType::Date()))},
       {"s", data::DataType::Struct({{"a", data::DataType::Decimal(20, 3)}}), false}});
  auto schema = FileSchema::FromLogical(logical);
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  EXPECT_TRUE(schema->schema() == logical);
  EXPECT_EQ(schema->leaves()[0]->path, (std::vector<std::string>{"l", "list", "element"}));
  EXPECT_EQ(schema->leaves()[1]->path, (std::vector<std::string>{"m", "key_value", "key"}));
  EXPECT_EQ(schema->leaves()[3]->element.type_length.value_or(0), 9);  // decimal(20) needs 9 bytes
}

TEST(FileSchemaTest, MalformedSchemasAreCorrupt) {
  std::vector<SchemaElement> too_many = {Group("schema", 3, std::nullopt),
                                         Leaf("a", Type::kInt32, FieldRepetitionType::kOptional)};
  EXPECT_EQ(FileSchema::FromParquet(too_many).status().code(), StatusCode::kCorrupt);
  std::vector<SchemaElement> duplicate = {Group("schema", 2, std::nullopt),
                                          Leaf("a", Type::kInt32, FieldRepetitionType::kOptional),
                                          Leaf("a", Type::kInt64, FieldRepetitionType::kOptional)};
  EXPECT_EQ(FileSchema::FromParquet(duplicate).status().code(), StatusCode::kCorrupt);
  EXPECT_EQ(FileSchema::FromParquet({}).status().code(), StatusCode::kCorrupt);
}

}  // namespace
}  // namespace cdclake::parquet
