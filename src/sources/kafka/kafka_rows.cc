// KafkaRows: read_kafka's columns, and Debezium values decoded through the Debezium reader
// (one value per line of an in-memory file, so both sources decode alike).
#include "sources/kafka/kafka_rows.h"

#include <algorithm>
#include <utility>

#include "io/memory_file_system.h"
#include "sources/change_source.h"

namespace cdclake::sources::kafka {

namespace {

using data::Column;
using data::DataType;
using data::Field;

change::SourcePosition PositionOf(const KafkaRecord& r) {
  change::SourcePosition p;
  p.file = PartitionName(r);
  p.byte_offset = r.offset;
  p.byte_end = r.offset + 1;
  return p;
}

void AppendOptionalBytes(Column& column, const std::optional<std::string>& bytes) {
  if (bytes) {
    column.AppendBytes(*bytes);
  } else {
    column.AppendNull();
  }
}

void AppendTimestamp(Column& column, int64_t ms) {
  if (ms < 0) {
    column.AppendNull();
  } else {
    column.Append<int64_t>(ms * 1000);
  }
}

// A value as one line of the in-memory file: JSON holds a line break only as white space
// outside strings (inside, it must be escaped), so a space in its place means the same.
void AppendAsLine(const std::string& value, std::string* out) {
  size_t at = out->size();
  out->append(value);
  std::replace_if(
      out->begin() + static_cast<std::ptrdiff_t>(at), out->end(),
      [](char c) { return c == '\n' || c == '\r'; }, ' ');
  out->push_back('\n');
}

}  // namespace

std::string PartitionName(const KafkaRecord& record) {
  return record.topic + "/" + std::to_string(record.partition);
}

data::Schema RawSchema() {
  auto header = DataType::Struct({{"key", DataType::String()}, {"value", DataType::Binary()}});
  return data::Schema({{"key", DataType::Binary()},
                       {"value", DataType::Binary()},
                       {"topic", DataType::String()},
                       {"partition", DataType::Int32()},
                       {"offset", DataType::Int64()},
                       {"timestamp", DataType::Timestamp()},
                       {"timestampType", DataType::Int32()},
                       {"headers", DataType::List(header)}});
}

change::ChangeBatch RawRows(const std::vector<KafkaRecord>& records) {
  data::Schema schema = RawSchema();
  std::vector<Column> columns;
  for (const Field& f : schema.fields()) columns.emplace_back(f.type);
  change::ChangeBatch batch;
  for (const KafkaRecord& r : records) {
    AppendOptionalBytes(columns[0], r.key);
    AppendOptionalBytes(columns[1], r.value);
    columns[2].AppendBytes(r.topic);
    columns[3].Append<int32_t>(r.partition);
    columns[4].Append<int64_t>(r.offset);
    AppendTimestamp(columns[5], r.timestamp_ms);
    columns[6].Append<int32_t>(r.timestamp_type);
    Column& entries = columns[7].mutable_child(0);
    for (const auto& [name, value] : r.headers) {
      entries.mutable_child(0).AppendBytes(name);
      AppendOptionalBytes(entries.mutable_child(1), value);
      entries.AppendStructSlot();
    }
    columns[7].AppendListSlot(static_cast<int64_t>(r.headers.size()));
    batch.positions.push_back(PositionOf(r));
    batch.raw.emplace_back();
  }
  batch.rows = data::RecordBatch(std::move(schema), std::move(columns));
  return batch;
}

const std::vector<std::string>& KafkaColumns() {
  static const std::vector<std::string> names = {"_kafka_topic", "_kafka_partition",
                                                 "_kafka_offset", "_kafka_timestamp"};
  return names;
}

Result<std::vector<DebeziumPiece>> DebeziumRows(const std::vector<KafkaRecord>& records,
                                                const std::optional<data::Schema>& schema,
                                                std::map<std::string, int64_t>* counts) {
  // Values as lines of one file; line i + 1 is records[line_record[i]].
  std::string text;
  std::vector<size_t> line_record;
  int64_t tombstones = 0;
  for (size_t i = 0; i < records.size(); ++i) {
    const std::optional<std::string>& value = records[i].value;
    if (!value || value->empty()) {
      ++tombstones;
      continue;
    }
    AppendAsLine(*value, &text);
    line_record.push_back(i);
  }
  (*counts)["Kafka tombstones skipped"] += tombstones;
  std::vector<DebeziumPiece> pieces;
  if (!line_record.empty()) {
    io::MemoryFileSystem fs;
    const std::string path = "/kafka/values.json";
    CDCLAKE_RETURN_IF_ERROR(fs.WriteFile(path, text));
    ChangeSourceOptions options;
    options.schema = schema;
    options.keep_row_text = false;  // also: no row refers to `fs`, which ends here, for its text
    options.batch_rows = static_cast<int64_t>(line_record.size()) + 1;
    CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<ChangeSource> source,
                             OpenChangeSource(fs, path, SourceFormat::kDebezium, options));
    auto record_of = [&](int64_t line) -> const KafkaRecord& {
      return records[line_record[static_cast<size_t>(line - 1)]];
    };
    for (;;) {
      CDCLAKE_ASSIGN_OR_RETURN(std::optional<change::ChangeBatch> batch, source->Next());
      if (!batch) break;
      DebeziumPiece piece;
      size_t last_line = 0;
      for (size_t i = 0; i < batch->positions.size(); ++i) {
        last_line = std::max(last_line, static_cast<size_t>(batch->positions.line(i)));
      }
      for (const change::RejectedRecord& r : batch->rejected) {
        last_line = std::max(last_line, static_cast<size_t>(r.position.line));
      }
      piece.end = last_line == 0 ? 0 : line_record[last_line - 1] + 1;
      if (batch->rows.num_rows() == 0) {
        // Only rejected records: no row settles the columns' types (a sequence the reader
        // could not see would be typed anew), so the batch has no columns.
        batch->rows = data::RecordBatch();
        batch->unchanged.clear();
      }
      // Where each row came from: its topic, partition and offset.
      data::Schema fields = batch->rows.schema();
      std::vector<Column> columns = batch->rows.ReleaseColumns();
      const bool no_rows = batch->positions.empty();
      Column topic(DataType::String()), partition(DataType::Int32()), offset(DataType::Int64()),
          timestamp(DataType::Timestamp());
      for (size_t i = 0; i < batch->positions.size(); ++i) {
        const KafkaRecord& r = record_of(batch->positions.line(i));
        topic.AppendBytes(r.topic);
        partition.Append<int32_t>(r.partition);
        offset.Append<int64_t>(r.offset);
        AppendTimestamp(timestamp, r.timestamp_ms);
        batch->positions.Set(i, PositionOf(r));
      }
      std::vector<Field> all = fields.fields();
      const auto& names = KafkaColumns();
      all.push_back({names[0], DataType::String()});
      all.push_back({names[1], DataType::Int32()});
      all.push_back({names[2], DataType::Int64()});
      all.push_back({names[3], DataType::Timestamp()});
      columns.push_back(std::move(topic));
      columns.push_back(std::move(partition));
      columns.push_back(std::move(offset));
      columns.push_back(std::move(timestamp));
      if (!no_rows) {
        batch->rows = data::RecordBatch(data::Schema(std::move(all)), std::move(columns));
      }
      if (!batch->unchanged.empty()) {
        batch->unchanged.resize(batch->rows.num_columns(),
                                std::vector<uint8_t>(batch->positions.size(), 0));
      }
      for (change::RejectedRecord& r : batch->rejected) {
        const KafkaRecord& record = record_of(r.position.line);
        r.reason = "topic '" + record.topic + "' partition " + std::to_string(record.partition) +
                   " offset " + std::to_string(record.offset) + ": " + r.reason;
        r.position = PositionOf(record);
      }
      piece.rows = std::move(*batch);
      pieces.push_back(std::move(piece));
    }
    for (const SourceCount& c : source->Counts()) {
      if (c.label != "Kafka tombstones skipped") (*counts)[c.label] += c.value;
    }
  }
  // The last piece covers every record (tombstones after the last row included).
  if (pieces.empty()) pieces.emplace_back();
  pieces.back().end = records.size();
  return pieces;
}

}  // namespace cdclake::sources::kafka
