// SqlServerCdcReader: reads the export with ChangeFileReader (the `__$` columns as text), then
// turns each batch's metadata cells into `_op`, `_seq`, `_source_table` and unchanged marks.
#include "sources/sqlserver/sqlserver_cdc_reader.h"

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include "sources/sqlserver/cdc_field_parsing_internal.h"

namespace cdclake::sources {

namespace {

using data::Column;
using data::DataType;
using data::Field;
using data::TypePtr;
using internal::IsUpdateMaskBitSet;
using internal::NormalizeLsn;
using internal::ParseCommandId;
using internal::ParseOperation;
using internal::ParseUpdateMask;

constexpr std::string_view kMetaPrefix = "__$";
constexpr std::string_view kStartLsn = "__$start_lsn";
constexpr std::string_view kEndLsn = "__$end_lsn";
constexpr std::string_view kSeqval = "__$seqval";
constexpr std::string_view kOperation = "__$operation";
constexpr std::string_view kUpdateMask = "__$update_mask";
constexpr std::string_view kCommandId = "__$command_id";
constexpr std::string_view kSourceTable = "__$source_table";
constexpr std::string_view kMetaColumns[] = {kStartLsn,   kEndLsn,    kSeqval,     kOperation,
                                             kUpdateMask, kCommandId, kSourceTable};

constexpr int kOpDelete = 1;
constexpr int kOpInsert = 2;
constexpr int kOpBeforeImage = 3;
constexpr int kOpAfterImage = 4;

char ToLowerAscii(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool EqualsIgnoreAsciiCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (ToLowerAscii(a[i]) != ToLowerAscii(b[i])) return false;
  }
  return true;
}

bool IsMetaColumn(std::string_view name) {
  return name.substr(0, kMetaPrefix.size()) == kMetaPrefix;
}

const TypePtr& SequenceType() {
  static const TypePtr type = DataType::Struct({{"start_lsn", DataType::String(), true},
                                                {"command_id", DataType::Int64(), true},
                                                {"seqval", DataType::String(), true},
                                                {"operation", DataType::Int32(), true}});
  return type;
}

// The schema ChangeFileReader reads with: the caller's types for captured columns, STRING for
// every known `__$` column (LSNs and masks keep their text; codes are parsed here).
data::Schema ReadSchema(const std::optional<data::Schema>& schema) {
  std::vector<Field> fields;
  if (schema.has_value()) {
    for (const Field& field : schema->fields()) {
      if (!IsMetaColumn(field.name)) fields.push_back(field);
    }
  }
  for (std::string_view name : kMetaColumns) {
    fields.push_back(Field{std::string(name), DataType::String(), true});
  }
  return data::Schema(std::move(fields));
}

// Where the columns of the inner reader's batches go.
struct ColumnMap {
  int start_lsn = -1;
  int seqval = -1;
  int operation = -1;
  int update_mask = -1;
  int command_id = -1;
  int source_table = -1;
  std::vector<int> captured;  // inner indices, in export order (ordinal = position + 1)
};

// One decoded row waiting to be copied into the output batch.
struct DecodedRow {
  int64_t row = 0;  // in the inner batch
  int operation = 0;
  std::string start_lsn;
  std::string seqval;
  int64_t command_id = 0;
  bool has_mask = false;
  std::vector<uint8_t> mask;
};

class SqlServerCdcReaderImpl final : public SqlServerCdcReader {
 public:
  SqlServerCdcReaderImpl(std::unique_ptr<ChangeFileReader> reader, ColumnMap map,
                         data::Schema schema)
      : reader_(std::move(reader)), map_(std::move(map)), schema_(std::move(schema)) {}

  Result<std::optional<change::ChangeBatch>> Next() override {
    for (;;) {
      CDCLAKE_ASSIGN_OR_RETURN(std::optional<change::ChangeBatch> in, reader_->Next());
      if (!in.has_value()) return std::optional<change::ChangeBatch>();
      change::ChangeBatch out = Decode(std::move(*in));
      if (out.rows.num_rows() > 0 || !out.rejected.empty()) return std::optional(std::move(out));
    }
  }

  const SqlServerCdcCounts& counts() const override { return counts_; }
  std::optional<PendingRecord> Pending() const override { return reader_->Pending(); }
  std::optional<RecordSpan> UnterminatedLast() const override {
    return reader_->UnterminatedLast();
  }

 private:
  // Decodes row `r` of `in` into `*row`; false with `*reason` set when it does not decode.
  // Before images decode (to be counted) without their other cells being checked.
  bool DecodeRow(const data::RecordBatch& in, int64_t r, DecodedRow* row,
                 std::string* reason) const;
  change::ChangeBatch Decode(change::ChangeBatch in);

  std::unique_ptr<ChangeFileReader> reader_;
  ColumnMap map_;
  data::Schema schema_;  // of the output batches
  SqlServerCdcCounts counts_;
};

bool SqlServerCdcReaderImpl::DecodeRow(const data::RecordBatch& in, int64_t r, DecodedRow* row,
                                       std::string* reason) const {
  auto text = [&](int column) { return in.column(static_cast<size_t>(column)).StringAt(r); };
  auto is_null = [&](int column) { return in.column(static_cast<size_t>(column)).IsNull(r); };
  row->row = r;
  if (is_null(map_.operation)) {
    *reason = "__$operation is NULL";
    return false;
  }
  if (!ParseOperation(text(map_.operation), &row->operation)) {
    *reason = "unknown __$operation '" + std::string(text(map_.operation)) +
              "' (expected 1 delete, 2 insert, 3 or 4 update)";
    return false;
  }
  if (row->operation == kOpBeforeImage) return true;
  auto lsn = [&](int column, std::string_view name, std::string* out) {
    if (is_null(column)) {
      *reason = std::string(name) + " is NULL";
      return false;
    }
    if (!NormalizeLsn(text(column), out)) {
      *reason = std::string(name) + " '" + std::string(text(column)) +
                "' is not a binary(10) LSN (20 hex digits, optionally after 0x)";
      return false;
    }
    return true;
  };
  if (!lsn(map_.start_lsn, kStartLsn, &row->start_lsn)) return false;
  if (!lsn(map_.seqval, kSeqval, &row->seqval)) return false;
  row->command_id = 0;
  if (map_.command_id >= 0 && !is_null(map_.command_id) &&
      !ParseCommandId(text(map_.command_id), &row->command_id)) {
    *reason = "__$command_id '" + std::string(text(map_.command_id)) + "' is not an int";
    return false;
  }
  row->has_mask = map_.update_mask >= 0 && !is_null(map_.update_mask);
  if (row->has_mask && !ParseUpdateMask(text(map_.update_mask), &row->mask)) {
    *reason = "__$update_mask '" + std::string(text(map_.update_mask)) +
              "' is not a varbinary(128) mask (1 to 128 bytes of hex, optionally after 0x)";
    return false;
  }
  return true;
}

change::ChangeBatch SqlServerCdcReaderImpl::Decode(change::ChangeBatch in) {
  change::ChangeBatch out;
  out.rejected = std::move(in.rejected);
  out.text_source = in.text_source;
  std::vector<DecodedRow> rows;
  rows.reserve(static_cast<size_t>(in.rows.num_rows()));
  DecodedRow row;
  std::string reason;
  for (int64_t r = 0; r < in.rows.num_rows(); ++r) {
    size_t ri = static_cast<size_t>(r);
    if (!DecodeRow(in.rows, r, &row, &reason)) {
      out.rejected.push_back(change::RejectedRecord{
          change::RowTextOrJson(in, ri),
          ri < in.positions.size() ? in.positions[ri] : change::SourcePosition(), reason});
      continue;
    }
    if (row.operation == kOpBeforeImage) {
      ++counts_.before_images;
      continue;
    }
    rows.push_back(std::move(row));
    row = DecodedRow();
  }
  // Rejections of the file reader and of this decoding, in file order.
  std::stable_sort(out.rejected.begin(), out.rejected.end(),
                   [](const change::RejectedRecord& a, const change::RejectedRecord& b) {
                     return a.position.byte_offset < b.position.byte_offset;
                   });

  std::vector<int64_t> take;
  take.reserve(rows.size());
  for (const DecodedRow& d : rows) take.push_back(d.row);
  std::vector<Column> columns;
  columns.reserve(schema_.num_fields());
  for (int c : map_.captured) columns.push_back(in.rows.column(static_cast<size_t>(c)).Take(take));

  Column op(DataType::String());
  Column seq(SequenceType());
  op.Reserve(static_cast<int64_t>(rows.size()));
  seq.Reserve(static_cast<int64_t>(rows.size()));
  for (const DecodedRow& d : rows) {
    op.AppendBytes(d.operation == kOpDelete ? "d" : d.operation == kOpInsert ? "c" : "u");
    seq.mutable_child(0).AppendBytes(d.start_lsn);
    seq.mutable_child(1).Append<int64_t>(d.command_id);
    seq.mutable_child(2).AppendBytes(d.seqval);
    seq.mutable_child(3).Append<int32_t>(d.operation);
    seq.AppendStructSlot();
  }
  columns.push_back(std::move(op));
  columns.push_back(std::move(seq));
  if (map_.source_table >= 0) {
    columns.push_back(in.rows.column(static_cast<size_t>(map_.source_table)).Take(take));
  }

  // Update masks: a captured column whose bit is clear keeps the target's value.
  bool any_unchanged = false;
  for (size_t i = 0; i < rows.size(); ++i) {
    const DecodedRow& d = rows[i];
    if (d.operation != kOpAfterImage || !d.has_mask) continue;
    for (size_t c = 0; c < map_.captured.size(); ++c) {
      if (IsUpdateMaskBitSet(d.mask, static_cast<int64_t>(c) + 1)) continue;
      if (!any_unchanged) {
        out.unchanged.assign(schema_.num_fields(), std::vector<uint8_t>(rows.size(), 0));
        any_unchanged = true;
      }
      out.unchanged[c][i] = 1;
    }
  }

  out.rows = data::RecordBatch(schema_, std::move(columns));
  out.positions.reserve(rows.size());
  out.raw.reserve(rows.size());
  for (const DecodedRow& d : rows) {
    size_t ri = static_cast<size_t>(d.row);
    if (ri < in.positions.size()) {
      out.positions.AddFrom(in.positions, ri);
    } else {
      out.positions.push_back(change::SourcePosition());
    }
    out.raw.AddFrom(in.raw, ri);
  }
  return out;
}

}  // namespace

Result<std::unique_ptr<SqlServerCdcReader>> SqlServerCdcReader::Open(io::FileSystem& fs,
                                                                     std::string path,
                                                                     SqlServerCdcOptions options) {
  ChangeFileOptions file_options;
  file_options.format = options.format;
  file_options.schema = ReadSchema(options.schema);
  file_options.batch_rows = options.batch_rows;
  file_options.unterminated_last = options.unterminated_last;
  CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<ChangeFileReader> reader,
                           ChangeFileReader::Open(fs, path, std::move(file_options)));

  const data::Schema& in = reader->schema();
  ColumnMap map;
  std::vector<Field> fields;
  for (size_t c = 0; c < in.num_fields(); ++c) {
    const std::string& name = in.field(c).name;
    int index = static_cast<int>(c);
    if (!IsMetaColumn(name)) {
      map.captured.push_back(index);
      fields.push_back(Field{name, in.field(c).type, true});
      continue;
    }
    if (name == kStartLsn) map.start_lsn = index;
    if (name == kSeqval) map.seqval = index;
    if (name == kOperation) map.operation = index;
    if (name == kUpdateMask) map.update_mask = index;
    if (name == kCommandId) map.command_id = index;
    if (name == kSourceTable) map.source_table = index;
  }
  for (auto [index, name] : {std::pair{map.operation, kOperation},
                             std::pair{map.start_lsn, kStartLsn}, std::pair{map.seqval, kSeqval}}) {
    if (index < 0) {
      return Status::InvalidArgument(path + ": no " + std::string(name) +
                                     " column (not a SQL Server CDC change-table export)");
    }
  }
  std::vector<std::string_view> added = {"_op", "_seq"};
  if (map.source_table >= 0) added.push_back("_source_table");
  for (const Field& field : fields) {
    for (std::string_view name : added) {
      if (EqualsIgnoreAsciiCase(field.name, name)) {
        return Status::InvalidArgument(path + ": captured column '" + field.name +
                                       "' collides with the column '" + std::string(name) +
                                       "' the reader adds");
      }
    }
  }
  fields.push_back(Field{"_op", DataType::String(), true});
  fields.push_back(Field{"_seq", SequenceType(), true});
  if (map.source_table >= 0) fields.push_back(Field{"_source_table", DataType::String(), true});
  return std::unique_ptr<SqlServerCdcReader>(std::make_unique<SqlServerCdcReaderImpl>(
      std::move(reader), std::move(map), data::Schema(std::move(fields))));
}

}  // namespace cdclake::sources
