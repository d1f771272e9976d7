// Tests for ${name} substitution: values, comments left alone, and errors at the '$'.
#include "sql/pipeline_variables.h"

#include <gtest/gtest.h>

namespace cdclake::sql {
namespace {

const std::map<std::string, std::string> kVars = {
    {"catalog", "main"}, {"source.path", "/data/in"}, {"env-name", "dev"}, {"loop", "${loop}"}};

std::string Substituted(std::string_view text) {
  auto r = SubstituteVariables(text, kVars);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : "";
}

std::string Error(std::string_view text) {
  auto r = SubstituteVariables(text, kVars);
  EXPECT_FALSE(r.ok()) << text;
  return r.ok() ? "" : r.status().message();
}

TEST(PipelineVariablesTest, ReplacesInCodeAndStrings) {
  EXPECT_EQ(Substituted("FROM ${catalog}.s.t"), "FROM main.s.t");
  EXPECT_EQ(Substituted("read_files('${source.path}/*.json')"), "read_files('/data/in/*.json')");
  EXPECT_EQ(Substituted("`${env-name}_users`"), "`dev_users`");
  EXPECT_EQ(Substituted("${catalog}${catalog}"), "mainmain");
}

TEST(PipelineVariablesTest, SubstitutedTextIsNotScannedAgain) {
  EXPECT_EQ(Substituted("x = '${loop}'"), "x = '${loop}'");
}

TEST(PipelineVariablesTest, CommentsAreLeftAlone) {
  EXPECT_EQ(Substituted("a -- ${undefined}\nb ${catalog}"), "a -- ${undefined}\nb main");
  EXPECT_EQ(Substituted("/* ${undefined} */ ${catalog}"), "/* ${undefined} */ main");
  // Inside a string a comment marker is just text.
  EXPECT_EQ(Substituted("'-- ${catalog}'"), "'-- main'");
}

TEST(PipelineVariablesTest, TextWithoutReferencesIsUnchanged) {
  EXPECT_EQ(Substituted("SELECT $x, '$', {a}"), "SELECT $x, '$', {a}");
  EXPECT_EQ(Substituted(""), "");
}

TEST(PipelineVariablesTest, UndefinedVariableAtItsPosition) {
  std::string e = Error("SET a = 1;\nFROM ${catalog}.${schema}.t");
  EXPECT_EQ(e.substr(0, e.find('\n')), "line 2, column 17: undefined variable 'schema'");
  EXPECT_NE(e.find("\n  FROM ${catalog}.${schema}.t\n                  ^"), std::string::npos) << e;
}

TEST(PipelineVariablesTest, NamesAreCaseSensitive) {
  std::string e = Error("${Catalog}");
  EXPECT_EQ(e.substr(0, e.find('\n')), "line 1, column 1: undefined variable 'Catalog'");
}

TEST(PipelineVariablesTest, MalformedReferences) {
  std::string e = Error("x ${catalog");
  EXPECT_EQ(e.substr(0, e.find('\n')),
            "line 1, column 3: '${' without a closing '}' after a variable name");
  e = Error("ab\n  ${}");
  EXPECT_EQ(e.substr(0, e.find('\n')), "line 2, column 3: empty variable reference '${}'");
  e = Error("${a b}");
  EXPECT_EQ(e.substr(0, e.find('\n')),
            "line 1, column 1: '${' without a closing '}' after a variable name");
}

}  // namespace
}  // namespace cdclake::sql
