// Pipeline files and the option values `run` and `serve` share.
#include "cli/pipeline_file.h"

#include <charconv>
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
  auto plan = pipeline::PlanPipelineFile(path, vars, warehouse);
  if (!plan.ok()) return plan;
  for (const std::string& w : plan->warnings) {
    std::cerr << "cdclake: warning: " << path << ": " << w << "\n";
  }
  return plan;
}

}  // namespace cdclake::cli
