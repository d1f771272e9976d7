// SnapshotFlow: finding snapshots and their versions, the flow's snapshot state (from the
// table's txn, a progress file for snapshots that changed nothing, or rebuilt from the table),
// and applying each snapshot's diff through apply::Applier.
#include "pipeline/snapshot_flow.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <set>

#include "base/strings.h"
#include "data/value_format.h"
#include "delta/snapshot.h"
#include "delta/table_scan.h"
#include "json/json.h"

namespace cdclake::pipeline {

namespace {

namespace snap = sources::snapshot;
using data::DataType;

constexpr char kProgressFile[] = "progress.json";

std::string StateDir(const apply::FlowDefinition& flow) {
  return io::JoinPath(flow.target, "_cdclake/snapshot");
}

std::string AppId(const apply::FlowDefinition& flow) {
  return flow.name.empty() ? "cdclake.snapshot" : "cdclake.snapshot:" + flow.name;
}

std::string StateName(int64_t version) {
  return "state-" + std::to_string(version) + ".bin";
}

std::string KindName(SnapshotVersion::Kind kind) {
  switch (kind) {
    case SnapshotVersion::Kind::kNumber:
      return "number";
    case SnapshotVersion::Kind::kDate:
      return "date";
    case SnapshotVersion::Kind::kTimestamp:
      return "timestamp";
  }
  return "?";
}

// Reads `n` digits at `*at` of `text` into `*out`.
bool Digits(std::string_view text, size_t* at, int n, int64_t* out) {
  if (*at + n > text.size()) return false;
  int64_t v = 0;
  for (int i = 0; i < n; ++i) {
    const char c = text[*at + i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *at += n;
  *out = v;
  return true;
}

// The time-of-day separators file names allow.
bool TimeSeparator(std::string_view text, size_t* at) {
  if (*at < text.size() && (text[*at] == ':' || text[*at] == '-')) {
    ++*at;
    return true;
  }
  return false;
}

// The flow the applier runs: the snapshot's version is the sequence, its operation column
// marks the deletes, and the diff's two columns stay out of the target.
apply::FlowDefinition ApplierFlow(const apply::FlowDefinition& flow) {
  apply::FlowDefinition f = flow;
  f.sequence_by = {std::string(snap::kVersionColumn)};
  f.sequence_is_struct = false;
  f.truncate_when = nullptr;
  f.delete_when = data::Expr::Compare(
      data::CompareOp::kEq, data::Expr::Column({std::string(snap::kOperationColumn)}),
      data::Expr::Literal(data::Value::Bytes(std::string(snap::kDeleteOperation)),
                          DataType::String()));
  f.columns = apply::ColumnSelection::Except(
      {std::string(snap::kVersionColumn), std::string(snap::kOperationColumn)});
  return f;
}

// The target's current rows, as one batch, for rebuilding a lost state.
class TableRowsSource final : public sources::ChangeSource {
 public:
  TableRowsSource(std::string path, data::RecordBatch rows)
      : ChangeSource(sources::SourceFormat::kParquet, std::move(path)), rows_(std::move(rows)) {}
  const data::Schema* schema() const override { return &rows_.schema(); }
  Result<std::optional<change::ChangeBatch>> Next() override {
    if (done_) return std::optional<change::ChangeBatch>();
    done_ = true;
    change::ChangeBatch batch;
    batch.rows = std::move(rows_);
    rows_ = data::RecordBatch(batch.rows.schema());
    return std::optional<change::ChangeBatch>(std::move(batch));
  }

 private:
  data::RecordBatch rows_;
  bool done_ = false;
};

// Where the flow stands: the last applied snapshot and the state to compare the next with.
struct FlowState {
  std::shared_ptr<const delta::Snapshot> table;  // nullptr before the table exists
  std::optional<int64_t> txn;                    // the last version a commit recorded
  std::optional<int64_t> last;                   // the last applied version
  std::optional<SnapshotVersion::Kind> kind;     // of `last`, when the state says
  std::string state_path;                        // empty: no previous snapshot
  bool rebuilt = false;  // the state was rebuilt from the table's rows, not read from a file
};

class SnapshotRunner {
 public:
  SnapshotRunner(io::FileSystem& fs, const apply::FlowDefinition& flow,
                 const SnapshotFlowOptions& options)
      : fs_(fs), flow_(flow), options_(options), dir_(StateDir(flow)) {}

  Result<SnapshotRunResult> Run(std::vector<SnapshotFile> files);

 private:
  Status LoadState();
  Status RebuildState();
  Status ApplyOne(const SnapshotFile& file, SnapshotOutcome* out);
  Result<apply::ApplyResult> ApplyBatch(const change::ChangeBatch& batch,
                                        const apply::CommitExtras& extras, SnapshotOutcome* out);
  Status WriteProgress(const SnapshotVersion& v, const std::string& state_name);
  Status CollectGarbage();

  io::FileSystem& fs_;
  const apply::FlowDefinition& flow_;
  const SnapshotFlowOptions& options_;
  std::string dir_;
  int64_t budget_ = 0;
  FlowState state_;
  std::unique_ptr<apply::Applier> applier_;
  SnapshotRunResult result_;
};

Status SnapshotRunner::LoadState() {
  const std::string log = io::JoinPath(flow_.target, "_delta_log");
  CDCLAKE_ASSIGN_OR_RETURN(bool table_exists, fs_.Exists(log));
  if (table_exists) {
    CDCLAKE_ASSIGN_OR_RETURN(state_.table, delta::Snapshot::Load(fs_, flow_.target));
    state_.txn = state_.table->TxnVersion(AppId(flow_));
  }
  const std::string progress_path = io::JoinPath(dir_, kProgressFile);
  CDCLAKE_ASSIGN_OR_RETURN(bool has_progress, fs_.Exists(progress_path));
  bool from_progress = false;
  if (has_progress) {
    CDCLAKE_ASSIGN_OR_RETURN(std::string text, fs_.ReadFile(progress_path));
    CDCLAKE_ASSIGN_OR_RETURN(json::Json p, json::Parse(text));
    CDCLAKE_ASSIGN_OR_RETURN(std::optional<int64_t> base, json::OptInt(p, "tableTxnVersion"));
    // A progress file speaks for the table as it was when it was written: no commit of this
    // flow may have followed.
    if (base == state_.txn) {
      CDCLAKE_ASSIGN_OR_RETURN(int64_t last, json::GetInt(p, "snapshotVersion"));
      CDCLAKE_ASSIGN_OR_RETURN(std::string name, json::GetString(p, "state"));
      state_.last = last;
      state_.state_path = io::JoinPath(dir_, name);
      from_progress = true;
    }
  }
  if (!from_progress && state_.txn) {
    state_.last = state_.txn;
    state_.state_path = io::JoinPath(dir_, StateName(*state_.txn));
  }
  bool have_state = false;
  if (!state_.state_path.empty()) {
    CDCLAKE_ASSIGN_OR_RETURN(have_state, fs_.Exists(state_.state_path));
  }
  if (have_state) {
    CDCLAKE_ASSIGN_OR_RETURN(snap::SnapshotStateInfo info,
                             snap::ReadSnapshotStateInfo(fs_, state_.state_path));
    auto v = ParseSnapshotVersion(info.version_text);
    if (v.ok()) state_.kind = v->kind;
    return Status::OK();
  }
  state_.state_path.clear();
  return Status::OK();
}

Status SnapshotRunner::RebuildState() {
  // The target's current rows are the last applied snapshot, narrowed to the flow's columns:
  // SCD1 every row, SCD2 the open versions.
  CDCLAKE_ASSIGN_OR_RETURN(data::RecordBatch rows, delta::ReadTable(fs_, *state_.table));
  if (flow_.scd_type == apply::ScdType::kType2) {
    const int end_at = rows.schema().FieldIndex("__END_AT");
    std::vector<int64_t> open;
    for (int64_t r = 0; r < rows.num_rows(); ++r) {
      if (end_at < 0 || rows.column(end_at).IsNull(r)) open.push_back(r);
    }
    std::vector<data::Field> fields;
    std::vector<data::Column> columns;
    for (size_t c = 0; c < rows.num_columns(); ++c) {
      const std::string& name = rows.schema().field(c).name;
      if (name == "__START_AT" || name == "__END_AT") continue;
      fields.push_back(rows.schema().field(c));
      columns.push_back(rows.column(c).Take(open));
    }
    rows = data::RecordBatch(data::Schema(std::move(fields)), std::move(columns));
  }
  TableRowsSource source(flow_.target, std::move(rows));
  snap::SnapshotDiffOptions o;
  o.keys = flow_.keys;
  o.version = data::Value::Int(state_.last.value_or(0));
  o.version_type = DataType::Int64();
  o.version_text = "";  // unknown kind
  o.new_state = io::JoinPath(dir_, state_.last ? StateName(*state_.last) : "state-rebuilt.bin");
  o.spill_dir = io::JoinPath(dir_, "spill");
  o.memory_budget_bytes = budget_;
  CDCLAKE_ASSIGN_OR_RETURN(auto diff, snap::SnapshotDiff::Open(fs_, source, std::move(o)));
  while (true) {
    CDCLAKE_ASSIGN_OR_RETURN(auto batch, diff->Next());
    if (!batch) break;
  }
  CDCLAKE_RETURN_IF_ERROR(diff->Finish());
  state_.state_path =
      io::JoinPath(dir_, state_.last ? StateName(*state_.last) : "state-rebuilt.bin");
  state_.rebuilt = true;
  result_.state_rebuilt = true;
  return Status::OK();
}

Result<apply::ApplyResult> SnapshotRunner::ApplyBatch(const change::ChangeBatch& batch,
                                                      const apply::CommitExtras& extras,
                                                      SnapshotOutcome* out) {
  if (!applier_) {
    auto opened = apply::Applier::Open(fs_, ApplierFlow(flow_), options_.apply);
    if (!opened.ok()) {
      return Status(opened.status().code(),
                    flow_.target + ": cannot open the target's apply state under _cdclake/ (" +
                        opened.status().message() + "); `cdclake repair " + flow_.target +
                        "` rebuilds it from the table");
    }
    applier_ = std::move(*opened);
  }
  CDCLAKE_ASSIGN_OR_RETURN(apply::ApplyResult r, applier_->Apply(batch, extras));
  out->counts += r.counts;
  if (r.version) {
    out->table_versions.push_back(*r.version);
    result_.table_versions.push_back(*r.version);
  }
  return r;
}

Status SnapshotRunner::WriteProgress(const SnapshotVersion& v, const std::string& state_name) {
  json::Json p = json::Json::object();
  p["tableTxnVersion"] = state_.txn ? json::Json(*state_.txn) : json::Json(nullptr);
  p["snapshotVersion"] = v.value;
  p["versionText"] = v.text;
  p["state"] = state_name;
  return fs_.WriteFile(io::JoinPath(dir_, kProgressFile), json::Dump(p));
}

Status SnapshotRunner::ApplyOne(const SnapshotFile& file, SnapshotOutcome* out) {
  const SnapshotVersion& v = file.version;
  std::optional<sources::SourceFormat> format = options_.format;
  if (!format) format = SnapshotFormatFromPath(file.path);
  if (!format) {
    return Status::InvalidArgument(file.path + ": cannot tell the format from the extension");
  }
  sources::ChangeSourceOptions so;
  so.schema = options_.schema;
  CDCLAKE_ASSIGN_OR_RETURN(auto source, sources::OpenChangeSource(fs_, file.path, *format, so));
  // A snapshot its writer has not finished (a Parquet file without its footer yet) would read
  // as one without the missing rows, whose keys the diff would then delete: not applied now;
  // a later run reads it once it is whole.
  auto unfinished = [&](const std::string& when) {
    return Status::IoError(sources::DescribePending({file.path, *source->Pending()}) + " (" + when +
                           "): snapshot " + v.text +
                           " is not applied until it is whole; a later run reads it again");
  };
  if (source->Pending()) return unfinished("seen at open");
  if (options_.check_columns && source->schema() != nullptr) {
    // The previous snapshot's columns, from its state (a state rebuilt from the table's rows
    // has the table's columns, not the snapshot's).
    std::optional<data::Schema> previous;
    // JSON Lines leave a key out to say NULL: a column the previous snapshot had and this one
    // lacks is not a removed column there, so no previous columns are given.
    if (!state_.state_path.empty() && !state_.rebuilt &&
        *format != sources::SourceFormat::kJsonLines) {
      CDCLAKE_ASSIGN_OR_RETURN(snap::SnapshotStateInfo info,
                               snap::ReadSnapshotStateInfo(fs_, state_.state_path));
      previous = std::move(info.columns);
    }
    CDCLAKE_RETURN_IF_ERROR(
        options_.check_columns(*source->schema(), previous ? &*previous : nullptr, file.path));
  }

  const std::string state_name = StateName(v.value);
  snap::SnapshotDiffOptions o;
  o.keys = flow_.keys;
  const apply::ColumnSelection columns = flow_.columns;
  o.keep_column = [columns](const std::string& c) { return columns.Selects(c); };
  o.version = data::Value::Int(v.value);
  o.version_type = v.type();
  o.version_text = v.text;
  o.previous_state = state_.state_path;
  o.new_state = io::JoinPath(dir_, state_name);
  o.spill_dir = io::JoinPath(dir_, "spill");
  o.memory_budget_bytes = budget_;
  o.batch_rows = std::min<int64_t>(1 << 16, std::max<int64_t>(1, options_.commit_rows));
  CDCLAKE_ASSIGN_OR_RETURN(auto diff, snap::SnapshotDiff::Open(fs_, *source, std::move(o)));

  // Changes go out in commits of up to commit_rows; the last one records the snapshot as
  // applied, so it is held back until the diff is known to be complete.
  change::ChangeBatch pending;
  int part = 0;
  while (true) {
    CDCLAKE_ASSIGN_OR_RETURN(std::optional<change::ChangeBatch> next, diff->Next());
    if (!next) break;
    if (pending.rows.num_rows() > 0 &&
        pending.rows.num_rows() + next->rows.num_rows() > options_.commit_rows) {
      apply::CommitExtras extras;
      extras.operation_parameters["snapshotVersion"] = v.text;
      extras.operation_parameters["snapshotPart"] = std::to_string(++part);
      CDCLAKE_RETURN_IF_ERROR(ApplyBatch(pending, extras, out).status());
      pending = change::ChangeBatch();
    }
    change::AppendRows(std::move(*next), &pending);
  }
  CDCLAKE_RETURN_IF_ERROR(diff->Finish());
  out->diff = diff->counts();
  if (source->Pending()) return unfinished("its last record");

  bool committed = false;
  if (pending.rows.num_rows() > 0) {
    apply::CommitExtras extras;
    extras.txn_app_id = AppId(flow_);
    extras.txn_version = v.value;
    extras.operation_parameters["snapshotVersion"] = v.text;
    extras.operation_parameters["snapshotState"] = "_cdclake/snapshot/" + state_name;
    extras.operation_parameters["snapshotFile"] = file.path;
    if (part > 0) extras.operation_parameters["snapshotPart"] = std::to_string(part + 1);
    CDCLAKE_ASSIGN_OR_RETURN(apply::ApplyResult r, ApplyBatch(pending, extras, out));
    committed = r.version.has_value();
  }
  if (committed) {
    state_.txn = v.value;
    CDCLAKE_RETURN_IF_ERROR(fs_.Delete(io::JoinPath(dir_, kProgressFile)));
  } else {
    // Nothing to commit (the snapshot equals the previous one, or a crashed run had already
    // committed its changes): the table cannot say the snapshot was applied, so this file does.
    CDCLAKE_RETURN_IF_ERROR(WriteProgress(v, state_name));
  }
  state_.last = v.value;
  state_.kind = v.kind;
  state_.state_path = io::JoinPath(dir_, state_name);
  state_.rebuilt = false;
  out->applied = true;
  return Status::OK();
}

Status SnapshotRunner::CollectGarbage() {
  auto entries = fs_.List(dir_);
  if (!entries.ok()) return Status::OK();
  std::set<std::string> keep;
  if (!state_.state_path.empty()) keep.insert(state_.state_path);
  if (state_.txn) keep.insert(io::JoinPath(dir_, StateName(*state_.txn)));
  for (const io::FileInfo& e : *entries) {
    const std::string name = e.path.substr(e.path.find_last_of('/') + 1);
    if (e.is_directory || !StartsWith(name, "state-") || keep.count(e.path)) continue;
    CDCLAKE_RETURN_IF_ERROR(fs_.Delete(e.path));
  }
  return Status::OK();
}

Result<SnapshotRunResult> SnapshotRunner::Run(std::vector<SnapshotFile> files) {
  if (flow_.keys.empty()) return Status::InvalidArgument("a snapshot flow needs keys");
  if (flow_.target.empty()) return Status::InvalidArgument("a snapshot flow needs a target");
  CDCLAKE_ASSIGN_OR_RETURN(budget_, SnapshotMemoryBudget(options_));
  std::stable_sort(files.begin(), files.end(), [](const SnapshotFile& a, const SnapshotFile& b) {
    return a.version.value < b.version.value;
  });
  CDCLAKE_RETURN_IF_ERROR(LoadState());
  int64_t diffed = 0;
  for (const SnapshotFile& file : files) {
    Report(options_.progress, "snapshot diff", "snapshots", diffed++,
           static_cast<int64_t>(files.size()));
    SnapshotOutcome out;
    out.path = file.path;
    out.version = file.version;
    if (state_.kind && *state_.kind != file.version.kind) {
      return Status::InvalidArgument(
          file.path + ": version " + file.version.text + " is a " + KindName(file.version.kind) +
          ", but the flow's snapshots so far had " + KindName(*state_.kind) + " versions");
    }
    if (state_.last && file.version.value <= *state_.last) {
      out.reason = "version " + file.version.text + " is not above the last applied version";
      if (state_.kind) {
        // Spell the last version as its kind does.
        SnapshotVersion last{*state_.kind, *state_.last, ""};
        if (*state_.kind == SnapshotVersion::Kind::kNumber) {
          last.text = std::to_string(*state_.last);
        } else if (*state_.kind == SnapshotVersion::Kind::kDate) {
          last.text = data::FormatDate(*state_.last);
        } else {
          last.text = data::FormatTimestamp(*state_.last, true);
        }
        out.reason += " (" + last.text + ")";
      } else {
        out.reason += " (" + std::to_string(*state_.last) + ")";
      }
      result_.snapshots.push_back(std::move(out));
      continue;
    }
    if (state_.state_path.empty() && state_.table) CDCLAKE_RETURN_IF_ERROR(RebuildState());
    CDCLAKE_RETURN_IF_ERROR(ApplyOne(file, &out));
    result_.counts += out.counts;
    result_.last_applied = file.version;
    result_.snapshots.push_back(std::move(out));
    CDCLAKE_RETURN_IF_ERROR(CollectGarbage());
  }
  if (!result_.last_applied && state_.last) {
    SnapshotVersion last{state_.kind.value_or(SnapshotVersion::Kind::kNumber), *state_.last,
                         std::to_string(*state_.last)};
    result_.last_applied = last;
  }
  return std::move(result_);
}

}  // namespace

data::TypePtr SnapshotVersion::type() const {
  switch (kind) {
    case Kind::kNumber:
      return DataType::Int64();
    case Kind::kDate:
      return DataType::Date();
    case Kind::kTimestamp:
      return DataType::Timestamp();
  }
  return DataType::Int64();
}

Result<SnapshotVersion> ParseSnapshotVersion(std::string_view text) {
  auto bad = [&] {
    return Status::InvalidArgument("'" + std::string(text) +
                                   "' is not a snapshot version (a number, YYYY-MM-DD or "
                                   "YYYY-MM-DDTHH:MM:SS[.ffffff][Z])");
  };
  if (text.empty()) return bad();
  SnapshotVersion v;
  v.text = std::string(text);
  const bool negative = text[0] == '-';
  const std::string_view digits = text.substr(negative ? 1 : 0);
  if (!digits.empty() && digits.size() <= 18 &&
      std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    v.kind = SnapshotVersion::Kind::kNumber;
    v.value = std::strtoll(std::string(text).c_str(), nullptr, 10);
    return v;
  }
  size_t at = 0;
  int64_t year, month, day;
  if (!Digits(text, &at, 4, &year) || at >= text.size() || text[at++] != '-' ||
      !Digits(text, &at, 2, &month) || at >= text.size() || text[at++] != '-' ||
      !Digits(text, &at, 2, &day) || month < 1 || month > 12 || day < 1 || day > 31) {
    return bad();
  }
  const int64_t days =
      data::DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  if (at == text.size()) {
    v.kind = SnapshotVersion::Kind::kDate;
    v.value = days;
    return v;
  }
  if (text[at] != 'T' && text[at] != 't' && text[at] != ' ') return bad();
  ++at;
  int64_t hour, minute, second = 0, micros = 0;
  if (!Digits(text, &at, 2, &hour) || !TimeSeparator(text, &at) || !Digits(text, &at, 2, &minute)) {
    return bad();
  }
  if (TimeSeparator(text, &at) && !Digits(text, &at, 2, &second)) return bad();
  if (at < text.size() && text[at] == '.') {
    ++at;
    int n = 0;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
      if (n < 6) micros = micros * 10 + (text[at] - '0');
      ++n;
      ++at;
    }
    if (n == 0) return bad();
    for (; n < 6; ++n) micros *= 10;
  }
  if (at < text.size() && (text[at] == 'Z' || text[at] == 'z')) ++at;
  if (at != text.size() || hour > 23 || minute > 59 || second > 60) return bad();
  v.kind = SnapshotVersion::Kind::kTimestamp;
  v.value = ((days * 24 + hour) * 60 + minute) * 60'000'000 + second * 1'000'000 + micros;
  return v;
}

SnapshotVersion TimestampVersion(int64_t micros) {
  return SnapshotVersion{SnapshotVersion::Kind::kTimestamp, micros,
                         data::FormatTimestamp(micros, true)};
}

std::optional<sources::SourceFormat> SnapshotFormatFromPath(const std::string& path) {
  const std::string lower = ToLower(path);
  if (EndsWith(lower, ".csv")) return sources::SourceFormat::kCsv;
  if (EndsWith(lower, ".jsonl") || EndsWith(lower, ".json") || EndsWith(lower, ".ndjson")) {
    return sources::SourceFormat::kJsonLines;
  }
  if (EndsWith(lower, ".parquet")) return sources::SourceFormat::kParquet;
  return std::nullopt;
}

Result<std::vector<SnapshotFile>> DiscoverSnapshots(const io::FileSystem& fs,
                                                    const std::string& dir) {
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<io::FileInfo> entries, fs.List(dir));
  std::vector<SnapshotFile> out;
  for (const io::FileInfo& e : entries) {
    if (e.is_directory) continue;
    const std::string name = e.path.substr(e.path.find_last_of('/') + 1);
    if (name.empty() || name[0] == '.' || name[0] == '_') continue;
    if (!SnapshotFormatFromPath(name)) continue;
    const std::string stem = name.substr(0, name.find_last_of('.'));
    const size_t underscore = stem.find_last_of('_');
    Result<SnapshotVersion> v =
        ParseSnapshotVersion(underscore == std::string::npos ? stem : stem.substr(underscore + 1));
    if (!v.ok() && underscore != std::string::npos) v = ParseSnapshotVersion(stem);
    if (!v.ok()) {
      return Status::InvalidArgument(
          e.path + ": no version in the file name (want " +
          "<name>_<version>.<ext> or <version>.<ext>): " + v.status().message());
    }
    out.push_back({e.path, *v});
  }
  std::sort(out.begin(), out.end(), [](const SnapshotFile& a, const SnapshotFile& b) {
    return a.version.value < b.version.value;
  });
  for (size_t i = 1; i < out.size(); ++i) {
    if (out[i].version.kind != out[0].version.kind) {
      return Status::InvalidArgument(dir + ": snapshot versions of different kinds (" +
                                     out[0].path + " has a " + KindName(out[0].version.kind) +
                                     ", " + out[i].path + " a " + KindName(out[i].version.kind) +
                                     ")");
    }
    if (out[i].version.value == out[i - 1].version.value) {
      return Status::InvalidArgument(dir + ": " + out[i - 1].path + " and " + out[i].path +
                                     " have the same version");
    }
  }
  return out;
}

Result<int64_t> SnapshotMemoryBudget(const SnapshotFlowOptions& options) {
  if (options.memory_budget_bytes > 0) return options.memory_budget_bytes;
  const char* env = std::getenv("CDCLAKE_SNAPSHOT_MEMORY");
  if (env == nullptr || *env == '\0') return snap::kDefaultMemoryBudgetBytes;
  std::string text(env);
  int64_t unit = 1;
  const char last = static_cast<char>(std::toupper(static_cast<unsigned char>(text.back())));
  if (last == 'K' || last == 'M' || last == 'G') {
    unit = last == 'K' ? (1 << 10) : last == 'M' ? (1 << 20) : (int64_t{1} << 30);
    text.pop_back();
  }
  if (text.empty() ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
      text.size() > 12) {
    return Status::InvalidArgument("CDCLAKE_SNAPSHOT_MEMORY='" + std::string(env) +
                                   "': want bytes, or a number with K, M or G");
  }
  return std::max<int64_t>(std::strtoll(text.c_str(), nullptr, 10) * unit, 64 << 10);
}

Result<SnapshotRunResult> ApplySnapshots(io::FileSystem& fs, const apply::FlowDefinition& flow,
                                         std::vector<SnapshotFile> files,
                                         const SnapshotFlowOptions& options) {
  SnapshotRunner runner(fs, flow, options);
  return runner.Run(std::move(files));
}

Result<SnapshotRunResult> ApplySnapshotFolder(io::FileSystem& fs, const apply::FlowDefinition& flow,
                                              const std::string& dir,
                                              const SnapshotFlowOptions& options) {
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<SnapshotFile> files, DiscoverSnapshots(fs, dir));
  return ApplySnapshots(fs, flow, std::move(files), options);
}

Result<SnapshotRunResult> ApplyPeriodicSnapshot(io::FileSystem& fs,
                                                const apply::FlowDefinition& flow,
                                                const std::string& path,
                                                std::optional<SnapshotVersion> version,
                                                const SnapshotFlowOptions& options) {
  if (!version) {
    const int64_t now = std::chrono::duration_cast<std::chrono::microseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    version = TimestampVersion(now);
  }
  return ApplySnapshots(fs, flow, {SnapshotFile{path, *version}}, options);
}

}  // namespace cdclake::pipeline
