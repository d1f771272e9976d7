// FileInput: file lists, resume points and opened files for the flows that read change files.
#include <algorithm>

#include "apply/quarantine.h"
#include "delta/snapshot.h"
#include "pipeline/file_input_internal.h"
#include "sources/input_discovery.h"
#include "sql/schema_ddl.h"

namespace cdclake::pipeline {

namespace {

// An error when a file of `files` (sorted) sorting before the position's file was not there
// when the position was recorded: reading on would skip it.
Status CheckArrivalOrder(const io::FileSystem& fs, const std::vector<RunFile>& files,
                         const std::string& flow, const RecordedPosition& at) {
  const FlowPosition& p = at.position;
  std::vector<std::string> before, late;
  for (const RunFile& f : files) {
    if (f.path >= p.file) break;
    before.push_back(f.path);
    // Between the file read before the position's and the position's: new.
    if (p.previous_file.empty() || f.path > p.previous_file) late.push_back(f.path);
  }
  if (late.empty() && static_cast<int64_t>(before.size()) > p.files_before) {
    // More files sort before it than did: the ones written after the position was.
    for (const std::string& f : before) {
      auto info = fs.Stat(f);
      if (info.ok() && info->modification_time_ms > at.timestamp_ms) late.push_back(f);
    }
    if (late.empty()) {
      return Status::InvalidArgument(
          std::to_string(before.size()) + " files sort before " + p.file + " now, " +
          std::to_string(p.files_before) + " did when flow '" + flow +
          "' read it; files must arrive in name order (as Kafka Connect's sinks name them), so "
          "a file named before one already read would be skipped");
    }
  }
  if (late.empty()) return Status::OK();
  std::string more =
      late.size() > 1 ? " (and " + std::to_string(late.size() - 1) + " more such files)" : "";
  return Status::InvalidArgument(
      late[0] + more + " sorts before " + p.file + ", which flow '" + flow +
      "' has already read (up to byte " + std::to_string(p.offset) +
      "); files must arrive in name order (as Kafka Connect's sinks name them), so a file named "
      "before one already read would be skipped. Give it a name that sorts after " +
      p.file + ", or apply it by naming the file alone");
}

}  // namespace

// `s`, naming `file` unless it already does.
Status InFile(const Status& s, const std::string& file) {
  return s.message().find(file) == std::string::npos ? s.WithContext(file) : s;
}

// Drops the rows and rejected records of `batch` that start before `offset`.
void DropBefore(int64_t offset, change::ChangeBatch* batch) {
  if (offset <= 0) return;
  std::vector<change::RejectedRecord> rejected;
  for (change::RejectedRecord& r : batch->rejected) {
    if (r.position.byte_offset >= offset) rejected.push_back(std::move(r));
  }
  batch->rejected = std::move(rejected);
  const int64_t n = batch->rows.num_rows();
  std::vector<int64_t> keep;
  for (int64_t i = 0; i < n; ++i) {
    auto at = static_cast<size_t>(i);
    if (at >= batch->positions.size() || batch->positions[at].byte_offset >= offset) {
      keep.push_back(i);
    }
  }
  change::KeepRows(keep, batch);
}

// The next batch of `file`: read ahead, else from its source; nullopt at its end.
Result<std::optional<change::ChangeBatch>> NextBatch(OpenFile& file) {
  if (!file.read_ahead.empty()) {
    change::ChangeBatch batch = std::move(file.read_ahead.front());
    file.read_ahead.pop_front();
    return std::optional<change::ChangeBatch>(std::move(batch));
  }
  CDCLAKE_ASSIGN_OR_RETURN(std::optional<change::ChangeBatch> next, file.source->Next());
  if (next) DropBefore(file.drop_before, &*next);
  return next;
}

bool HasField(const std::vector<data::Field>& fields, const std::string& name) {
  return std::any_of(fields.begin(), fields.end(),
                     [&](const data::Field& f) { return f.name == name; });
}

// The types to read columns as before any file is opened: the options', then the existing
// target's for the columns it has (for SCD2 the sequence's from __START_AT), so a value that no
// longer parses as the column's type is quarantined instead of changing the type.
std::vector<data::Field> KnownTypes(const apply::FlowDefinition* flow,
                                    const std::optional<data::Schema>& schema,
                                    const delta::Snapshot* target) {
  std::vector<data::Field> known;
  if (schema) known = schema->fields();
  if (target == nullptr) return known;
  std::vector<data::Field> from_target;
  for (const data::Field& f : target->schema().fields()) {
    if (flow != nullptr && f.name == "__START_AT" && flow->scd_type == apply::ScdType::kType2) {
      if (flow->sequence_by.size() == 1 && !flow->sequence_is_struct) {
        from_target.push_back({flow->sequence_by[0], f.type, true});
      } else if (f.type->is_nested()) {
        for (const data::Field& member : f.type->fields()) from_target.push_back(member);
      }
      continue;
    }
    if (flow != nullptr && f.name == "__END_AT" && flow->scd_type == apply::ScdType::kType2)
      continue;
    from_target.push_back(f);
  }
  for (data::Field& f : from_target) {
    if (!HasField(known, f.name)) known.push_back({f.name, f.type, true});
  }
  // The sequence's type as the target's creation fixed it (also when the target does not keep
  // the column), so a later file never reads its sequence as another type.
  auto sequence_type = sql::ParseTypeName(target->Property("cdclake.sequenceType"));
  if (flow != nullptr && !flow->sequence_by.empty() && sequence_type.ok()) {
    const data::TypePtr& type = *sequence_type;
    if (flow->sequence_by.size() == 1 && !flow->sequence_is_struct) {
      if (!HasField(known, flow->sequence_by[0]))
        known.push_back({flow->sequence_by[0], type, true});
    } else if (type->is_nested()) {
      for (const data::Field& member : type->fields()) {
        if (!HasField(known, member.name)) known.push_back({member.name, member.type, true});
      }
    }
  }
  return known;
}

void AddSourceCounts(const std::vector<sources::SourceCount>& counts,
                     std::vector<sources::SourceCount>* totals) {
  for (const sources::SourceCount& c : counts) {
    auto it = std::find_if(totals->begin(), totals->end(),
                           [&](const sources::SourceCount& t) { return t.label == c.label; });
    if (it == totals->end()) {
      totals->push_back(c);
    } else {
      it->value += c.value;
    }
  }
}

Result<RunFiles> ListRunFiles(const io::FileSystem& fs, const std::vector<FlowInput>& inputs,
                              const std::string& unknown_format_advice) {
  RunFiles run;
  std::vector<std::pair<std::string, const FlowInput*>> found;
  run.stream = !inputs.empty();
  for (const FlowInput& input : inputs) {
    CDCLAKE_ASSIGN_OR_RETURN(sources::InputListing listing,
                             sources::DiscoverInputs(fs, input.pattern));
    run.stream = run.stream && !listing.named_file;
    for (std::string& f : listing.files) found.emplace_back(std::move(f), &input);
    run.patterns.push_back(input.pattern);
  }
  if (run.stream) {
    std::stable_sort(found.begin(), found.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    found.erase(std::unique(found.begin(), found.end(),
                            [](const auto& a, const auto& b) { return a.first == b.first; }),
                found.end());
  }
  for (const auto& [path, input] : found) {
    RunFile file{path};
    std::optional<sources::SourceFormat> by_name = sources::SourceFormatFromPath(path);
    if (input->format) {
      file.format = *input->format;
    } else if (by_name) {
      file.format = *by_name;
    } else {
      return Status::InvalidArgument(path + ": cannot tell its format from the extension; " +
                                     unknown_format_advice);
    }
    file.file_format = by_name == sources::SourceFormat::kJsonLines
                           ? sources::FileFormat::kJsonLines
                           : sources::FileFormat::kCsv;
    run.files.push_back(std::move(file));
  }
  return run;
}

Result<ResumePoint> FindResumePoint(const io::FileSystem& fs, const RunFiles& run,
                                    const std::string& target, const std::string& quarantine_table,
                                    const std::string& flow) {
  ResumePoint point;
  if (!run.stream) return point;
  CDCLAKE_ASSIGN_OR_RETURN(std::optional<RecordedPosition> at_target,
                           FindFlowPosition(fs, target, flow, run.patterns));
  CDCLAKE_ASSIGN_OR_RETURN(std::optional<RecordedPosition> at_quarantine,
                           FindFlowPosition(fs, quarantine_table, flow, run.patterns));
  std::optional<RecordedPosition> resume = at_target;
  if (at_quarantine) {
    const FlowPosition& q = at_quarantine->position;
    change::SourcePosition q_at{q.file, 0, q.offset};
    point.quarantined_before = q_at;
    // A batch that only quarantined moved no target position, so the quarantine commit's is
    // the later one. One whose target commit was to follow and is not there was cut short:
    // its rows are read again from the target's position (not quarantined twice).
    auto r_at = [&] {
      return change::SourcePosition{resume->position.file, 0, resume->position.offset};
    };
    if (!at_quarantine->target_commit && (!resume || apply::SortsBefore(r_at(), q_at))) {
      resume = at_quarantine;
    }
  }
  if (!resume) return point;
  CDCLAKE_RETURN_IF_ERROR(CheckArrivalOrder(fs, run.files, flow, *resume));
  const FlowPosition& p = resume->position;
  while (point.first < run.files.size() && run.files[point.first].path < p.file) ++point.first;
  if (point.first < run.files.size() && run.files[point.first].path == p.file) {
    point.drop_before = p.offset;
  }
  point.resumed_from = p;
  return point;
}

FlowPosition PositionAfter(const RunFiles& run, const ReadPoint& end) {
  const auto at = static_cast<size_t>(end.file_index);
  FlowPosition position;
  position.inputs = run.patterns;
  position.file = run.files[at].path;
  position.offset = end.byte_offset + 1;
  position.files_before = end.file_index;
  position.previous_file = at > 0 ? run.files[at - 1].path : "";
  return position;
}

}  // namespace cdclake::pipeline
