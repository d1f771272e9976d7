// `cdclake history TABLE` and `cdclake describe TABLE`.
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "cli/table_output.h"

namespace cdclake::cli {

namespace {

struct HistoryArgs {
  std::string path;
  std::string format = "table";
  int64_t limit = -1;
};

std::string JsonField(const json::Json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return "";
  return it->is_string() ? it->get<std::string>() : json::Dump(*it);
}

}  // namespace

Action AddHistoryCommand(CLI::App& app) {
  auto args = std::make_shared<HistoryArgs>();
  CLI::App* cmd = app.add_subcommand("history", "List a Delta table's versions, newest first");
  cmd->add_option("path", args->path, "the table folder")->required();
  cmd->add_option("--format", args->format, "table, csv or jsonl")->capture_default_str();
  cmd->add_option("--limit", args->limit, "at most N versions");
  return [args]() -> int {
    auto format = ParseOutputFormat(args->format);
    if (!format.ok()) return Fail(format.status());
    const auto& fs = *io::LocalFileSystem::Instance();
    auto commits = delta::ListCommits(fs, args->path);
    if (!commits.ok()) return Fail(commits.status());
    data::Schema schema({{"version", data::DataType::Int64(), false},
                         {"timestamp", data::DataType::Timestamp()},
                         {"operation", data::DataType::String()},
                         {"parameters", data::DataType::String()},
                         {"metrics", data::DataType::String()},
                         {"engine", data::DataType::String()}});
    data::RecordBatch batch(schema);
    for (auto it = commits->rbegin(); it != commits->rend(); ++it) {
      auto content = fs.ReadFile(it->path);
      if (!content.ok()) return Fail(content.status());
      auto actions = delta::ParseActions(*content);
      if (!actions.ok()) return Fail(actions.status().WithContext(it->path));
      int64_t ts = it->modification_time_ms;
      std::string op, params, metrics, engine;
      for (const delta::Action& a : *actions) {
        if (const auto* ci = std::get_if<delta::CommitInfo>(&a)) {
          ts = ci->in_commit_timestamp.value_or(ci->timestamp.value_or(ts));
          op = ci->operation.value_or("");
          params = JsonField(ci->value, "operationParameters");
          metrics = JsonField(ci->value, "operationMetrics");
          engine = JsonField(ci->value, "engineInfo");
        }
      }
      batch.AppendRow({data::Value::Int(it->version), data::Value::Int(ts * 1000),
                       data::Value::Bytes(op), data::Value::Bytes(params),
                       data::Value::Bytes(metrics), data::Value::Bytes(engine)});
    }
    PrintBatch(batch, *format, args->limit, std::cout);
    return 0;
  };
}

Action AddDescribeCommand(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("describe",
                                     "Describe a Delta table: schema, partitioning, properties, "
                                     "protocol, files, rows, bytes");
  cmd->add_option("path", *path, "the table folder")->required();
  return [path]() -> int {
    auto snapshot_or = delta::Snapshot::Load(*io::LocalFileSystem::Instance(), *path);
    if (!snapshot_or.ok()) return Fail(snapshot_or.status());
    const delta::Snapshot& s = **snapshot_or;
    std::cout << "table: " << *path << "\n";
    std::cout << "version: " << s.version() << "\n";
    std::cout << "id: " << s.metadata().id << "\n";
    if (s.metadata().name) std::cout << "name: " << *s.metadata().name << "\n";
    std::cout << "schema:\n";
    for (const data::Field& f : s.schema().fields()) {
      std::cout << "  " << f.name << " " << f.type->ToString() << (f.nullable ? "" : " not null")
                << "\n";
    }
    std::cout << "partition columns:";
    for (const std::string& p : s.metadata().partition_columns) std::cout << " " << p;
    std::cout << "\nproperties:\n";
    for (const auto& [k, v] : s.metadata().configuration)
      std::cout << "  " << k << " = " << v << "\n";
    const delta::Protocol& p = s.protocol();
    std::cout << "protocol: reader " << p.min_reader_version << ", writer " << p.min_writer_version
              << "\n";
    auto features = [](const std::optional<std::vector<std::string>>& list) {
      std::string out;
      for (const std::string& f : list.value_or(std::vector<std::string>{}))
        out += (out.empty() ? "" : ", ") + f;
      return out.empty() ? std::string("(none)") : out;
    };
    std::cout << "reader features: " << features(p.reader_features) << "\n";
    std::cout << "writer features: " << features(p.writer_features) << "\n";
    int64_t bytes = 0, deleted = 0;
    for (const delta::Add& a : s.files()) {
      bytes += a.size;
      if (a.deletion_vector) deleted += a.deletion_vector->cardinality;
    }
    std::cout << "files: " << s.files().size() << "\n";
    int64_t rows = s.num_records();
    std::cout << "rows: "
              << (rows < 0 ? std::string("unknown (files without statistics)")
                           : std::to_string(rows))
              << "\n";
    std::cout << "deleted rows (deletion vectors): " << deleted << "\n";
    std::cout << "bytes: " << bytes << "\n";
    return 0;
  };
}

}  // namespace cdclake::cli
