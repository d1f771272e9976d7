// `cdclake reconcile`: a Delta table against the PostgreSQL table it is fed from — counts, and
// the keys missing, extra or different. Exit code 0 when equal, 1 when not, 2 when the
// comparison could not be made.
#include <iostream>
#include <memory>
#include <string>

#include "cdclake/reconcile.h"
#include "cli/commands.h"

namespace cdclake::cli {

namespace {

struct ReconcileArgs {
  std::string table;
  pipeline::ReconcileOptions options;
  std::string keys;
  std::string columns;
  bool not_exact = false;
};

std::string Joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

void PrintKeys(const char* what, int64_t count, const std::vector<std::string>& examples) {
  std::cout << what << count;
  if (!examples.empty()) {
    std::cout << (count > static_cast<int64_t>(examples.size()) ? "  first: " : "  keys: ");
    for (size_t i = 0; i < examples.size(); ++i) std::cout << (i ? "; " : "") << examples[i];
  }
  std::cout << "\n";
}

}  // namespace

Action AddReconcileCommand(CLI::App& app) {
  auto args = std::make_shared<ReconcileArgs>();
  CLI::App* cmd = app.add_subcommand(
      "reconcile", "Compare a Delta table with the PostgreSQL table it is fed from, key by key");
  cmd->add_option("table", args->table, "the Delta table's folder")->required();
  cmd->add_option("--postgres", args->options.connection, "the source's libpq connection string")
      ->required();
  cmd->add_option("--source-table", args->options.source_table,
                  "the source table (schema.name or name)")
      ->required();
  cmd->add_option("--keys", args->keys, "a,b: key columns (default: the source's primary key)");
  cmd->add_option("--columns", args->columns,
                  "a,b: columns compared (default: every column both tables have)");
  cmd->add_option("--examples", args->options.examples, "keys listed per kind of difference")
      ->capture_default_str();
  cmd->add_option("--buckets", args->options.buckets,
                  "key buckets summed first; only those that differ are compared key by key")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--not-exact", args->not_exact,
                "compare the table as it is now with the source as it is now, without reading "
                "the changes between from the flow's slot");
  return [args]() -> int {
    args->options.keys = SplitList(args->keys);
    args->options.exact = !args->not_exact;
    args->options.columns = SplitList(args->columns);
    auto report = pipeline::ReconcileWithPostgres(*io::LocalFileSystem::Instance(), args->table,
                                                  args->options);
    if (!report.ok()) {
      Fail(report.status());
      return 2;
    }
    const pipeline::ReconcileReport& r = *report;
    std::cout << "source:  " << r.source << " at WAL " << r.source_lsn << ", " << r.source_rows
              << " rows\n";
    std::cout << "table:   " << args->table << " version " << r.table_version << ", "
              << r.table_rows << " rows\n";
    if (!r.point.empty()) {
      std::cout << "point:   " << r.point << "\n";
    } else {
      std::cout << "point:   none (" << r.not_exact
                << "): the table as it is now against the source as it is now\n";
    }
    std::cout << "keys:    " << Joined(r.keys) << "\ncompared: " << Joined(r.columns) << "\n";
    std::cout << "buckets: " << r.buckets << ", " << r.differing_buckets
              << " compared key by key\n";
    std::cout << "matching: " << r.matching << "\n";
    PrintKeys("missing from the table: ", r.missing, r.missing_keys);
    PrintKeys("extra in the table:     ", r.extra, r.extra_keys);
    PrintKeys("different:              ", r.changed, r.changed_keys);
    if (r.equal()) {
      std::cout << "equal\n";
      return 0;
    }
    if (r.point.empty()) {
      std::cout << "different: changes the pipeline has not read yet show here too; run it with "
                   "the source quiet and reconcile again\n";
    } else {
      std::cout << "different at that point: the pipeline will not mend these by reading on "
                   "(changes made while the table was out of the publication, rows changed in "
                   "the table by hand, ...)\n";
    }
    return 1;
  };
}

}  // namespace cdclake::cli
