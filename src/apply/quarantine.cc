// Quarantine table writes: one append commit per batch of rejected records.
#include "apply/quarantine.h"

#include "delta/log_segment.h"
#include "delta/snapshot.h"
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
                                               int64_t now_ms) {
  if (records.empty()) return std::optional<int64_t>();
  CDCLAKE_ASSIGN_OR_RETURN(bool exists, fs.Exists(delta::LogDir(table_root)));
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
  CDCLAKE_ASSIGN_OR_RETURN(int64_t version, delta::AppendRows(fs, table_root, rows));
  return std::optional<int64_t>(version);
}

}  // namespace cdclake::apply
