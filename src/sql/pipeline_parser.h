// PipelineParser: a whole pipeline file (Databricks Lakeflow / DLT pipeline SQL as cdclake
// accepts it, see docs/pipeline-language.md) into a PipelineAst.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "base/result.h"
#include "sql/pipeline_ast.h"

namespace cdclake::sql {

/// Parses the ';'-separated statements of `text` after replacing each ${name} with
/// `variables[name]` (SubstituteVariables): SET, CREATE [OR REFRESH] STREAMING TABLE,
/// CREATE TEMPORARY VIEW, CREATE FLOW ... AS AUTO CDC / APPLY CHANGES INTO, and the legacy
/// APPLY CHANGES INTO statement. Keywords are case-insensitive; -- and /* */ comments are skipped.
/// kInvalidArgument formatted as SyntaxError (line, column, caret) for anything else; Databricks
/// syntax that cdclake knows but does not run says "<X> is not supported by cdclake".
/// `substitute_variables` false: the text is taken as it is (the SQL a Python file declared,
/// whose values are in it already; a `${` there is the file's own text).
Result<PipelineAst> ParsePipeline(std::string_view text,
                                  const std::map<std::string, std::string>& variables = {},
                                  bool substitute_variables = true);

}  // namespace cdclake::sql
