// Pipeline files and the option values `run` and `serve` share.
#include "cli/pipeline_file.h"

#include <charconv>
#include <cstdlib>
#include <iostream>

namespace cdclake::cli {

Result<std::map<std::string, std::string>> ParseVars(const std::vector<std::string>& vars) {
  std::map<std::string, std::string> out;
  for (const std::string& v : vars) {
    size_t eq = v.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::InvalidArgument("--var " + v + ": write it as name=value");
    }
    out[v.substr(0, eq)] = v.substr(eq + 1);
  }
  return out;
}

Result<int64_t> ParseInterval(const std::string& text) {
  size_t unit = text.find_first_not_of("0123456789.");
  if (unit == 0 || text.empty()) {
    return Status::InvalidArgument("--interval '" + text + "': write it as 500ms, 1s or 1m");
  }
  double value = 0;
  const char* end = text.data() + (unit == std::string::npos ? text.size() : unit);
  auto [stop, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || stop != end) {
    return Status::InvalidArgument("--interval '" + text + "': write it as 500ms, 1s or 1m");
  }
  std::string suffix = unit == std::string::npos ? "s" : text.substr(unit);
  double ms = suffix == "ms"  ? value
              : suffix == "s" ? value * 1000
              : suffix == "m" ? value * 60000
                              : -1;
  if (ms < 0) return Status::InvalidArgument("--interval '" + text + "': units are ms, s or m");
  return static_cast<int64_t>(ms);
}

Result<pipeline::PipelinePlan> LoadPipelineFile(const std::string& path,
                                                const std::map<std::string, std::string>& vars,
                                                const pipeline::Warehouse& warehouse) {
  // A Python file prints the SQL pipeline it declares (pipeline/python_pipeline.h).
  const bool python = pipeline::IsPythonPipeline(path);
  auto text = python ? pipeline::TranslatePythonPipeline(path, vars, warehouse.root())
                     : io::LocalFileSystem::Instance()->ReadFile(path);
  if (text.ok() && python && std::getenv("CDCLAKE_SHOW_PYTHON_SQL")) {
    std::cerr << *text;  // the SQL the file declares, for finding what a message is about
  }
  if (!text.ok()) return text.status();
  // A Python file's SQL has its values in it already; a `${` there is the file's own text.
  auto ast = sql::ParsePipeline(*text, vars, /*substitute_variables=*/!python);
  if (!ast.ok()) {
    return (python ? pipeline::WithPythonOrigin(ast.status(), *text) : ast.status())
        .WithContext(path);
  }
  auto plan = pipeline::PlanPipeline(*ast, warehouse);
  if (!plan.ok()) {
    return (python ? pipeline::WithPythonOrigin(plan.status(), *text) : plan.status())
        .WithContext(path);
  }
  for (const std::string& w : plan->warnings) {
    std::cerr << "cdclake: warning: " << path << ": " << w << "\n";
  }
  return plan;
}

}  // namespace cdclake::cli
