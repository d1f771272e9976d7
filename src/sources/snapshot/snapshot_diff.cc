// SnapshotDiff: encodes each snapshot row as (ordered key, ordered rest), sorts them with
// SortedRunBuilder and merges the sorted stream with the previous state file.
#include "sources/snapshot/snapshot_diff.h"

#include <algorithm>

#include "change/ordered_encoding.h"
#include "data/value_format.h"
#include "json/json.h"
#include "sources/snapshot/record_file_reader.h"
#include "sources/snapshot/record_file_writer.h"
#include "sources/snapshot/sorted_run_builder.h"
#include "sql/schema_ddl.h"

namespace cdclake::sources::snapshot {

namespace {

using data::DataType;
using data::TypeId;
using data::TypePtr;

constexpr int kStateFormat = 1;

// Keys are encoded as a type every width of their kind shares, so a key read as INT one day
// and BIGINT the next still sorts and matches the same.
TypePtr KeyEncodingType(const TypePtr& type) {
  if (data::IntegerRank(type->id()) > 0) return DataType::Int64();
  if (type->id() == TypeId::kFloat) return DataType::Double();
  return type;
}

std::string StateHeader(const SnapshotStateInfo& info) {
  json::Json columns = json::Json::array();
  for (const data::Field& f : info.columns.fields()) {
    columns.push_back({{"name", f.name}, {"type", f.type->ToString()}});
  }
  json::Json header = {{"format", kStateFormat},
                       {"snapshotVersion", info.version_text},
                       {"keys", info.keys},
                       {"columns", columns}};
  return json::Dump(header);
}

Result<SnapshotStateInfo> ParseStateHeader(const std::string& path, const std::string& text) {
  auto bad = [&](const std::string& why) {
    return Status::Corrupt(path + ": not a snapshot state file (" + why + ")");
  };
  auto parsed = json::Parse(text);
  if (!parsed.ok()) return bad(parsed.status().message());
  const json::Json& h = *parsed;
  if (!h.is_object() || !h.contains("format") || !h["format"].is_number_integer()) {
    return bad("no format");
  }
  if (h["format"].get<int>() != kStateFormat) {
    return bad("format " + std::to_string(h["format"].get<int>()) + ", this build reads " +
               std::to_string(kStateFormat));
  }
  SnapshotStateInfo info;
  CDCLAKE_ASSIGN_OR_RETURN(info.version_text, json::GetString(h, "snapshotVersion"));
  if (!h.contains("keys") || !h["keys"].is_array() || !h.contains("columns") ||
      !h["columns"].is_array()) {
    return bad("no keys or columns");
  }
  for (const json::Json& k : h["keys"]) {
    if (!k.is_string()) return bad("a key is not a string");
    info.keys.push_back(k.get<std::string>());
  }
  std::vector<data::Field> fields;
  for (const json::Json& c : h["columns"]) {
    CDCLAKE_ASSIGN_OR_RETURN(std::string name, json::GetString(c, "name"));
    CDCLAKE_ASSIGN_OR_RETURN(std::string type_name, json::GetString(c, "type"));
    auto type = sql::ParseTypeName(type_name);
    if (!type.ok()) return bad("column " + name + ": " + type.status().message());
    fields.push_back({name, *type, true});
  }
  info.columns = data::Schema(std::move(fields));
  return info;
}

bool SameLayout(const data::Schema& a, const data::Schema& b) {
  if (a.num_fields() != b.num_fields()) return false;
  for (size_t i = 0; i < a.num_fields(); ++i) {
    if (a.field(i).name != b.field(i).name || !a.field(i).type->Equals(*b.field(i).type)) {
      return false;
    }
  }
  return true;
}

}  // namespace

Result<SnapshotStateInfo> ReadSnapshotStateInfo(const io::FileSystem& fs, const std::string& path) {
  CDCLAKE_ASSIGN_OR_RETURN(auto reader, RecordFileReader::Open(fs, path));
  return ParseStateHeader(path, reader->header());
}

class SnapshotDiff::Impl {
 public:
  Impl(io::FileSystem& fs, ChangeSource& source, SnapshotDiffOptions options)
      : fs_(fs),
        source_(source),
        options_(std::move(options)),
        builder_(fs, options_.spill_dir, options_.memory_budget_bytes) {}

  Status Read();
  Status OpenMerge();
  Result<std::optional<change::ChangeBatch>> Next();
  Status Finish();

  data::Schema batch_schema_;
  SnapshotDiffCounts counts_;

 private:
  Status SetColumns(const data::Schema& source_schema);
  Status AddBatch(const change::ChangeBatch& batch);
  std::string KeyText(std::string_view key) const;
  Status AdvanceNew();
  Status AdvanceOld();
  Status AppendChange(std::string_view key, std::string_view rest, bool is_delete, int64_t line);
  void StartBatch();

  io::FileSystem& fs_;
  ChangeSource& source_;
  SnapshotDiffOptions options_;
  SortedRunBuilder builder_;
  bool have_columns_ = false;
  data::Schema source_schema_;      // the first batch's
  std::vector<int> kept_;           // source column of each kept column
  data::Schema columns_;            // the kept columns
  std::vector<int> key_columns_;    // index into columns_ of each key
  std::vector<int> rest_columns_;   // index into columns_ of each non-key column
  std::vector<TypePtr> key_types_;  // encoding types of the keys
  std::string key_buf_, rest_buf_;

  std::unique_ptr<RecordStream> new_;
  std::unique_ptr<RecordFileReader> old_;
  std::unique_ptr<RecordFileWriter> state_;
  bool same_layout_ = false;
  Record new_rec_, old_rec_;
  bool new_valid_ = false, old_valid_ = false;
  std::string prev_key_;
  int64_t prev_line_ = 0;
  bool have_prev_ = false;
  bool done_ = false;
  std::optional<change::ChangeBatch> batch_;
};

Status SnapshotDiff::Impl::SetColumns(const data::Schema& source_schema) {
  source_schema_ = source_schema;
  std::vector<data::Field> fields;
  for (size_t i = 0; i < source_schema.num_fields(); ++i) {
    const data::Field& f = source_schema.field(i);
    const bool is_key =
        std::find(options_.keys.begin(), options_.keys.end(), f.name) != options_.keys.end();
    if (!is_key && options_.keep_column && !options_.keep_column(f.name)) continue;
    if (f.name == kVersionColumn || f.name == kOperationColumn) {
      return Status::InvalidArgument(source_.path() + ": column " + f.name +
                                     " is reserved for the snapshot diff");
    }
    kept_.push_back(static_cast<int>(i));
    fields.push_back({f.name, f.type, true});
  }
  columns_ = data::Schema(fields);
  for (const std::string& k : options_.keys) {
    const int at = columns_.FieldIndex(k);
    if (at < 0) {
      return Status::InvalidArgument(source_.path() + ": key column " + k +
                                     " is not in the snapshot");
    }
    key_columns_.push_back(at);
    key_types_.push_back(KeyEncodingType(columns_.field(at).type));
  }
  for (size_t i = 0; i < columns_.num_fields(); ++i) {
    if (std::find(key_columns_.begin(), key_columns_.end(), static_cast<int>(i)) ==
        key_columns_.end()) {
      rest_columns_.push_back(static_cast<int>(i));
    }
  }
  have_columns_ = true;
  return Status::OK();
}

Status SnapshotDiff::Impl::AddBatch(const change::ChangeBatch& batch) {
  if (!batch.rejected.empty()) {
    const change::RejectedRecord& r = batch.rejected.front();
    return Status::InvalidArgument(
        r.position.file + " line " + std::to_string(r.position.line) + ": " + r.reason +
        " (a snapshot must be read whole: a row left out would delete its key)");
  }
  if (!have_columns_) CDCLAKE_RETURN_IF_ERROR(SetColumns(batch.rows.schema()));
  if (!(batch.rows.schema() == source_schema_)) {
    return Status::InvalidArgument(source_.path() + ": the columns changed within the file");
  }
  const data::RecordBatch& rows = batch.rows;
  for (int64_t r = 0; r < rows.num_rows(); ++r) {
    const int64_t line = static_cast<size_t>(r) < batch.positions.size() ? batch.positions.line(r)
                                                                         : counts_.rows + 1;
    key_buf_.clear();
    rest_buf_.clear();
    for (size_t k = 0; k < key_columns_.size(); ++k) {
      const data::Column& col = rows.column(kept_[key_columns_[k]]);
      if (col.IsNull(r)) {
        return Status::InvalidArgument(source_.path() + " line " + std::to_string(line) +
                                       ": NULL in key column " + options_.keys[k]);
      }
      change::AppendOrderedCell(col, r, *key_types_[k], &key_buf_);
    }
    for (int c : rest_columns_) {
      const data::Column& col = rows.column(kept_[c]);
      change::AppendOrderedCell(col, r, *col.type(), &rest_buf_);
    }
    CDCLAKE_RETURN_IF_ERROR(builder_.Add(key_buf_, rest_buf_, line));
    ++counts_.rows;
  }
  return Status::OK();
}

Status SnapshotDiff::Impl::Read() {
  while (true) {
    CDCLAKE_ASSIGN_OR_RETURN(std::optional<change::ChangeBatch> batch, source_.Next());
    if (!batch) break;
    CDCLAKE_RETURN_IF_ERROR(AddBatch(*batch));
  }
  if (!have_columns_ && source_.schema() != nullptr) {
    CDCLAKE_RETURN_IF_ERROR(SetColumns(*source_.schema()));
  }
  return Status::OK();
}

Status SnapshotDiff::Impl::OpenMerge() {
  std::optional<SnapshotStateInfo> previous;
  if (!options_.previous_state.empty()) {
    CDCLAKE_ASSIGN_OR_RETURN(old_, RecordFileReader::Open(fs_, options_.previous_state));
    CDCLAKE_ASSIGN_OR_RETURN(previous, ParseStateHeader(options_.previous_state, old_->header()));
    if (previous->keys != options_.keys) {
      return Status::InvalidArgument(options_.previous_state +
                                     ": the previous snapshot's state has other keys; remove it "
                                     "to start the comparison over");
    }
  }
  const bool empty = counts_.rows == 0;
  if (empty && previous) {
    // An empty snapshot's inferred types mean nothing: every key is deleted, in the
    // previous snapshot's columns.
    kept_.clear();
    key_columns_.clear();
    rest_columns_.clear();
    key_types_.clear();
    CDCLAKE_RETURN_IF_ERROR(SetColumns(previous->columns));
  } else if (!have_columns_) {
    return Status::InvalidArgument(source_.path() +
                                   ": the snapshot has no rows and no columns to read");
  }
  if (previous && !empty) {
    for (size_t k = 0; k < options_.keys.size(); ++k) {
      const TypePtr& then =
          previous->columns.field(previous->columns.FieldIndex(options_.keys[k])).type;
      if (!KeyEncodingType(then)->Equals(*key_types_[k])) {
        return Status::InvalidArgument(
            source_.path() + ": key column " + options_.keys[k] + " is " +
            columns_.field(key_columns_[k]).type->ToString() + " here but was " + then->ToString() +
            " in the previous snapshot (" + previous->version_text +
            "); give the columns' types (a schema) or remove the snapshot state");
      }
    }
  }
  same_layout_ = previous && SameLayout(previous->columns, columns_);

  std::vector<data::Field> fields = columns_.fields();
  fields.push_back({std::string(kVersionColumn), options_.version_type, false});
  fields.push_back({std::string(kOperationColumn), DataType::String(), false});
  batch_schema_ = data::Schema(std::move(fields));

  SnapshotStateInfo info{options_.version_text, options_.keys, columns_};
  CDCLAKE_ASSIGN_OR_RETURN(
      state_, RecordFileWriter::Open(fs_, options_.new_state, StateHeader(info), 256 << 10));
  CDCLAKE_ASSIGN_OR_RETURN(new_, builder_.Finish());
  counts_.spilled_runs = builder_.spilled_runs();
  counts_.peak_sort_bytes = builder_.peak_buffer_bytes();
  CDCLAKE_RETURN_IF_ERROR(AdvanceNew());
  return AdvanceOld();
}

std::string SnapshotDiff::Impl::KeyText(std::string_view key) const {
  std::string out;
  for (size_t k = 0; k < key_types_.size(); ++k) {
    auto v = change::ReadOrdered(&key, *key_types_[k]);
    out += (k == 0 ? "" : ", ") + options_.keys[k] + "=" +
           (v.ok() ? data::FormatValueText(*v, *key_types_[k]) : std::string("?"));
  }
  return out;
}

Status SnapshotDiff::Impl::AdvanceNew() {
  if (new_valid_) {
    prev_key_.assign(new_rec_.key);
    prev_line_ = new_rec_.line;
    have_prev_ = true;
  }
  CDCLAKE_ASSIGN_OR_RETURN(new_valid_, new_->Next(&new_rec_));
  if (new_valid_ && have_prev_ && new_rec_.key == prev_key_) {
    return Status::InvalidArgument(source_.path() + ": key (" + KeyText(prev_key_) +
                                   ") appears more than once (lines " + std::to_string(prev_line_) +
                                   " and " + std::to_string(new_rec_.line) + ")");
  }
  return Status::OK();
}

Status SnapshotDiff::Impl::AdvanceOld() {
  if (!old_) {
    old_valid_ = false;
    return Status::OK();
  }
  CDCLAKE_ASSIGN_OR_RETURN(old_valid_, old_->Next(&old_rec_));
  return Status::OK();
}

void SnapshotDiff::Impl::StartBatch() {
  change::ChangeBatch b;
  b.rows = data::RecordBatch(batch_schema_);
  batch_ = std::move(b);
}

Status SnapshotDiff::Impl::AppendChange(std::string_view key, std::string_view rest, bool is_delete,
                                        int64_t line) {
  if (!batch_) StartBatch();
  data::RecordBatch& rows = batch_->rows;
  for (size_t k = 0; k < key_columns_.size(); ++k) {
    CDCLAKE_ASSIGN_OR_RETURN(data::Value v, change::ReadOrdered(&key, *key_types_[k]));
    rows.mutable_column(key_columns_[k]).AppendValue(v);
  }
  for (int c : rest_columns_) {
    data::Column& col = rows.mutable_column(c);
    if (is_delete) {
      col.AppendNull();
      continue;
    }
    CDCLAKE_ASSIGN_OR_RETURN(data::Value v, change::ReadOrdered(&rest, *col.type()));
    col.AppendValue(v);
  }
  rows.mutable_column(columns_.num_fields()).AppendValue(options_.version);
  rows.mutable_column(columns_.num_fields() + 1)
      .AppendBytes(is_delete ? kDeleteOperation : kUpsertOperation);
  batch_->positions.push_back(
      {is_delete ? options_.previous_state : source_.path(), is_delete ? 0 : line, 0});
  return Status::OK();
}

Result<std::optional<change::ChangeBatch>> SnapshotDiff::Impl::Next() {
  while (!done_ && (!batch_ || batch_->rows.num_rows() < options_.batch_rows)) {
    if (!new_valid_ && !old_valid_) {
      done_ = true;
      break;
    }
    int c;
    if (!old_valid_) {
      c = -1;
    } else if (!new_valid_) {
      c = 1;
    } else {
      c = new_rec_.key.compare(old_rec_.key);
    }
    if (c < 0) {
      ++counts_.inserted;
      CDCLAKE_RETURN_IF_ERROR(AppendChange(new_rec_.key, new_rec_.rest, false, new_rec_.line));
      CDCLAKE_RETURN_IF_ERROR(state_->Add(new_rec_.key, new_rec_.rest, 0));
      CDCLAKE_RETURN_IF_ERROR(AdvanceNew());
    } else if (c > 0) {
      ++counts_.deleted;
      CDCLAKE_RETURN_IF_ERROR(AppendChange(old_rec_.key, {}, true, 0));
      CDCLAKE_RETURN_IF_ERROR(AdvanceOld());
    } else {
      if (!same_layout_ || new_rec_.rest != old_rec_.rest) {
        ++counts_.updated;
        CDCLAKE_RETURN_IF_ERROR(AppendChange(new_rec_.key, new_rec_.rest, false, new_rec_.line));
      } else {
        ++counts_.unchanged;
      }
      CDCLAKE_RETURN_IF_ERROR(state_->Add(new_rec_.key, new_rec_.rest, 0));
      CDCLAKE_RETURN_IF_ERROR(AdvanceNew());
      CDCLAKE_RETURN_IF_ERROR(AdvanceOld());
    }
  }
  std::optional<change::ChangeBatch> out = std::move(batch_);
  batch_.reset();
  return out;
}

Status SnapshotDiff::Impl::Finish() {
  if (!done_) return Status::Internal("SnapshotDiff::Finish before every change was read");
  return state_->Finish();
}

SnapshotDiff::SnapshotDiff(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SnapshotDiff::~SnapshotDiff() = default;

Result<std::unique_ptr<SnapshotDiff>> SnapshotDiff::Open(io::FileSystem& fs, ChangeSource& source,
                                                         SnapshotDiffOptions options) {
  if (options.keys.empty()) return Status::InvalidArgument("a snapshot diff needs keys");
  if (!options.version_type) return Status::InvalidArgument("a snapshot diff needs a version");
  auto impl = std::make_unique<Impl>(fs, source, std::move(options));
  CDCLAKE_RETURN_IF_ERROR(impl->Read());
  CDCLAKE_RETURN_IF_ERROR(impl->OpenMerge());
  return std::unique_ptr<SnapshotDiff>(new SnapshotDiff(std::move(impl)));
}

const data::Schema& SnapshotDiff::schema() const {
  return impl_->batch_schema_;
}

Result<std::optional<change::ChangeBatch>> SnapshotDiff::Next() {
  return impl_->Next();
}

Status SnapshotDiff::Finish() {
  return impl_->Finish();
}

const SnapshotDiffCounts& SnapshotDiff::counts() const {
  return impl_->counts_;
}

}  // namespace cdclake::sources::snapshot
