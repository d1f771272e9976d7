// Tests for type names, DDL column lists, plain column lists and SEQUENCE BY, with their errors.
#include "sql/schema_ddl.h"

#include <gtest/gtest.h>

namespace cdclake::sql {
namespace {

std::string TypeText(std::string_view text) {
  auto r = ParseTypeName(text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.status().ToString();
  return r.ok() ? (*r)->ToString() : "";
}

template <typename T>
std::string ErrorOf(const Result<T>& r) {
  EXPECT_FALSE(r.ok());
  if (r.ok()) return "";
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  return r.status().message();
}

std::string FirstLine(const std::string& message) {
  return message.substr(0, message.find('\n'));
}

TEST(ParseTypeNameTest, EverySpelling) {
  std::pair<const char*, const char*> cases[] = {
      {"BOOLEAN", "boolean"},
      {"tinyint", "tinyint"},
      {"BYTE", "tinyint"},
      {"SMALLINT", "smallint"},
      {"short", "smallint"},
      {"INT", "int"},
      {"Integer", "int"},
      {"BIGINT", "bigint"},
      {"LONG", "bigint"},
      {"FLOAT", "float"},
      {"REAL", "float"},
      {"DOUBLE", "double"},
      {"DECIMAL", "decimal(10,0)"},
      {"DEC(5)", "decimal(5,0)"},
      {"NUMERIC( 12 , 3 )", "decimal(12,3)"},
      {"decimal(38,38)", "decimal(38,38)"},
      {"STRING", "string"},
      {"VARCHAR(20)", "string"},
      {"char(1)", "string"},
      {"BINARY", "binary"},
      {"DATE", "date"},
      {"TIMESTAMP", "timestamp"},
      {"TIMESTAMP_LTZ", "timestamp"},
      {"timestamp_ntz", "timestamp_ntz"},
      {"ARRAY<INT>", "array<int>"},
      {"ARRAY<ARRAY<INT>>", "array<array<int>>"},
      {"MAP<STRING, DECIMAL(10,2)>", "map<string,decimal(10,2)>"},
      {"STRUCT<a: INT, b STRING NOT NULL, `c d`: ARRAY<DATE> COMMENT 'x'>",
       "struct<a:int,b:string not null,c d:array<date>>"},
      {"struct<a:struct<b:map<string,array<int>>>>", "struct<a:struct<b:map<string,array<int>>>>"},
      {"STRUCT<>", "struct<>"},
      {"STRUCT< >", "struct<>"},
  };
  for (const auto& [text, want] : cases) EXPECT_EQ(TypeText(text), want) << text;
}

TEST(ParseTypeNameTest, ErrorsWithCaret) {
  EXPECT_EQ(ErrorOf(ParseTypeName("INTEGR")),
            "line 1, column 1: unknown type 'INTEGR'\n  INTEGR\n  ^");
  EXPECT_EQ(ErrorOf(ParseTypeName("DECIMAL(40,2)")),
            "line 1, column 9: the precision must be between 1 and 38, found 40\n"
            "  DECIMAL(40,2)\n"
            "          ^");
  std::pair<const char*, const char*> cases[] = {
      {"DECIMAL(0)", "line 1, column 9: the precision must be between 1 and 38, found 0"},
      {"DECIMAL(10,11)", "line 1, column 12: the scale must be between 0 and 10, found 11"},
      {"DECIMAL(10,-1)", "line 1, column 12: expected the scale (a whole number), found '-'"},
      {"DECIMAL(1.5)", "line 1, column 9: expected the precision (a whole number), found '1.5'"},
      {"DECIMAL(10,2", "line 1, column 13: expected ')' to close DECIMAL(, found end of input"},
      {"ARRAY<INT", "line 1, column 10: expected '>' to close ARRAY<, found end of input"},
      {"ARRAY(INT)", "line 1, column 6: expected '<' after ARRAY, found '('"},
      {"MAP<STRING>", "line 1, column 11: expected ',' and the value type in MAP<, found '>'"},
      {"INT(5)", "line 1, column 4: type INT takes no arguments"},
      {"VARCHAR", "line 1, column 8: expected '(' and a length after VARCHAR, found end of input"},
      {"VARCHAR(0)", "line 1, column 9: a length must be between 1 and 1073741824, found 0"},
      {"STRUCT<a INT, A STRING>",
       "line 1, column 15: field 'A' appears twice (first at line 1, column 8)"},
      {"STRUCT<a INT b STRING>", "line 1, column 14: expected ',' or '>' in STRUCT<, found 'b'"},
      {"STRUCT<INT>", "line 1, column 11: expected a type name, found '>'"},
      {"INT extra", "line 1, column 5: expected the end of the type, found 'extra'"},
      {"", "line 1, column 1: expected a type name, found end of input"},
      {"'INT'", "line 1, column 1: expected a type name, found the string 'INT'"},
  };
  for (const auto& [text, want] : cases) {
    EXPECT_EQ(FirstLine(ErrorOf(ParseTypeName(text))), want) << text;
  }
}

TEST(ParseSchemaDdlTest, ColumnsTypesAndNullability) {
  auto r = ParseSchemaDdl("userId INT, name STRING, amount DECIMAL(10,2)");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->num_fields(), 3u);
  EXPECT_EQ(r->field(0).name, "userId");
  EXPECT_EQ(r->field(0).type->ToString(), "int");
  EXPECT_TRUE(r->field(0).nullable);
  EXPECT_EQ(r->field(2).type->ToString(), "decimal(10,2)");

  r = ParseSchemaDdl(
      "id BIGINT NOT NULL COMMENT 'the key',\n"
      "  `first name` STRING COMMENT \"shown\" NOT NULL,\n"
      "  date DATE, timestamp TIMESTAMP, comment STRING, key STRING,\n"
      "  address STRUCT<street: STRING, zip INT NOT NULL>, tags ARRAY<STRING>");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->ToString(),
            "id bigint not null\n"
            "first name string not null\n"
            "date date\n"
            "timestamp timestamp\n"
            "comment string\n"
            "key string\n"
            "address struct<street:string,zip:int not null>\n"
            "tags array<string>\n");
}

TEST(ParseSchemaDdlTest, Errors) {
  EXPECT_EQ(ErrorOf(ParseSchemaDdl("id INT,\n  ID STRING")),
            "line 2, column 3: column 'ID' appears twice (first at line 1, column 1)\n"
            "    ID STRING\n"
            "    ^");
  std::pair<const char*, const char*> cases[] = {
      {"id INT PRIMARY KEY",
       "line 1, column 8: expected ',', NOT NULL, COMMENT or the end of the columns, found "
       "'PRIMARY'"},
      {"", "line 1, column 1: expected a column name, found end of input"},
      {"id INT,", "line 1, column 8: expected a column name, found end of input"},
      {"id", "line 1, column 3: expected a type name, found end of input"},
      {"id INT NOT", "line 1, column 11: expected NULL after NOT, found end of input"},
      {"id INT COMMENT 5", "line 1, column 16: expected a string after COMMENT, found '5'"},
      {"id INTT", "line 1, column 4: unknown type 'INTT'"},
      {"1id INT", "line 1, column 2: malformed number: unexpected 'i' after '1'"},
      {"5 INT", "line 1, column 1: expected a column name, found '5'"},
      {"id INT; name STRING",
       "line 1, column 7: expected ',', NOT NULL, COMMENT or the end of the columns, found ';'"},
  };
  for (const auto& [text, want] : cases) {
    EXPECT_EQ(FirstLine(ErrorOf(ParseSchemaDdl(text))), want) << text;
  }
}

TEST(ParseColumnListTest, NamesInOrder) {
  auto r = ParseColumnList("a, b, `c d`");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, (std::vector<std::string>{"a", "b", "c d"}));
  r = ParseColumnList("(userId, `order`)");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, (std::vector<std::string>{"userId", "order"}));
  r = ParseColumnList("single");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, (std::vector<std::string>{"single"}));

  std::pair<const char*, const char*> cases[] = {
      {"", "line 1, column 1: expected a column name, found end of input"},
      {"a b", "line 1, column 3: expected ',' or the end, found 'b'"},
      {"a,,b", "line 1, column 3: expected a column name, found ','"},
      {"a, A", "line 1, column 4: column 'A' appears twice (first at line 1, column 1)"},
      {"(a, b", "line 1, column 6: expected ',' or ')', found end of input"},
      {"a, 'b'", "line 1, column 4: expected a column name, found the string 'b'"},
  };
  for (const auto& [text, want] : cases) {
    EXPECT_EQ(FirstLine(ErrorOf(ParseColumnList(text))), want) << text;
  }
}

TEST(ParseSequenceByTest, ColumnOrStruct) {
  auto r = ParseSequenceBy("sequenceNum");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->columns, (std::vector<std::string>{"sequenceNum"}));
  EXPECT_FALSE(r->is_struct);

  r = ParseSequenceBy("STRUCT(ts, `lsn id`)");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->columns, (std::vector<std::string>{"ts", "lsn id"}));
  EXPECT_TRUE(r->is_struct);

  r = ParseSequenceBy("struct ( ts )");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->columns, (std::vector<std::string>{"ts"}));
  EXPECT_TRUE(r->is_struct);

  // A column named struct is a column.
  r = ParseSequenceBy("struct");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->columns, (std::vector<std::string>{"struct"}));
  EXPECT_FALSE(r->is_struct);

  std::pair<const char*, const char*> cases[] = {
      {"", "line 1, column 1: expected a column name or STRUCT(...), found end of input"},
      {"STRUCT()", "line 1, column 8: expected a column name, found ')'"},
      {"STRUCT(a, b",
       "line 1, column 12: expected ',' or ')' to close STRUCT(, found end of input"},
      {"STRUCT(a, a)", "line 1, column 11: column 'a' appears twice (first at line 1, column 8)"},
      {"a.b", "line 1, column 2: SEQUENCE BY takes top-level columns, not nested fields"},
      {"a, b", "line 1, column 2: expected the end of the SEQUENCE BY expression, found ','"},
      {"GREATEST(a, b)",
       "line 1, column 9: expected the end of the SEQUENCE BY expression, "
       "found '('"},
  };
  for (const auto& [text, want] : cases) {
    EXPECT_EQ(FirstLine(ErrorOf(ParseSequenceBy(text))), want) << text;
  }
}

}  // namespace
}  // namespace cdclake::sql
