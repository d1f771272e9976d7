// Event log appends: one Delta commit per call, the table created on first use.
#include "pipeline/event_log.h"

#include "delta/log_segment.h"
#include "delta/metadata_change.h"
#include "delta/snapshot.h"
#include "delta/table_writer.h"

namespace cdclake::pipeline {

data::Schema EventLogSchema() {
  using data::DataType;
  std::vector<data::Field> fields = {
      {"event_time", DataType::Timestamp(), false}, {"run_id", DataType::String(), false},
      {"flow", DataType::String(), false},          {"target", DataType::String(), false},
      {"input_from", DataType::String(), true},     {"input_to", DataType::String(), true}};
  for (const char* count : {"rows_read", "rows_applied", "rows_discarded", "rows_quarantined",
                            "rows_inserted", "rows_updated", "rows_deleted"}) {
    fields.push_back({count, DataType::Int64(), false});
  }
  fields.push_back({"table_version", DataType::Int64(), true});
  fields.push_back({"duration_ms", DataType::Int64(), false});
  fields.push_back({"status", DataType::String(), false});
  fields.push_back({"message", DataType::String(), true});
  fields.push_back({"table_id", DataType::String(), true});
  fields.push_back({"input_table_id", DataType::String(), true});
  fields.push_back({"source_lag", DataType::String(), true});
  fields.push_back({"data_quality", DataType::String(), true});
  fields.push_back({"event_type", DataType::String(), true});
  fields.push_back({"details", DataType::String(), true});
  return data::Schema(std::move(fields));
}

Result<std::optional<int64_t>> AppendEventLog(io::FileSystem& fs, const std::string& table_root,
                                              const std::vector<EventLogEntry>& entries) {
  if (entries.empty()) return std::optional<int64_t>();
  CDCLAKE_ASSIGN_OR_RETURN(bool exists, delta::TableExists(fs, table_root));
  if (!exists) {
    delta::TableSpec spec;
    spec.schema = EventLogSchema();
    auto created = delta::CreateTable(fs, table_root, spec);
    // Another run may have created it first.
    if (!created.ok() && created.status().code() != StatusCode::kAlreadyExists) {
      return created.status();
    }
  } else {
    // A log written before the lineage or lag columns: they are added (NULL in older rows).
    CDCLAKE_ASSIGN_OR_RETURN(auto snapshot, delta::Snapshot::Load(fs, table_root));
    if (snapshot->schema().num_fields() < EventLogSchema().num_fields()) {
      CDCLAKE_RETURN_IF_ERROR(delta::EvolveSchema(fs, table_root, EventLogSchema()).status());
    }
  }
  using data::Value;
  data::RecordBatch rows(EventLogSchema());
  for (const EventLogEntry& e : entries) {
    auto text_or_null = [](const std::string& s) {
      return s.empty() ? Value::Null() : Value::Bytes(s);
    };
    rows.AppendRow({Value::Int(e.time_ms * 1000),
                    Value::Bytes(e.run_id),
                    Value::Bytes(e.flow),
                    Value::Bytes(e.target),
                    text_or_null(e.input_from),
                    text_or_null(e.input_to),
                    Value::Int(e.rows_read),
                    Value::Int(e.rows_applied),
                    Value::Int(e.rows_discarded),
                    Value::Int(e.rows_quarantined),
                    Value::Int(e.rows_inserted),
                    Value::Int(e.rows_updated),
                    Value::Int(e.rows_deleted),
                    e.table_version ? Value::Int(*e.table_version) : Value::Null(),
                    Value::Int(e.duration_ms),
                    Value::Bytes(e.status),
                    text_or_null(e.message),
                    text_or_null(e.table_id),
                    text_or_null(e.input_table_id),
                    text_or_null(e.source_lag),
                    text_or_null(e.data_quality),
                    text_or_null(e.event_type),
                    text_or_null(e.details)});
  }
  CDCLAKE_ASSIGN_OR_RETURN(int64_t version, delta::AppendRows(fs, table_root, rows));
  return std::optional<int64_t>(version);
}

}  // namespace cdclake::pipeline
