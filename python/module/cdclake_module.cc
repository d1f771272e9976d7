// The `cdclake` Python module (pybind11): a Delta table's rows and change feed as Python
// columns or a pandas DataFrame, and a pipeline run, for notebooks and tests. It uses only the
// public headers, as the command does.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cdclake/change_feed.h"
#include "cdclake/delta.h"
#include "cdclake/pipeline_run.h"
#include "to_python.h"

namespace py = pybind11;

namespace cdclake::python {

namespace {

// kNotFound unless `path` holds a Delta table.
Status CheckIsTable(const std::string& path) {
  Result<bool> exists = delta::TableExists(*io::LocalFileSystem::Instance(), path);
  if (!exists.ok() || *exists) return exists.status();
  return Status::NotFound(path + ": not a Delta table (no commit in a _delta_log folder)");
}

py::object ReadTable(const std::string& path, std::optional<int64_t> version,
                     std::optional<std::vector<std::string>> columns,
                     std::optional<bool> as_pandas) {
  if (Status s = CheckIsTable(path); !s.ok()) Raise(s);
  Result<data::RecordBatch> read = Status::Internal("not read");
  {
    py::gil_scoped_release unlocked;
    const io::FileSystem& fs = *io::LocalFileSystem::Instance();
    auto snapshot = delta::Snapshot::Load(fs, path, version);
    if (snapshot.ok()) {
      delta::ScanOptions options;
      if (columns) options.columns = *columns;
      read = delta::ReadTable(fs, **snapshot, options);
    } else {
      read = snapshot.status();
    }
  }
  return BatchToPython(ValueOrRaise(std::move(read)), as_pandas);
}

py::object Changes(const std::string& path, int64_t start, std::optional<int64_t> end,
                   std::optional<bool> as_pandas) {
  if (Status s = CheckIsTable(path); !s.ok()) Raise(s);
  Result<data::RecordBatch> changes = Status::Internal("not read");
  {
    py::gil_scoped_release unlocked;
    changes = delta::ReadChanges(*io::LocalFileSystem::Instance(), path, start, end);
  }
  return BatchToPython(ValueOrRaise(std::move(changes)), as_pandas);
}

py::list TextList(const std::vector<std::string>& lines) {
  py::list out;
  for (const std::string& line : lines) out.append(Text(line));
  return out;
}

py::dict FlowToPython(const pipeline::FlowSummary& f) {
  py::dict out;
  out["flow"] = Text(f.flow);
  out["target"] = Text(f.target);
  const apply::ApplyCounts& c = f.outcome.counts;
  out["batches"] = f.outcome.batches;
  out["read"] = c.read;
  out["applied"] = c.applied;
  out["discarded"] = c.discarded;
  out["quarantined"] = c.quarantined;
  out["inserted"] = c.inserted;
  out["updated"] = c.updated;
  out["deleted"] = c.deleted;
  out["versions"] = f.outcome.versions;
  py::list expectations;
  for (const pipeline::ExpectationCount& e : f.outcome.expectations) {
    py::dict x;
    x["name"] = Text(e.name);
    x["dataset"] = Text(e.dataset);
    x["action"] = Text(sql::ExpectationActionName(e.action));
    x["passed"] = e.passed;
    x["failed"] = e.failed;
    expectations.append(x);
  }
  out["expectations"] = expectations;
  out["error"] = f.status.ok() ? py::object(py::none()) : Text(f.status.ToString());
  out["skipped"] = f.skipped.empty() ? py::object(py::none()) : Text(f.skipped);
  out["warnings"] = TextList(f.warnings);
  return out;
}

// What a run needs from Python while it runs without the GIL: Ctrl-C, as the command stops
// on SIGINT between batches.
struct Interrupt {
  bool requested = false;
  bool Check() {
    if (requested) return true;
    py::gil_scoped_acquire locked;
    if (PyErr_CheckSignals() != 0) {
      PyErr_Clear();  // raised again as KeyboardInterrupt once the run has stopped
      requested = true;
    }
    return requested;
  }
};

py::dict Run(const std::string& pipeline_path, const std::string& warehouse_root,
             const std::map<std::string, std::string>& vars,
             const std::vector<std::string>& full_refresh, bool full_refresh_all,
             const std::vector<std::string>& reset_positions, int64_t batch_rows, bool check) {
  pipeline::Warehouse warehouse(warehouse_root);
  io::LocalFileSystem& fs = *io::LocalFileSystem::Instance();
  pipeline::PipelineRunSummary summary;
  std::vector<std::string> warnings;
  Interrupt interrupt;
  {
    py::gil_scoped_release unlocked;
    Status failed;
    auto plan = pipeline::PlanPipelineFile(pipeline_path, vars, warehouse);
    pipeline::PipelineRunOptions options;
    options.full_refresh = full_refresh;
    options.full_refresh_all = full_refresh_all;
    options.reset_positions = reset_positions;
    options.batch_rows = batch_rows;
    options.run_id = pipeline::NewRunId("python");
    options.on_batch = [&](const pipeline::FlowBatchReport& r) {
      for (const std::string& w : r.warnings) warnings.push_back("flow " + r.flow + ": " + w);
    };
    options.stop_requested = [&] { return interrupt.Check(); };
    if (plan.ok()) {
      for (const std::string& w : plan->warnings) {
        warnings.push_back(pipeline_path);
        warnings.back().append(": ").append(w);
      }
      auto refresh = pipeline::TablesToRefresh(*plan, warehouse, options, &warnings);
      failed = refresh.status();
      if (refresh.ok()) failed = pipeline::CheckSources(fs, *plan, *refresh);
      failed = failed.ok() ? failed : failed.WithContext(pipeline_path);
      if (failed.ok()) summary = pipeline::RunPipeline(fs, *plan, warehouse, options);
    } else {
      failed = plan.status();
    }
    if (!failed.ok()) {
      py::gil_scoped_acquire locked;
      Raise(failed);
    }
  }
  if (interrupt.requested) {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }
  py::dict out;
  out["passes"] = summary.passes;
  out["failed"] = summary.failed();
  py::list flows;
  std::string errors;
  for (const pipeline::FlowSummary& f : summary.flows) {
    flows.append(FlowToPython(f));
    for (const std::string& w : f.warnings) warnings.push_back(w);
    if (!f.status.ok()) errors += "\nflow " + f.flow + " failed: " + f.status.ToString();
    if (f.upstream_failed) errors += "\nflow " + f.flow + " skipped: " + f.skipped;
  }
  out["flows"] = flows;
  out["warnings"] = TextList(warnings);
  if (check && summary.failed()) {
    PyErr_SetObject(PyExc_RuntimeError, Text(pipeline_path + ": the run failed" + errors).ptr());
    throw py::error_already_set();
  }
  return out;
}

}  // namespace

}  // namespace cdclake::python

PYBIND11_MODULE(cdclake, m) {
  using namespace cdclake::python;  // NOLINT(google-build-using-namespace)
  m.doc() =
      "cdclake's Delta tables and pipelines from Python: read_table, changes and run. Columns "
      "come back as a pandas DataFrame when pandas is installed, else as {column: list}.";
  m.def("read_table", &ReadTable, py::arg("path"), py::arg("version") = py::none(),
        py::arg("columns") = py::none(), py::arg("as_pandas") = py::none(),
        "The rows of the Delta table at `path` (at `version`, default the latest); `columns` "
        "picks columns; as_pandas=False gives {column: list} even with pandas installed.");
  m.def("changes", &Changes, py::arg("path"), py::arg("start"), py::arg("end") = py::none(),
        py::arg("as_pandas") = py::none(),
        "The change data feed of the table at `path` from version `start` to `end` (default "
        "the latest): the table's columns, _change_type, _commit_version, _commit_timestamp.");
  m.def("run", &Run, py::arg("pipeline"), py::arg("warehouse") = "lake",
        py::arg("vars") = std::map<std::string, std::string>(),
        py::arg("full_refresh") = std::vector<std::string>(), py::arg("full_refresh_all") = false,
        py::arg("reset_positions") = std::vector<std::string>(), py::arg("batch_rows") = 100'000,
        py::arg("check") = true,
        "Runs a pipeline file (.sql or .py) once over what its sources hold, as `cdclake run "
        "--once`. Returns {passes, failed, flows: [{flow, target, read, applied, ..., "
        "expectations, error}], warnings}; with check=True (the default) a failed flow raises "
        "RuntimeError. Ctrl-C stops the run before its next flow and raises KeyboardInterrupt.");
}
