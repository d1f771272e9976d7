// `cdclake apply`: change files (CSV, JSONL, Debezium events, SQL Server CDC exports) applied to
// a Delta table as one AUTO CDC flow, in batches of N rows across the files, with a summary of
// what was read, applied and written.
#include <algorithm>
#include <deque>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cdclake/flow.h"
#include "cli/commands.h"

namespace cdclake::cli {

namespace {

struct ApplyArgs {
  std::string target;
  std::string keys;
  std::string sequence_by;
  std::string format;
  std::string schema;
  std::string delete_when;
  std::string truncate_when;
  int scd = 1;
  std::string columns;
  std::string except;
  std::string track_history;
  std::string track_history_except;
  bool ignore_null_updates = false;
  std::string ignore_null_updates_on;
  std::string ignore_null_updates_except;
  int64_t batch_size = 0;  // 0: every row in one batch
  std::vector<std::string> properties;
  std::string flow_name;
  std::vector<std::string> files;
};

// Prints "cdclake: <message>" to stderr and returns 2 (bad usage, invalid flow).
int UsageFail(const Status& status) {
  std::cerr << "cdclake: " << status.ToString() << "\n";
  return 2;
}

// The names a list option gives, with the option named in errors.
Result<std::vector<std::string>> ColumnList(const std::string& option, const std::string& text) {
  auto names = sql::ParseColumnList(text);
  if (!names.ok()) return names.status().WithContext(option);
  if (names->empty()) return Status::InvalidArgument(option + ": name at least one column");
  return names;
}

// A condition's expression, with the option named in errors.
Result<std::shared_ptr<const data::Expr>> Condition(const std::string& option,
                                                    const std::string& text) {
  auto expr = sql::ParseCondition(text);
  if (!expr.ok()) return expr.status().WithContext(option);
  return std::shared_ptr<const data::Expr>(std::move(*expr));
}

// An error naming the options out of `names` that were given, when more than one was.
Status AtMostOne(const CLI::App& cmd, const std::vector<std::string>& names) {
  std::vector<std::string> given;
  for (const std::string& n : names) {
    if (cmd.get_option(n)->count() > 0) given.push_back(n);
  }
  if (given.size() <= 1) return Status::OK();
  std::string list;
  for (size_t i = 0; i < given.size(); ++i) {
    list += (i == 0 ? "" : i + 1 == given.size() ? " and " : ", ") + given[i];
  }
  return Status::InvalidArgument(list + " exclude each other; give one of them");
}

std::string TrimSlashes(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

bool Given(const CLI::App& cmd, const std::string& option) {
  return cmd.get_option(option)->count() > 0;
}

// --format: nullopt when not given (each file's extension decides).
Result<std::optional<sources::SourceFormat>> FormatOption(const std::string& format) {
  if (format.empty()) return std::optional<sources::SourceFormat>();
  std::optional<sources::SourceFormat> parsed = sources::SourceFormatFromName(format);
  if (!parsed) {
    return Status::InvalidArgument("--format must be csv, jsonl, debezium or sqlserver, got '" +
                                   format + "'");
  }
  return parsed;
}

// The flow the options describe. Every error here is bad usage. With a change-stream format
// (Debezium, SQL Server) the sequence, the delete (and for Debezium in SCD 1 the truncate)
// conditions default to the reader's `_seq` and `_op`, and its metadata columns stay out of
// the target unless --columns lists them.
Result<apply::FlowDefinition> FlowFromArgs(const CLI::App& cmd, const ApplyArgs& args,
                                           std::optional<sources::SourceFormat> format) {
  const bool stream = format && sources::IsChangeStreamFormat(*format);
  CDCLAKE_RETURN_IF_ERROR(AtMostOne(cmd, {"--columns", "--except"}));
  CDCLAKE_RETURN_IF_ERROR(AtMostOne(cmd, {"--track-history", "--track-history-except"}));
  CDCLAKE_RETURN_IF_ERROR(AtMostOne(
      cmd, {"--ignore-null-updates", "--ignore-null-updates-on", "--ignore-null-updates-except"}));
  if (args.scd != 1 && args.scd != 2) {
    return Status::InvalidArgument("--scd must be 1 or 2, got " + std::to_string(args.scd));
  }
  if (cmd.get_option("--batch-size")->count() > 0 && args.batch_size <= 0) {
    return Status::InvalidArgument("--batch-size must be positive, got " +
                                   std::to_string(args.batch_size));
  }
  apply::FlowDefinition flow;
  flow.target = TrimSlashes(args.target);
  if (flow.target.empty()) return Status::InvalidArgument("--target: give the table's folder");
  if (!args.flow_name.empty()) {
    flow.name = args.flow_name;
  } else {
    size_t slash = flow.target.find_last_of('/');
    flow.name = slash == std::string::npos ? flow.target : flow.target.substr(slash + 1);
  }
  CDCLAKE_ASSIGN_OR_RETURN(flow.keys, ColumnList("--keys", args.keys));
  std::string sequence_by = args.sequence_by;
  if (!Given(cmd, "--sequence-by")) {
    if (!stream) {
      return Status::InvalidArgument(
          "--sequence-by is required (it defaults to _seq only with --format debezium or "
          "sqlserver)");
    }
    sequence_by = "_seq";
  }
  auto sequence = sql::ParseSequenceBy(sequence_by);
  if (!sequence.ok()) return sequence.status().WithContext("--sequence-by");
  flow.sequence_by = sequence->columns;
  flow.sequence_is_struct = sequence->is_struct;
  flow.scd_type = args.scd == 2 ? apply::ScdType::kType2 : apply::ScdType::kType1;
  if (Given(cmd, "--delete-when")) {
    CDCLAKE_ASSIGN_OR_RETURN(flow.delete_when, Condition("--delete-when", args.delete_when));
  } else if (stream) {
    CDCLAKE_ASSIGN_OR_RETURN(flow.delete_when, Condition("--delete-when", "_op = 'd'"));
  }
  if (Given(cmd, "--truncate-when")) {
    CDCLAKE_ASSIGN_OR_RETURN(flow.truncate_when, Condition("--truncate-when", args.truncate_when));
  } else if (format == sources::SourceFormat::kDebezium &&
             flow.scd_type == apply::ScdType::kType1) {
    // SQL Server refuses TRUNCATE on captured tables; SCD 2 keeps history through truncates.
    CDCLAKE_ASSIGN_OR_RETURN(flow.truncate_when, Condition("--truncate-when", "_op = 't'"));
  }
  if (Given(cmd, "--columns")) {
    // Metadata columns not listed stay out by themselves.
    CDCLAKE_ASSIGN_OR_RETURN(auto names, ColumnList("--columns", args.columns));
    flow.columns = apply::ColumnSelection::Only(std::move(names));
  } else {
    std::vector<std::string> names;
    if (Given(cmd, "--except")) {
      CDCLAKE_ASSIGN_OR_RETURN(names, ColumnList("--except", args.except));
    }
    if (stream) {
      for (const std::string& meta : sources::ChangeStreamColumns()) {
        if (std::find(names.begin(), names.end(), meta) == names.end()) names.push_back(meta);
      }
    }
    if (!names.empty()) flow.columns = apply::ColumnSelection::Except(std::move(names));
  }
  if (cmd.get_option("--track-history")->count() > 0) {
    CDCLAKE_ASSIGN_OR_RETURN(auto names, ColumnList("--track-history", args.track_history));
    flow.track_history = apply::ColumnSelection::Only(std::move(names));
  } else if (cmd.get_option("--track-history-except")->count() > 0) {
    CDCLAKE_ASSIGN_OR_RETURN(auto names,
                             ColumnList("--track-history-except", args.track_history_except));
    flow.track_history = apply::ColumnSelection::Except(std::move(names));
  }
  if (args.ignore_null_updates) {
    flow.ignore_null_updates = apply::ColumnSelection::All();
  } else if (cmd.get_option("--ignore-null-updates-on")->count() > 0) {
    CDCLAKE_ASSIGN_OR_RETURN(auto names,
                             ColumnList("--ignore-null-updates-on", args.ignore_null_updates_on));
    flow.ignore_null_updates = apply::ColumnSelection::Only(std::move(names));
  } else if (cmd.get_option("--ignore-null-updates-except")->count() > 0) {
    CDCLAKE_ASSIGN_OR_RETURN(
        auto names, ColumnList("--ignore-null-updates-except", args.ignore_null_updates_except));
    flow.ignore_null_updates = apply::ColumnSelection::Except(std::move(names));
  }
  for (const std::string& p : args.properties) {
    size_t eq = p.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::InvalidArgument("--property " + p + ": write it as key=value");
    }
    flow.table_properties[p.substr(0, eq)] = p.substr(eq + 1);
  }
  return flow;
}

// A change file and how to read it.
struct InputFile {
  std::string path;
  sources::SourceFormat format = sources::SourceFormat::kCsv;
  sources::FileFormat file_format = sources::FileFormat::kCsv;  // for SQL Server exports
};

// How to read `file`: --format, else its extension (.csv; .jsonl or .json for JSON Lines). A
// SQL Server export is JSON Lines when named so, else CSV.
Result<InputFile> InputOf(const std::string& file, std::optional<sources::SourceFormat> format) {
  const std::string name = ToLower(file);
  const bool csv = EndsWith(name, ".csv");
  const bool jsonl = EndsWith(name, ".jsonl") || EndsWith(name, ".json");
  InputFile input{file};
  if (format) {
    input.format = *format;
  } else if (csv || jsonl) {
    input.format = csv ? sources::SourceFormat::kCsv : sources::SourceFormat::kJsonLines;
  } else {
    return Status::InvalidArgument(file +
                                   ": cannot tell its format from the extension (.csv, .jsonl or "
                                   ".json); give --format csv, jsonl, debezium or sqlserver");
  }
  input.file_format = jsonl ? sources::FileFormat::kJsonLines : sources::FileFormat::kCsv;
  return input;
}

bool HasField(const std::vector<data::Field>& fields, const std::string& name) {
  for (const data::Field& f : fields) {
    if (f.name == name) return true;
  }
  return false;
}

// The types to read columns as before any file is opened: --schema's, then the existing
// target's for the columns it has (for SCD2 the sequence's from __START_AT), so a value that
// no longer parses as the column's type is quarantined instead of changing the type.
Result<std::vector<data::Field>> KnownTypes(const ApplyArgs& args,
                                            const apply::FlowDefinition& flow) {
  std::vector<data::Field> known;
  if (!args.schema.empty()) {
    auto schema = sql::ParseSchemaDdl(args.schema);
    if (!schema.ok()) return schema.status().WithContext("--schema");
    known = schema->fields();
  }
  if (!IsDeltaTable(flow.target)) return known;
  auto snapshot = delta::Snapshot::Load(*io::LocalFileSystem::Instance(), flow.target);
  if (!snapshot.ok()) return snapshot.status();
  std::vector<data::Field> from_target;
  for (const data::Field& f : (*snapshot)->schema().fields()) {
    if (f.name == "__START_AT" && flow.scd_type == apply::ScdType::kType2) {
      if (flow.sequence_by.size() == 1 && !flow.sequence_is_struct) {
        from_target.push_back({flow.sequence_by[0], f.type, true});
      } else if (f.type->is_nested()) {
        for (const data::Field& member : f.type->fields()) from_target.push_back(member);
      }
      continue;
    }
    if (f.name == "__END_AT" && flow.scd_type == apply::ScdType::kType2) continue;
    from_target.push_back(f);
  }
  for (data::Field& f : from_target) {
    if (!HasField(known, f.name)) known.push_back({f.name, f.type, true});
  }
  return known;
}

// Change rows gathered across files until a batch is full. Rows of a file without one of the
// columns seen so far get NULL there. The sources' unchanged marks follow their cells.
class PendingRows {
 public:
  /// Whether a batch with `schema` can join these rows: no column with another type.
  bool Accepts(const data::Schema& schema) const {
    for (const data::Field& f : schema.fields()) {
      int at = Find(f.name);
      if (at >= 0 && !(*fields_[static_cast<size_t>(at)].type == *f.type)) return false;
    }
    return true;
  }

  Status Add(change::ChangeBatch batch, const std::string& file) {
    const data::RecordBatch& in = batch.rows;
    const int64_t n = in.num_rows();
    for (size_t c = 0; c < in.num_columns(); ++c) {
      const data::Field& f = in.schema().field(c);
      int at = Find(f.name);
      if (at < 0) {
        fields_.push_back({f.name, f.type, true});
        columns_.push_back(data::Column::Repeat(f.type, data::Value::Null(), rows_));
        if (!unchanged_.empty()) unchanged_.emplace_back(static_cast<size_t>(rows_), 0);
      } else if (!(*fields_[at].type == *f.type)) {
        return Status::InvalidArgument(file + ": column '" + f.name + "' is read as " +
                                       f.type->ToString() + " here but as " +
                                       fields_[at].type->ToString() + " in earlier rows");
      }
    }
    if (!batch.unchanged.empty() && unchanged_.empty()) {
      unchanged_.assign(fields_.size(), std::vector<uint8_t>(static_cast<size_t>(rows_), 0));
    }
    for (size_t j = 0; j < fields_.size(); ++j) {
      int k = in.schema().FieldIndex(fields_[j].name);
      if (k >= 0) {
        columns_[j].AppendColumn(in.column(static_cast<size_t>(k)));
      } else {
        columns_[j].AppendColumn(data::Column::Repeat(fields_[j].type, data::Value::Null(), n));
      }
      if (unchanged_.empty()) continue;
      std::vector<uint8_t>& marks = unchanged_[j];
      auto kk = static_cast<size_t>(k);
      if (k >= 0 && kk < batch.unchanged.size() &&
          batch.unchanged[kk].size() == static_cast<size_t>(n)) {
        marks.insert(marks.end(), batch.unchanged[kk].begin(), batch.unchanged[kk].end());
      } else {
        marks.resize(marks.size() + static_cast<size_t>(n), 0);
      }
    }
    for (int64_t r = 0; r < n; ++r) {
      auto i = static_cast<size_t>(r);
      change::SourcePosition pos =
          i < batch.positions.size() ? batch.positions[i] : change::SourcePosition{};
      if (pos.file.empty()) pos.file = file;
      positions_.push_back(std::move(pos));
      raw_.push_back(i < batch.raw.size() ? std::move(batch.raw[i]) : std::string());
    }
    for (change::RejectedRecord& rec : batch.rejected) {
      if (rec.position.file.empty()) rec.position.file = file;
      rejected_.push_back(std::move(rec));
    }
    rows_ += n;
    return Status::OK();
  }

  int64_t num_rows() const { return rows_; }
  bool empty() const { return rows_ == 0 && rejected_.empty(); }

  /// The first `n` rows (all of them when n <= 0 or n >= num_rows()) and every rejected
  /// record gathered so far.
  change::ChangeBatch Take(int64_t n) {
    if (n <= 0 || n > rows_) n = rows_;
    change::ChangeBatch out;
    std::vector<int64_t> head(static_cast<size_t>(n)), tail(static_cast<size_t>(rows_ - n));
    for (int64_t i = 0; i < n; ++i) head[static_cast<size_t>(i)] = i;
    for (int64_t i = n; i < rows_; ++i) tail[static_cast<size_t>(i - n)] = i;
    std::vector<data::Column> taken, kept;
    for (data::Column& c : columns_) {
      if (tail.empty()) {
        taken.push_back(std::move(c));
      } else {
        taken.push_back(c.Take(head));
        kept.push_back(c.Take(tail));
      }
    }
    out.rows = data::RecordBatch(data::Schema(fields_), std::move(taken));
    out.rows.set_num_rows(n);
    out.positions.assign(std::make_move_iterator(positions_.begin()),
                         std::make_move_iterator(positions_.begin() + n));
    positions_.erase(positions_.begin(), positions_.begin() + n);
    out.raw.assign(std::make_move_iterator(raw_.begin()),
                   std::make_move_iterator(raw_.begin() + n));
    raw_.erase(raw_.begin(), raw_.begin() + n);
    out.rejected = std::move(rejected_);
    rejected_.clear();
    if (!unchanged_.empty()) {
      bool any = false;
      for (std::vector<uint8_t>& marks : unchanged_) {
        std::vector<uint8_t> head_marks(marks.begin(), marks.begin() + n);
        marks.erase(marks.begin(), marks.begin() + n);
        any = any ||
              std::any_of(head_marks.begin(), head_marks.end(), [](uint8_t m) { return m != 0; });
        out.unchanged.push_back(std::move(head_marks));
      }
      if (!any) out.unchanged.clear();
      if (tail.empty()) unchanged_.clear();
    }
    columns_ = std::move(kept);
    if (tail.empty()) {
      for (const data::Field& f : fields_) columns_.emplace_back(f.type);
    }
    rows_ -= n;
    return out;
  }

 private:
  int Find(const std::string& name) const {
    for (size_t i = 0; i < fields_.size(); ++i) {
      if (fields_[i].name == name) return static_cast<int>(i);
    }
    return -1;
  }

  std::vector<data::Field> fields_;
  std::vector<data::Column> columns_;
  int64_t rows_ = 0;
  std::vector<change::SourcePosition> positions_;
  std::vector<std::string> raw_;
  std::vector<change::RejectedRecord> rejected_;
  // Empty while no source has marked a cell; else one mark per row for each field.
  std::vector<std::vector<uint8_t>> unchanged_;
};

// The files a batch's rows and records came from, for error messages.
std::string FilesOf(const change::ChangeBatch& batch) {
  std::set<std::string> seen;
  std::string out;
  auto add = [&](const std::string& f) {
    if (!f.empty() && seen.insert(f).second) out += (out.empty() ? "" : ", ") + f;
  };
  for (const change::SourcePosition& p : batch.positions) add(p.file);
  for (const change::RejectedRecord& r : batch.rejected) add(r.position.file);
  return out;
}

std::string VersionList(const std::vector<int64_t>& versions) {
  if (versions.empty()) return "none";
  std::string out;
  for (int64_t v : versions) out += (out.empty() ? "" : ", ") + std::to_string(v);
  return out;
}

struct RunTotals {
  apply::ApplyCounts counts;
  int64_t batches = 0;
  std::vector<int64_t> versions;
  std::vector<int64_t> quarantine_versions;
  std::vector<sources::SourceCount> source_counts;  // summed by label, first seen first
};

void AddSourceCounts(const std::vector<sources::SourceCount>& counts, RunTotals* totals) {
  for (const sources::SourceCount& c : counts) {
    auto it = std::find_if(totals->source_counts.begin(), totals->source_counts.end(),
                           [&](const sources::SourceCount& t) { return t.label == c.label; });
    if (it == totals->source_counts.end()) {
      totals->source_counts.push_back(c);
    } else {
      it->value += c.value;
    }
  }
}

void PrintSummary(const RunTotals& t, const std::string& quarantine_table, std::ostream& out) {
  const apply::ApplyCounts& c = t.counts;
  std::vector<std::pair<std::string, std::string>> lines = {
      {"batches", std::to_string(t.batches)},
      {"rows read", std::to_string(c.read)},
  };
  // Records the readers did not turn into rows (Debezium tombstones, SQL Server before-images).
  for (const sources::SourceCount& s : t.source_counts) {
    lines.emplace_back(s.label, std::to_string(s.value));
  }
  std::vector<std::pair<std::string, std::string>> rest = {
      {"rows applied", std::to_string(c.applied)},
      {"rows discarded", std::to_string(c.discarded) + "  (older than the key's state, or "
                                                       "duplicates)"},
      {"rows quarantined", std::to_string(c.quarantined) +
                               (c.quarantined > 0 ? "  (in " + quarantine_table + ", versions " +
                                                        VersionList(t.quarantine_versions) + ")"
                                                  : "")},
      {"sequence conflicts", std::to_string(c.sequence_conflicts)},
      {"target rows inserted", std::to_string(c.inserted)},
      {"target rows updated", std::to_string(c.updated)},
      {"target rows deleted", std::to_string(c.deleted)},
      {"tombstones purged", std::to_string(c.tombstones_purged)},
      {"versions written", VersionList(t.versions)},
  };
  lines.insert(lines.end(), rest.begin(), rest.end());
  size_t width = 0;
  for (const auto& [label, value] : lines) width = std::max(width, label.size());
  for (const auto& [label, value] : lines) {
    out << label << std::string(width + 2 - label.size(), ' ') << value << "\n";
  }
}

// `s`, naming `file` unless it already does.
Status InFile(const Status& s, const std::string& file) {
  return s.message().find(file) == std::string::npos ? s.WithContext(file) : s;
}

// An opened change file, with the batches read ahead to check the flow against (for sources
// whose columns only their batches tell).
struct OpenInput {
  std::unique_ptr<sources::ChangeSource> source;
  std::deque<change::ChangeBatch> read_ahead;
};

int RunApply(const CLI::App& cmd, const ApplyArgs& args) {
  auto format_or = FormatOption(args.format);
  if (!format_or.ok()) return UsageFail(format_or.status());
  const std::optional<sources::SourceFormat> format = *format_or;
  auto flow_or = FlowFromArgs(cmd, args, format);
  if (!flow_or.ok()) return UsageFail(flow_or.status());
  apply::FlowDefinition flow = std::move(flow_or).value();
  std::vector<InputFile> inputs;
  for (const std::string& file : args.files) {
    auto input = InputOf(file, format);
    if (!input.ok()) return UsageFail(input.status());
    inputs.push_back(std::move(*input));
  }
  auto known_or = KnownTypes(args, flow);
  if (!known_or.ok()) {
    return known_or.status().code() == StatusCode::kInvalidArgument ? UsageFail(known_or.status())
                                                                    : Fail(known_or.status());
  }
  std::vector<data::Field> known = std::move(known_or).value();

  // Every file is opened (and checked against the flow) before anything is written; each is
  // read with the types earlier files and the target fixed. A source without a fixed schema
  // (Debezium, SQL Server) is checked against its first batch with rows, read ahead here, and
  // each later batch is checked again, since a column may appear mid-stream.
  io::LocalFileSystem& fs = *io::LocalFileSystem::Instance();
  std::vector<OpenInput> opened;
  for (const InputFile& input : inputs) {
    sources::ChangeSourceOptions options;
    options.file_format = input.file_format;
    if (!known.empty()) options.schema = data::Schema(known);
    if (args.batch_size > 0) options.batch_rows = std::min<int64_t>(args.batch_size, 1 << 16);
    auto source = sources::OpenChangeSource(fs, input.path, input.format, options);
    if (!source.ok()) return Fail(InFile(source.status(), input.path));
    OpenInput in{std::move(*source), {}};
    const data::Schema* schema = in.source->schema();
    while (schema == nullptr) {
      auto next = in.source->Next();
      if (!next.ok()) return Fail(InFile(next.status(), input.path));
      if (!next->has_value()) break;
      in.read_ahead.push_back(std::move(**next));
      if (in.read_ahead.back().rows.num_rows() > 0) schema = &in.read_ahead.back().rows.schema();
    }
    if (schema != nullptr) {
      Status valid = apply::ValidateFlow(flow, *schema);
      if (!valid.ok()) return UsageFail(valid.WithContext(input.path));
      for (const data::Field& f : schema->fields()) {
        if (!HasField(known, f.name)) known.push_back({f.name, f.type, true});
      }
    }
    opened.push_back(std::move(in));
  }

  apply::ApplyOptions options;
  const std::string quarantine_table = flow.target + "_quarantine";
  options.quarantine_table = quarantine_table;
  auto applier_or = apply::Applier::Open(fs, flow, options);
  if (!applier_or.ok()) return Fail(applier_or.status());
  apply::Applier& applier = **applier_or;

  RunTotals totals;
  int64_t last_version = applier.version();
  int64_t last_quarantine_version = -1;
  if (IsDeltaTable(quarantine_table)) {
    auto q = delta::Snapshot::Load(fs, quarantine_table);
    if (!q.ok()) return Fail(q.status());
    last_quarantine_version = (*q)->version();
  }
  // Every version since the last call: the table's creation and a schema change are commits
  // of their own before a batch's.
  auto note_versions = [&] {
    for (int64_t v = last_version + 1; v <= applier.version(); ++v) totals.versions.push_back(v);
    last_version = std::max(last_version, applier.version());
  };
  // Exit code 2 for a flow that does not fit a later batch, 1 for the rest.
  auto fail_after = [&](const Status& s, bool usage = false) {
    note_versions();
    int code = usage ? UsageFail(s) : Fail(s);
    if (!totals.versions.empty()) {
      std::cerr << "cdclake: versions written before the error: " << VersionList(totals.versions)
                << "\n";
    }
    return code;
  };
  auto apply_batch = [&](const change::ChangeBatch& batch) -> Status {
    auto result = applier.Apply(batch);
    if (!result.ok()) {
      std::string files = FilesOf(batch);
      return files.empty() ? result.status() : result.status().WithContext("applying " + files);
    }
    ++totals.batches;
    totals.counts += result->counts;
    note_versions();
    if (result->quarantine_version) {
      // The quarantine table's creation is a commit of its own too.
      for (int64_t v = last_quarantine_version + 1; v <= *result->quarantine_version; ++v) {
        totals.quarantine_versions.push_back(v);
      }
      last_quarantine_version = *result->quarantine_version;
    }
    return Status::OK();
  };

  PendingRows pending;
  for (size_t i = 0; i < opened.size(); ++i) {
    const std::string& file = inputs[i].path;
    sources::ChangeSource& source = *opened[i].source;
    const bool fixed_schema = source.schema() != nullptr;
    while (true) {
      change::ChangeBatch batch;
      if (!opened[i].read_ahead.empty()) {
        batch = std::move(opened[i].read_ahead.front());
        opened[i].read_ahead.pop_front();
      } else {
        auto next = source.Next();
        if (!next.ok()) return fail_after(InFile(next.status(), file));
        if (!next->has_value()) break;
        batch = std::move(**next);
      }
      if (!fixed_schema && batch.rows.num_rows() > 0) {
        Status valid = apply::ValidateFlow(flow, batch.rows.schema());
        if (!valid.ok()) return fail_after(valid.WithContext(file), /*usage=*/true);
      }
      if (!pending.Accepts(batch.rows.schema())) {
        // A column's type changed mid-stream: the rows so far go as a batch of their own.
        if (!pending.empty()) {
          Status s = apply_batch(pending.Take(0));
          if (!s.ok()) return fail_after(s);
        }
        pending = PendingRows();
      }
      Status added = pending.Add(std::move(batch), file);
      if (!added.ok()) return fail_after(added);
      while (args.batch_size > 0 && pending.num_rows() >= args.batch_size) {
        Status s = apply_batch(pending.Take(args.batch_size));
        if (!s.ok()) return fail_after(s);
      }
    }
    AddSourceCounts(source.Counts(), &totals);
  }
  if (!pending.empty()) {
    Status s = apply_batch(pending.Take(0));
    if (!s.ok()) return fail_after(s);
  }
  PrintSummary(totals, quarantine_table, std::cout);
  return 0;
}

}  // namespace

Action AddApplyCommand(CLI::App& app) {
  auto args = std::make_shared<ApplyArgs>();
  CLI::App* cmd = app.add_subcommand(
      "apply",
      "Apply change files (CSV, JSONL, Debezium events, SQL Server CDC exports) to a Delta table "
      "as one AUTO CDC flow (SCD type 1 or 2)");
  cmd->add_option("--target", args->target, "the target table's folder (created on first use)")
      ->required();
  cmd->add_option("--keys", args->keys, "a[,b]: the key columns")->required();
  cmd->add_option("--sequence-by", args->sequence_by,
                  "COL or \"STRUCT(a, b)\": the column(s) that order a key's changes (default "
                  "for debezium and sqlserver: _seq)");
  cmd->add_option("--format", args->format,
                  "csv, jsonl, debezium or sqlserver (default: from each file's extension: .csv, "
                  ".jsonl, .json). Debezium and SQL Server rows carry _op, _seq, _source_ts_ms "
                  "and _source_table, left out of the target unless --columns lists them; a SQL "
                  "Server export is JSON Lines when named .jsonl or .json, else CSV");
  cmd->add_option("--schema", args->schema,
                  "\"userId INT, name STRING, ...\": types to read these columns as (others "
                  "are inferred, or the existing target's)");
  cmd->add_option("--delete-when", args->delete_when,
                  "a SQL condition marking a row as a delete, e.g. \"operation = 'DELETE'\" "
                  "(default for debezium and sqlserver: \"_op = 'd'\")");
  cmd->add_option("--truncate-when", args->truncate_when,
                  "a SQL condition marking a row as a truncate (SCD 1 only; default for "
                  "debezium: \"_op = 't'\")");
  cmd->add_option("--scd", args->scd, "1 (current state) or 2 (history)")->capture_default_str();
  cmd->add_option("--columns", args->columns, "a,b: only these source columns in the target");
  cmd->add_option("--except", args->except,
                  "a,b: every source column but these (and, for debezium and sqlserver, the _ "
                  "metadata columns)");
  cmd->add_option("--track-history", args->track_history,
                  "a,b: SCD 2 opens a new version only when these change");
  cmd->add_option("--track-history-except", args->track_history_except,
                  "a,b: SCD 2 opens a new version when any column but these changes");
  cmd->add_flag("--ignore-null-updates", args->ignore_null_updates,
                "an update's NULL leaves the target's value as it is");
  cmd->add_option("--ignore-null-updates-on", args->ignore_null_updates_on,
                  "a,b: the same, for these columns only");
  cmd->add_option("--ignore-null-updates-except", args->ignore_null_updates_except,
                  "a,b: the same, for every column but these");
  cmd->add_option("--batch-size", args->batch_size,
                  "N: apply N rows at a time, across files (default: all in one batch)");
  cmd->add_option("--property", args->properties,
                  "k=v: a table property for a new target (repeatable)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--flow-name", args->flow_name,
                  "the flow's name in commits and quarantine records (default: the target "
                  "folder's name)");
  cmd->add_option("files", args->files, "the change files, applied in this order")->required();
  return [cmd, args]() -> int { return RunApply(*cmd, *args); };
}

}  // namespace cdclake::cli
