// `cdclake show` (a Parquet file or a Delta table) and `cdclake schema`.
#include <algorithm>
#include <iostream>
#include <memory>
#include <numeric>
#include <string>

#include "cli/commands.h"
#include "cli/table_output.h"

namespace cdclake::cli {

namespace {

struct ShowArgs {
  std::string path;
  std::string format = "table";
  int64_t limit = -1;
  std::optional<int64_t> version;
  std::string timestamp;
  std::string columns;
  std::string order_by;
};

// Sorts the rows of `batch` by the named columns.
Result<data::RecordBatch> OrderBy(const data::RecordBatch& batch,
                                  const std::vector<std::string>& keys) {
  std::vector<int> cols;
  for (const std::string& k : keys) {
    int i = batch.schema().FieldIndex(k);
    if (i < 0) return Status::InvalidArgument("--order-by: no column named '" + k + "'");
    cols.push_back(i);
  }
  std::vector<std::vector<data::Value>> values(cols.size());
  for (size_t c = 0; c < cols.size(); ++c) {
    for (int64_t r = 0; r < batch.num_rows(); ++r)
      values[c].push_back(batch.column(cols[c]).GetValue(r));
  }
  std::vector<int64_t> order(static_cast<size_t>(batch.num_rows()));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    for (size_t c = 0; c < cols.size(); ++c) {
      int cmp =
          data::CompareForSort(values[c][a], values[c][b], *batch.schema().field(cols[c]).type);
      if (cmp != 0) return cmp < 0;
    }
    return false;
  });
  std::vector<data::Column> columns;
  for (const data::Column& c : batch.columns()) columns.push_back(c.Take(order));
  data::RecordBatch out(batch.schema(), std::move(columns));
  out.set_num_rows(batch.num_rows());
  return out;
}

}  // namespace

Result<std::shared_ptr<const delta::Snapshot>> OpenSnapshot(const std::string& path,
                                                            std::optional<int64_t> version,
                                                            const std::string& timestamp) {
  const auto& fs = *io::LocalFileSystem::Instance();
  if (!timestamp.empty()) {
    if (version) return Status::InvalidArgument("give --version or --timestamp, not both");
    CDCLAKE_ASSIGN_OR_RETURN(data::Value ts,
                             delta::ParsePartitionValue(timestamp, *data::DataType::Timestamp()));
    if (ts.is_null()) return Status::InvalidArgument("--timestamp: empty");
    return delta::Snapshot::LoadAsOf(fs, path, ts.int_value() / 1000);
  }
  return delta::Snapshot::Load(fs, path, version);
}

bool IsDeltaTable(const std::string& path) {
  auto exists = io::LocalFileSystem::Instance()->Exists(io::JoinPath(path, "_delta_log"));
  return exists.ok() && *exists;
}

Action AddShowCommand(CLI::App& app) {
  auto args = std::make_shared<ShowArgs>();
  CLI::App* cmd = app.add_subcommand("show", "Print the rows of a Delta table or a Parquet file");
  cmd->add_option("path", args->path, "a table folder or a .parquet file")->required();
  cmd->add_option("--format", args->format, "table, csv or jsonl")->capture_default_str();
  cmd->add_option("--limit", args->limit, "print at most N rows");
  cmd->add_option("--version", args->version, "a table's version (time travel)");
  cmd->add_option("--timestamp", args->timestamp,
                  "the table as of this time (YYYY-MM-DD HH:MM:SS[Z])");
  cmd->add_option("--columns", args->columns, "a,b: only these columns");
  cmd->add_option("--order-by", args->order_by, "a,b: sort the rows (default: table order)");
  return [args]() -> int {
    auto format = ParseOutputFormat(args->format);
    if (!format.ok()) return Fail(format.status());
    data::RecordBatch batch;
    // Columns to sort by are read too, and dropped after sorting when not asked for.
    std::vector<std::string> shown = SplitList(args->columns);
    std::vector<std::string> read_columns = shown;
    if (!shown.empty()) {
      for (const std::string& k : SplitList(args->order_by)) {
        if (std::find(read_columns.begin(), read_columns.end(), k) == read_columns.end()) {
          read_columns.push_back(k);
        }
      }
    }
    if (IsDeltaTable(args->path)) {
      auto snapshot = OpenSnapshot(args->path, args->version, args->timestamp);
      if (!snapshot.ok()) return Fail(snapshot.status());
      delta::ScanOptions options;
      options.columns = read_columns;
      auto read = delta::ReadTable(*io::LocalFileSystem::Instance(), **snapshot, options);
      if (!read.ok()) return Fail(read.status());
      batch = std::move(read).value();
    } else {
      if (args->version || !args->timestamp.empty()) {
        return Fail(Status::InvalidArgument(
            args->path + " is not a Delta table: --version and --timestamp need one"));
      }
      auto reader = parquet::FileReader::Open(*io::LocalFileSystem::Instance(), args->path);
      if (!reader.ok()) return Fail(reader.status());
      parquet::ReadOptions options;
      options.columns = read_columns;
      auto read = (*reader)->ReadAll(options);
      if (!read.ok()) return Fail(read.status());
      batch = std::move(read).value();
    }
    if (!args->order_by.empty()) {
      auto sorted = OrderBy(batch, SplitList(args->order_by));
      if (!sorted.ok()) return Fail(sorted.status());
      batch = std::move(sorted).value();
    }
    if (read_columns.size() > shown.size()) {
      std::vector<data::Field> fields;
      std::vector<data::Column> columns;
      for (size_t i = 0; i < shown.size(); ++i) {
        fields.push_back(batch.schema().field(i));
        columns.push_back(batch.column(i));
      }
      const int64_t n = batch.num_rows();
      batch = data::RecordBatch(data::Schema(std::move(fields)), std::move(columns));
      batch.set_num_rows(n);
    }
    PrintBatch(batch, *format, args->limit, std::cout);
    return 0;
  };
}

Action AddSchemaCommand(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  CLI::App* cmd =
      app.add_subcommand("schema", "Print the schema of a Delta table or a Parquet file");
  cmd->add_option("path", *path, "a table folder or a .parquet file")->required();
  return [path]() -> int {
    if (IsDeltaTable(*path)) {
      auto snapshot = delta::Snapshot::Load(*io::LocalFileSystem::Instance(), *path);
      if (!snapshot.ok()) return Fail(snapshot.status());
      std::cout << (*snapshot)->schema().ToString();
      return 0;
    }
    auto reader = parquet::FileReader::Open(*io::LocalFileSystem::Instance(), *path);
    if (!reader.ok()) return Fail(reader.status());
    std::cout << (*reader)->schema().ToString();
    return 0;
  };
}

}  // namespace cdclake::cli
