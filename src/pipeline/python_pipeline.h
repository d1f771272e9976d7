// Python pipeline files: `cdclake run FILE.py` runs the file with the system's python3 against
// the pyspark / dlt modules that ship with cdclake (python/), which print the pipeline the file
// declares as cdclake SQL; that text is then planned and run like a .sql file.
#pragma once

#include <map>
#include <string>

#include "base/result.h"

namespace cdclake::pipeline {

/// Whether `path` names a Python pipeline file (ends in .py).
bool IsPythonPipeline(const std::string& path);

/// The pipeline SQL that the Python file `path` declares, `vars` given to it as spark.conf
/// values. Python's own messages (a syntax error, an unsupported call with its line) go to
/// stderr as the translator prints them; then kInvalidArgument saying the file did not
/// translate. The modules are found in the folder the environment's CDCLAKE_PYTHON_DIR names
/// when set; else in `<binary's folder>/../share/cdclake/python` when it exists (an installed
/// cdclake); else in the source tree's python/ folder. `warehouse` (the environment's
/// CDCLAKE_WAREHOUSE) is where a next_snapshot_and_version function's snapshots are linked.
Result<std::string> TranslatePythonPipeline(const std::string& path,
                                            const std::map<std::string, std::string>& vars,
                                            const std::string& warehouse = "");

/// For an error about the SQL a Python file declared ("line N, column C: ..." of `sql`): the
/// error with where the file declared that statement ("; declared at users.py:12", from the
/// `-- cdclake: declared at FILE:LINE` comment the translator writes before each statement); as
/// it is otherwise.
Status WithPythonOrigin(const Status& error, const std::string& sql);

}  // namespace cdclake::pipeline
