// FileInput: file lists, resume points and opened files for the flows that read change files.
#include <algorithm>

#include "apply/quarantine.h"
#include "delta/snapshot.h"
#include "io/canonical_path.h"
#include "io/file_digest.h"
#include "pipeline/file_input_internal.h"
#include "pipeline/flow_checkpoint.h"
#include "sources/input_discovery.h"
#include "sql/schema_ddl.h"

namespace cdclake::pipeline {

namespace {

// Whether a file the ledger has is to be read on, skipped as done, or reported and skipped
// because it shrank or was rewritten under what was consumed.
enum class Seen { kReadOn, kDone, kChanged };

Seen Compare(const LedgerEntry& e, const io::FileInfo& now, std::string* why) {
  const auto size = static_cast<int64_t>(now.size);
  if (size < e.size) {
    *why = "shrank from " + std::to_string(e.size) + " to " + std::to_string(size) + " bytes";
    return Seen::kChanged;
  }
  if (size == e.size && now.modification_time_ms != e.mtime_ms) {
    *why = "was rewritten (still " + std::to_string(size) + " bytes, modified again)";
    return Seen::kChanged;
  }
  if (size == e.size && e.done) return Seen::kDone;
  return Seen::kReadOn;
}

// The named files of `run` that the ledger of the flow's last target commit has read whole, with
// the same size and digest now, are left out of it and named in `point->applied_before`; the
// ledger carries on from that commit's. Without such a commit, or its ledger, nothing changes.
Status LeaveOutNamedFilesAppliedWhole(const io::FileSystem& fs, RunFiles* run,
                                      const ResumeRequest& request, ResumePoint* point) {
  CDCLAKE_ASSIGN_OR_RETURN(
      std::optional<RecordedPosition> at_target,
      FindFlowPosition(fs, request.target, request.flow, request.target_snapshot.get()));
  if (!at_target || !at_target->position.ledger) return Status::OK();
  auto loaded =
      FileLedger::Load(fs, LedgerFolder(request.target, request.flow), *at_target->position.ledger);
  if (!loaded.ok()) return Status::OK();  // lost: named files are read whole, as always
  point->ledger = std::move(loaded).value();
  std::vector<RunFile> keep;
  for (RunFile& f : run->files) {
    const LedgerEntry* e = point->ledger.Find(f.path);
    if (e != nullptr && e->done && !e->digest.empty()) {
      auto now = fs.Stat(f.path);
      if (now.ok() && static_cast<int64_t>(now->size) == e->size) {
        auto digest = io::FileDigest(fs, f.path, now->size);
        if (digest.ok() && *digest == e->digest) {
          point->applied_before.push_back(
              f.path + ": applied whole by an earlier run of flow '" + request.flow +
              "' (version " + std::to_string(at_target->version) + ", " + std::to_string(e->size) +
              " bytes, the same bytes now): not read again");
          continue;
        }
      }
    }
    keep.push_back(std::move(f));
  }
  run->files = std::move(keep);
  return Status::OK();
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
    if (at >= batch->positions.size() || batch->positions.byte_offset(at) >= offset) {
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
                              const std::string& unknown_format_advice, bool named_file_streams) {
  RunFiles run;
  std::vector<std::pair<std::string, const FlowInput*>> found;
  run.stream = !inputs.empty();
  for (const FlowInput& input : inputs) {
    CDCLAKE_ASSIGN_OR_RETURN(std::string canonical, io::Canonical(fs, input.pattern));
    CDCLAKE_ASSIGN_OR_RETURN(sources::InputListing listing, sources::DiscoverInputs(fs, canonical));
    if (listing.named_file && !named_file_streams) {
      // A file named alone is read whole each run, without a position: it keeps its spelling.
      listing.files = {input.pattern};
    }
    run.stream = run.stream && !listing.named_file;
    for (std::string& f : listing.files) found.emplace_back(std::move(f), &input);
    run.patterns.push_back(input.pattern);
    run.source.push_back(std::move(canonical));
  }
  if (run.stream) {
    std::stable_sort(found.begin(), found.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    found.erase(std::unique(found.begin(), found.end(),
                            [](const auto& a, const auto& b) { return a.first == b.first; }),
                found.end());
  }
  for (const auto& [path, input] : found) {
    RunFile file;
    file.path = path;
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

Result<ResumePoint> FindResumePoint(const io::FileSystem& fs, RunFiles* run,
                                    const ResumeRequest& request) {
  ResumePoint point;
  point.ledger = FileLedger(LedgerFolder(request.target, request.flow));
  if (request.reset) return point;
  if (!run->stream) {
    CDCLAKE_RETURN_IF_ERROR(LeaveOutNamedFilesAppliedWhole(fs, run, request, &point));
    return point;
  }
  const std::string& flow = request.flow;
  const std::string table = request.table_name.empty() ? request.target : request.table_name;
  CDCLAKE_ASSIGN_OR_RETURN(
      std::optional<RecordedPosition> at_target,
      FindFlowPosition(fs, request.target, flow, request.target_snapshot.get()));
  CDCLAKE_ASSIGN_OR_RETURN(std::optional<RecordedPosition> at_quarantine,
                           FindFlowPosition(fs, request.quarantine_table, flow));
  for (auto* at : {&at_target, &at_quarantine}) {
    if (!*at) continue;
    FlowPosition& p = (*at)->position;
    CDCLAKE_RETURN_IF_ERROR(CheckSameSource(fs, p, run->source, flow, table));
    if (p.source.empty()) {
      // Recorded before sources were canonical: its files are spelled as its inputs were.
      CDCLAKE_ASSIGN_OR_RETURN(p.file, io::Canonical(fs, p.file));
    }
  }
  std::optional<RecordedPosition> resume = at_target;
  if (at_quarantine) {
    const FlowPosition& q = at_quarantine->position;
    change::SourcePosition q_at{q.file, 0, q.offset};
    point.quarantined_before = q_at;
    // A batch that only quarantined moved no target position, so the quarantine commit's is
    // the later one. One whose target commit was to follow and is not there was cut short:
    // its rows are read again from the target's position (not quarantined twice). Which is
    // later is told by batch numbers (positions of older versions: by file order).
    bool later = !resume;
    if (resume && q.batch > 0) {
      CDCLAKE_ASSIGN_OR_RETURN(int64_t batches, LastFlowBatch(fs, request.target, flow));
      later = q.batch > batches;
    } else if (resume) {
      later = apply::SortsBefore(
          change::SourcePosition{resume->position.file, 0, resume->position.offset}, q_at);
    }
    if (!at_quarantine->target_commit && later) resume = at_quarantine;
  }
  // Batches after those positions that changed nothing: not read again while both tables are
  // as they were then (FindUnchangedPosition).
  CDCLAKE_ASSIGN_OR_RETURN(std::optional<json::Json> unchanged,
                           FindUnchangedPosition(fs, request.target, request.quarantine_table, flow,
                                                 request.target_snapshot.get()));
  if (unchanged) {
    auto p = FlowPosition::FromJson(*unchanged);
    if (p.ok() && !p->source.empty() && CheckSameSource(fs, *p, run->source, flow, table).ok()) {
      RecordedPosition at;
      at.position = std::move(p).value();
      at.version = resume ? resume->version : -1;
      resume = std::move(at);
      point.keep_old_generations = true;
    }
  }
  if (!resume) return point;
  const FlowPosition& p = resume->position;
  point.resumed_from = p;
  std::vector<RunFile> keep;
  if (p.ledger) {
    auto loaded = FileLedger::Load(fs, LedgerFolder(request.target, flow), *p.ledger);
    if (!loaded.ok() && loaded.status().code() == StatusCode::kNotFound &&
        request.rereading_is_harmless) {
      // `_cdclake/` lost (or its ledger): every file is new again. An AUTO CDC target discards
      // what it applied already, so the table comes out the same; the run says so.
      point.warnings.push_back(
          "WARNING: flow '" + flow + "': its file ledger (" + LedgerFolder(request.target, flow) +
          ") is missing; every file of its source is read again (events " + table +
          " has applied already are discarded: its rows do not "
          "change)");
      point.ledger = FileLedger(LedgerFolder(request.target, flow));
      return point;
    }
    CDCLAKE_RETURN_IF_ERROR(loaded.status());
    point.ledger = std::move(loaded).value();
    for (RunFile& f : run->files) {
      const LedgerEntry* e = point.ledger.Find(f.path);
      if (e == nullptr) {
        keep.push_back(std::move(f));  // new, whatever its name sorts as
        continue;
      }
      auto now = fs.Stat(f.path);
      if (!now.ok()) continue;  // gone since it was listed
      std::string why;
      switch (Compare(*e, *now, &why)) {
        case Seen::kDone:
          break;
        case Seen::kChanged:
          point.warnings.push_back(
              "WARNING: " + f.path + " " + why + " after flow '" + flow + "' read " +
              std::to_string(e->consumed) +
              " bytes of it; it is not read again (a file already read must only grow). To "
              "read it whole, give it a new name");
          break;
        case Seen::kReadOn:
          f.drop_before = e->consumed;
          f.unterminated_last = e->unterminated_last;
          keep.push_back(std::move(f));
          break;
      }
    }
  } else {
    // A position from before the ledger: files sorting before its file are done, its file is
    // read on from its offset. They are entered in the ledger with the first batch.
    for (RunFile& f : run->files) {
      if (f.path > p.file) {
        keep.push_back(std::move(f));
        continue;
      }
      auto now = fs.Stat(f.path);
      if (!now.ok()) continue;
      LedgerEntry e;
      e.size = static_cast<int64_t>(now->size);
      e.mtime_ms = now->modification_time_ms;
      if (f.path < p.file) {
        e.consumed = e.size;
        e.done = true;
        point.seed[f.path] = e;
        continue;
      }
      f.drop_before = p.offset;
      keep.push_back(std::move(f));
    }
  }
  run->files = std::move(keep);
  return point;
}

FlowPosition PositionAfter(const RunFiles& run, const ReadPoint& end,
                           const std::optional<LedgerRef>& ledger) {
  const auto at = static_cast<size_t>(end.file_index);
  FlowPosition position;
  position.inputs = run.patterns;
  position.source = run.source;
  position.file = run.files[at].path;
  position.offset = end.byte_offset + 1;
  position.ledger = ledger;
  return position;
}

LedgerTracker::LedgerTracker(FileLedger ledger, std::unordered_map<std::string, LedgerEntry> seed,
                             bool digests)
    : ledger_(std::move(ledger)), seed_(std::move(seed)), digests_(digests) {}

void LedgerTracker::Opened(int64_t index, const RunFile& file, const io::FileSystem& fs) {
  Progress p;
  auto info = fs.Stat(file.path);
  if (info.ok()) {
    p.size = static_cast<int64_t>(info->size);
    p.mtime_ms = info->modification_time_ms;
    // A digest that cannot be taken is left out: the file is then read again next time. So is
    // one of a file over kDigestUpToBytes: the digest reads the file once more before it is
    // decoded, which for a large file not in the page cache costs as much as decoding it.
    if (digests_ && info->size <= kDigestUpToBytes) {
      auto digest = io::FileDigest(fs, file.path, info->size);
      if (digest.ok()) p.digest = std::move(digest).value();
    }
  }
  p.read_to = file.drop_before;
  open_[index] = p;
}

void LedgerTracker::Saw(int64_t index, const change::ChangeBatch& batch) {
  auto it = open_.find(index);
  if (it == open_.end()) return;
  for (size_t i = 0; i < batch.positions.size(); ++i) {
    it->second.read_to = std::max(it->second.read_to, batch.positions.byte_offset(i) + 1);
  }
  for (const change::RejectedRecord& r : batch.rejected) {
    it->second.read_to = std::max(it->second.read_to, r.position.byte_offset + 1);
  }
}

void LedgerTracker::Ended(int64_t index, const sources::ChangeSource& source) {
  auto it = open_.find(index);
  if (it == open_.end()) return;
  it->second.ended = true;
  it->second.unterminated_last = source.UnterminatedLast();
  if (auto pending = source.Pending()) {
    it->second.pending = true;
    it->second.pending_at = pending->byte_offset;
  }
}

Result<LedgerRef> LedgerTracker::Record(io::FileSystem& fs, const std::vector<RunFile>& files,
                                        const ReadPoint& end, int64_t first_waiting) {
  std::unordered_map<std::string, LedgerEntry> changed = std::move(seed_);
  seed_.clear();
  for (auto it = open_.begin(); it != open_.end() && it->first <= end.file_index;) {
    const Progress& p = it->second;
    const bool done = p.ended && (first_waiting < 0 || it->first < first_waiting);
    LedgerEntry e;
    e.size = p.size;
    e.mtime_ms = p.mtime_ms;
    e.digest = p.digest;
    // A file that ended in a pending (not yet whole) record is never "read whole": its writer
    // may finish it between the reader's look and the size taken here, and a file that then
    // keeps that size would be skipped for ever. The next run reads on from the record.
    e.done = done && !p.pending;
    if (done) {
      // A pending last record is not consumed: it is read once complete.
      e.consumed = p.pending ? p.pending_at : p.read_to;
      e.unterminated_last = p.unterminated_last;
    } else {
      e.consumed = it->first == end.file_index ? end.byte_offset + 1 : p.read_to;
    }
    changed[files[static_cast<size_t>(it->first)].path] = e;
    it = done ? open_.erase(it) : std::next(it);
  }
  return ledger_.Record(fs, changed);
}
}  // namespace cdclake::pipeline
