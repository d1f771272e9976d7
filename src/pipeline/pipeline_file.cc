// Reading, parsing and planning a pipeline file (SQL, or Python translated to SQL).
#include "pipeline/pipeline_file.h"

#include <cstdlib>
#include <iostream>

#include "io/local_file_system.h"
#include "pipeline/python_pipeline.h"
#include "sql/pipeline_parser.h"

namespace cdclake::pipeline {

Result<PipelinePlan> PlanPipelineFile(const std::string& path,
                                      const std::map<std::string, std::string>& vars,
                                      const Warehouse& warehouse) {
  // A Python file prints the SQL pipeline it declares.
  const bool python = IsPythonPipeline(path);
  auto text = python ? TranslatePythonPipeline(path, vars, warehouse.root())
                     : io::LocalFileSystem::Instance()->ReadFile(path);
  if (text.ok() && python && std::getenv("CDCLAKE_SHOW_PYTHON_SQL")) {
    std::cerr << *text;  // the SQL the file declares, for finding what a message is about
  }
  if (!text.ok()) return text.status();
  // A Python file's SQL has its values in it already; a `${` there is the file's own text.
  auto ast = sql::ParsePipeline(*text, vars, /*substitute_variables=*/!python);
  if (!ast.ok()) {
    return (python ? WithPythonOrigin(ast.status(), *text) : ast.status()).WithContext(path);
  }
  auto plan = PlanPipeline(*ast, warehouse);
  if (!plan.ok()) {
    return (python ? WithPythonOrigin(plan.status(), *text) : plan.status()).WithContext(path);
  }
  return plan;
}

}  // namespace cdclake::pipeline
