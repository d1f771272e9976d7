// Quarantine table writes: one append commit per batch of rejected records.
#include "apply/quarantine.h"
#include "apply/flow_domain.h"

#include "delta/log_segment.h"
#include "delta/snapshot.h"
#include "delta/table_scan.h"
#include "delta/table_writer.h"
#include "delta/transaction.h"

namespace cdclake::apply {

data::Schema QuarantineSchema() {
  using data::DataType;
  return data::Schema({{"raw", DataType::String(), true},
                       {"reason", DataType::String(), false},
                       {"source_file", DataType::String(), true},
                       {"source_line", DataType::Int64(), true},
                       {"source_offset", DataType::Int64(), true},
                       {"flow", DataType::String(), true},
                       {"quarantined_at", DataType::Timestamp(), false}});
}

Result<std::optional<int64_t>> WriteQuarantine(io::FileSystem& fs, const std::string& table_root,
                                               const std::string& flow,
                                               const std::vector<change::RejectedRecord>& records,
                                               int64_t now_ms,
                                               const json::Json& operation_parameters) {
  if (records.empty()) return std::optional<int64_t>();
  CDCLAKE_ASSIGN_OR_RETURN(bool exists, delta::TableExists(fs, table_root));
  if (!exists) {
    delta::TableSpec spec;
    spec.schema = QuarantineSchema();
    auto created = delta::CreateTable(fs, table_root, spec);
    if (!created.ok() && created.status().code() != StatusCode::kAlreadyExists) {
      return created.status();
    }
  }
  data::RecordBatch rows(QuarantineSchema());
  for (const auto& r : records) {
    rows.AppendRow({data::Value::Bytes(r.raw), data::Value::Bytes(r.reason),
                    data::Value::Bytes(r.position.file), data::Value::Int(r.position.line),
                    data::Value::Int(r.position.byte_offset), data::Value::Bytes(flow),
                    data::Value::Int(now_ms * 1000)});
  }
  CDCLAKE_ASSIGN_OR_RETURN(auto snapshot, delta::Snapshot::Load(fs, table_root));
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<delta::Add> adds,
                           delta::WriteDataFiles(fs, *snapshot, rows));
  delta::Transaction txn(fs, table_root, snapshot);
  for (delta::Add& a : adds) txn.Add(std::move(a));
  delta::CommitOptions commit;
  commit.operation = "WRITE";
  commit.operation_parameters =
      operation_parameters.is_object() ? operation_parameters : json::Json::object();
  commit.operation_parameters["mode"] = "Append";
  if (auto domain = FlowDomain(commit.operation_parameters)) txn.Add(std::move(*domain));
  commit.operation_metrics = {{"numOutputRows", std::to_string(rows.num_rows())}};
  CDCLAKE_ASSIGN_OR_RETURN(int64_t version, txn.Commit(commit));
  return std::optional<int64_t>(version);
}

std::string QuarantineIdentity(const change::RejectedRecord& record) {
  std::string id = record.position.file;
  id += '\0';
  id += std::to_string(record.position.byte_offset);
  id += '\0';
  id += record.reason;
  id += '\0';
  id += record.raw;
  return id;
}

Result<std::set<std::string>> QuarantinedIdentities(const io::FileSystem& fs,
                                                    const std::string& table_root,
                                                    const std::string& flow) {
  std::set<std::string> out;
  CDCLAKE_ASSIGN_OR_RETURN(bool exists, delta::TableExists(fs, table_root));
  if (!exists) return out;
  CDCLAKE_ASSIGN_OR_RETURN(auto snapshot, delta::Snapshot::Load(fs, table_root));
  delta::ScanOptions scan;
  scan.columns = {"raw", "reason", "source_file", "source_offset", "flow"};
  CDCLAKE_ASSIGN_OR_RETURN(data::RecordBatch rows, delta::ReadTable(fs, *snapshot, scan));
  for (int64_t r = 0; r < rows.num_rows(); ++r) {
    if (rows.column(4).IsNull(r) || rows.column(4).StringAt(r) != flow) continue;
    change::RejectedRecord record;
    if (!rows.column(0).IsNull(r)) record.raw = std::string(rows.column(0).StringAt(r));
    record.reason = std::string(rows.column(1).StringAt(r));
    if (!rows.column(2).IsNull(r)) record.position.file = std::string(rows.column(2).StringAt(r));
    if (!rows.column(3).IsNull(r)) record.position.byte_offset = rows.column(3).ValueAt<int64_t>(r);
    out.insert(QuarantineIdentity(record));
  }
  return out;
}

bool SortsBefore(const change::SourcePosition& a, const change::SourcePosition& b) {
  if (int c = a.file.compare(b.file); c != 0) return c < 0;
  return a.byte_offset < b.byte_offset;
}

}  // namespace cdclake::apply
