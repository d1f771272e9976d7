// Table checks: each live file's existence, size, stats, Parquet footer, partition values and
// deletion vector, problems collected per file.
#include "delta/table_check.h"

#include "delta/deletion_vector/deletion_vector_descriptor.h"
#include "delta/file_statistics.h"
#include "delta/schema_json.h"
#include "delta/snapshot.h"
#include "delta/table_scan.h"
#include "parquet/reader/file_reader.h"

namespace cdclake::delta {

namespace {

class FileChecker {
 public:
  FileChecker(const io::FileSystem& fs, const Snapshot& snapshot, CheckReport* report)
      : fs_(fs), snapshot_(snapshot), report_(report) {
    // Under column mapping partitionValues are keyed by physical name (§Column Mapping).
    bool mapped = snapshot.column_mapping_mode() != "none";
    for (const std::string& p : snapshot.metadata().partition_columns) {
      auto info = ColumnMappingOf(snapshot.delta_schema(), FieldPath({p}));
      partition_keys_.push_back(mapped && info.ok() ? info->physical_name : p);
    }
  }

  void Check(const Add& add) {
    ++report_->files_checked;
    for (const std::string& key : partition_keys_) {
      if (!add.partition_values.count(key)) {
        Problem(add, "no partition value for column '" + key + "'");
      }
    }
    int64_t stats_rows = -1;
    if (add.stats) {
      auto stats = ParseStatsJson(*add.stats);
      if (!stats.ok()) {
        Problem(add, "stats do not parse: " + stats.status().ToString());
      } else {
        stats_rows = stats->num_records;
      }
    }
    if (add.deletion_vector && stats_rows < 0) {
      Problem(add, "has a deletion vector but no numRecords in its stats");
    }
    auto path = ResolvePath(snapshot_.table_root(), add.path);
    if (!path.ok()) {
      Problem(add, path.status().ToString());
      return;
    }
    auto info = fs_.Stat(*path);
    if (!info.ok()) {
      Problem(add, info.status().code() == StatusCode::kNotFound
                       ? "missing: " + *path
                       : "cannot stat " + *path + ": " + info.status().ToString());
      return;
    }
    if (info->is_directory) {
      Problem(add, *path + " is a folder");
      return;
    }
    if (static_cast<int64_t>(info->size) != add.size) {
      Problem(add, "size is " + std::to_string(info->size) + " bytes, the log says " +
                       std::to_string(add.size));
    }
    auto reader = parquet::FileReader::Open(fs_, *path);
    if (!reader.ok()) {
      Problem(add, "Parquet footer does not open: " + reader.status().ToString());
      return;
    }
    const int64_t rows = (*reader)->num_rows();
    if (stats_rows >= 0 && stats_rows != rows) {
      Problem(add, "stats say " + std::to_string(stats_rows) + " records, the file has " +
                       std::to_string(rows));
    }
    if (add.deletion_vector) CheckDeletionVector(add, *add.deletion_vector, rows);
  }

 private:
  void CheckDeletionVector(const Add& add, const DeletionVectorDescriptor& dv, int64_t rows) {
    ++report_->deletion_vectors_checked;
    auto bitmap = LoadDeletionVector(fs_, snapshot_.table_root(), dv);
    if (!bitmap.ok()) {
      Problem(add, "deletion vector: " + bitmap.status().ToString());
      return;
    }
    const auto cardinality = static_cast<int64_t>(bitmap->Cardinality());
    if (cardinality != dv.cardinality) {
      Problem(add, "deletion vector holds " + std::to_string(cardinality) +
                       " rows, its descriptor says " + std::to_string(dv.cardinality));
    }
    std::optional<uint64_t> max = bitmap->Max();
    if (max && *max >= static_cast<uint64_t>(rows)) {
      Problem(add, "deletion vector deletes row " + std::to_string(*max) + " of a file with " +
                       std::to_string(rows) + " rows");
    }
  }

  void Problem(const Add& add, std::string message) {
    report_->problems.push_back({add.path, std::move(message)});
  }

  const io::FileSystem& fs_;
  const Snapshot& snapshot_;
  CheckReport* report_;
  std::vector<std::string> partition_keys_;
};

}  // namespace

Result<CheckReport> CheckTable(const io::FileSystem& fs, const std::string& table_root) {
  CDCLAKE_ASSIGN_OR_RETURN(auto snapshot, Snapshot::Load(fs, table_root));
  CheckReport report;
  report.version = snapshot->version();
  FileChecker checker(fs, *snapshot, &report);
  for (const Add& add : snapshot->files()) checker.Check(add);
  return report;
}

}  // namespace cdclake::delta
