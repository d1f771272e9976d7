// FileLedger: tab-separated ledger files (path, size, mtime, consumed, done, unterminated span,
// digest), loaded base then deltas, written as new files only.
#include "pipeline/file_ledger.h"

#include <algorithm>
#include <charconv>

#include "base/strings.h"
#include "base/uuid.h"

namespace cdclake::pipeline {

namespace {

// Version 2 added the digest column; files of version 1 (seven columns) are still read.
constexpr std::string_view kHeader = "cdclake-file-ledger\t2\n";
constexpr std::string_view kHeaderV1 = "cdclake-file-ledger\t1\n";
// More deltas than this, or more delta entries than the base holds, and the next write is a
// new base: a load reads at most about twice the entries there are.
constexpr size_t kMaxDeltas = 16;
// Generations (a base and the deltas written on it) kept below the one a committed position
// names: a table restored a little way back still finds its ledger. Older ones are deleted
// when a run resumes from a committed position (never while batches record refs that may not
// be committed: a run of batches that change nothing moves no position however many bases
// it writes).
constexpr int64_t kKeptGenerations = 2;

// The generation a ledger file belongs to: "g<N>-<uuid>.<kind>.tsv"; 0 for names without it
// (written before generations were counted).
int64_t GenerationOf(std::string_view name) {
  if (name.size() < 2 || name[0] != 'g') return 0;
  int64_t n = 0;
  size_t i = 1;
  for (; i < name.size() && name[i] >= '0' && name[i] <= '9'; ++i) n = n * 10 + (name[i] - '0');
  return i > 1 && i < name.size() && name[i] == '-' ? n : 0;
}

// Paths may hold any byte but '\0': tab, newline and '%' are written as %09, %0A, %25.
void AppendEscaped(std::string_view path, std::string* out) {
  for (char c : path) {
    if (c == '\t') {
      out->append("%09");
    } else if (c == '\n') {
      out->append("%0A");
    } else if (c == '%') {
      out->append("%25");
    } else {
      out->push_back(c);
    }
  }
}

std::string Unescaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      std::string_view code = text.substr(i + 1, 2);
      if (code == "09" || code == "0A" || code == "25") {
        out.push_back(code == "09" ? '\t' : code == "0A" ? '\n' : '%');
        i += 2;
        continue;
      }
    }
    out.push_back(text[i]);
  }
  return out;
}

bool ParseInt(std::string_view text, int64_t* out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

bool LedgerEntry::operator==(const LedgerEntry& o) const {
  auto span = [](const std::optional<sources::RecordSpan>& s) {
    return s ? std::pair{s->byte_offset, s->byte_end} : std::pair<int64_t, int64_t>{-1, -1};
  };
  return size == o.size && mtime_ms == o.mtime_ms && consumed == o.consumed && done == o.done &&
         span(unterminated_last) == span(o.unterminated_last) && digest == o.digest;
}

json::Json LedgerRef::ToJson() const {
  return json::Json{{"files", files}};
}

Result<LedgerRef> LedgerRef::FromJson(const json::Json& value) {
  LedgerRef ref;
  if (!value.is_object() || !value.contains("files") || !value["files"].is_array()) {
    return Status::Corrupt("a flow position's ledger is not {\"files\": [...]}");
  }
  for (const json::Json& f : value["files"]) {
    if (!f.is_string()) return Status::Corrupt("a flow position's ledger file is not a string");
    ref.files.push_back(f.get<std::string>());
  }
  return ref;
}

std::string LedgerFolder(const std::string& table_root, const std::string& flow) {
  return io::JoinPath(table_root, "_cdclake/ledger/" + flow);
}

Result<FileLedger> FileLedger::Load(const io::FileSystem& fs, std::string folder,
                                    const LedgerRef& ref) {
  FileLedger ledger(std::move(folder));
  for (size_t i = 0; i < ref.files.size(); ++i) {
    const int64_t before = static_cast<int64_t>(ledger.entries_.size());
    CDCLAKE_RETURN_IF_ERROR(ledger.ReadFile(fs, ref.files[i]));
    if (i == 0) {
      ledger.base_entries_ = static_cast<int64_t>(ledger.entries_.size()) - before;
    }
  }
  ledger.ref_ = ref;
  if (!ref.files.empty()) ledger.generation_ = GenerationOf(ref.files[0]);
  return ledger;
}

Status FileLedger::ReadFile(const io::FileSystem& fs, const std::string& name) {
  const std::string path = io::JoinPath(folder_, name);
  auto content = fs.ReadFile(path);
  if (!content.ok()) {
    return content.status().WithContext(
        "the file ledger that the flow's position names is not readable; it lists the files "
        "the flow has read, and without it every file would be read again. Restore it, or "
        "refresh the table in full");
  }
  std::string_view text = *content;
  const bool v1 = text.substr(0, kHeaderV1.size()) == kHeaderV1;
  if (!v1 && text.substr(0, kHeader.size()) != kHeader) {
    return Status::Corrupt(path + ": not a cdclake file ledger (its first line is wrong)");
  }
  const size_t columns = v1 ? 7 : 8;
  size_t at = v1 ? kHeaderV1.size() : kHeader.size();
  int64_t line_no = 1;
  int64_t entries = 0;
  while (at < text.size()) {
    ++line_no;
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) {
      return Status::Corrupt(path + ": line " + std::to_string(line_no) + " is cut short");
    }
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    std::string_view fields[8];
    size_t n = 0, from = 0;
    while (n < columns) {
      size_t tab = line.find('\t', from);
      fields[n++] =
          line.substr(from, tab == std::string_view::npos ? line.size() - from : tab - from);
      if (tab == std::string_view::npos) break;
      from = tab + 1;
    }
    LedgerEntry e;
    int64_t done = 0, u_start = -1, u_end = -1;
    if (n != columns || !ParseInt(fields[1], &e.size) || !ParseInt(fields[2], &e.mtime_ms) ||
        !ParseInt(fields[3], &e.consumed) || !ParseInt(fields[4], &done) ||
        !ParseInt(fields[5], &u_start) || !ParseInt(fields[6], &u_end)) {
      return Status::Corrupt(path + ": line " + std::to_string(line_no) +
                             " is not path, size, mtime, consumed, done, span start, span end" +
                             (v1 ? "" : ", digest"));
    }
    if (!v1 && fields[7] != "-") e.digest = std::string(fields[7]);
    e.done = done != 0;
    if (u_start >= 0) e.unterminated_last = sources::RecordSpan{u_start, u_end};
    entries_[Unescaped(fields[0])] = e;
    ++entries;
  }
  delta_entries_ += entries;
  return Status::OK();
}

const LedgerEntry* FileLedger::Find(const std::string& path) const {
  auto it = entries_.find(path);
  return it == entries_.end() ? nullptr : &it->second;
}

Result<std::string> FileLedger::WriteFile(
    io::FileSystem& fs, const std::string& kind,
    const std::unordered_map<std::string, LedgerEntry>& entries) {
  std::string out(kHeader);
  out.reserve(kHeader.size() + entries.size() * 96);
  for (const auto& [path, e] : entries) {
    AppendEscaped(path, &out);
    out += '\t' + std::to_string(e.size) + '\t' + std::to_string(e.mtime_ms) + '\t' +
           std::to_string(e.consumed) + '\t' + (e.done ? "1" : "0") + '\t' +
           std::to_string(e.unterminated_last ? e.unterminated_last->byte_offset : -1) + '\t' +
           std::to_string(e.unterminated_last ? e.unterminated_last->byte_end : -1) + '\t' +
           (e.digest.empty() ? std::string("-") : e.digest) + '\n';
  }
  CDCLAKE_ASSIGN_OR_RETURN(std::string id, NewUuid());
  std::string name = "g" + std::to_string(generation_) + "-" + id + "." + kind + ".tsv";
  CDCLAKE_RETURN_IF_ERROR(fs.PutIfAbsent(io::JoinPath(folder_, name), out));
  return name;
}

void FileLedger::DeleteOldGenerations(io::FileSystem& fs) const {
  // Best effort: a file left behind costs space, never correctness (no kept ref names it).
  auto listed = fs.List(folder_);
  if (!listed.ok()) return;
  for (const io::FileInfo& f : *listed) {
    const std::string name = f.path.substr(f.path.find_last_of('/') + 1);
    if (!f.is_directory && EndsWith(name, ".tsv") &&
        GenerationOf(name) < generation_ - kKeptGenerations) {
      (void)fs.Delete(f.path);
    }
  }
}

Result<LedgerRef> FileLedger::Record(io::FileSystem& fs,
                                     const std::unordered_map<std::string, LedgerEntry>& changed) {
  if (changed.empty()) return ref_;
  for (const auto& [path, e] : changed) entries_[path] = e;
  const int64_t added = static_cast<int64_t>(changed.size());
  const bool rebase =
      ref_.files.empty() || ref_.files.size() > kMaxDeltas ||
      delta_entries_ - base_entries_ + added > std::max<int64_t>(base_entries_, 256);
  if (rebase) {
    ++generation_;
    CDCLAKE_ASSIGN_OR_RETURN(std::string name, WriteFile(fs, "base", entries_));
    ref_.files = {name};
    base_entries_ = delta_entries_ = static_cast<int64_t>(entries_.size());
  } else {
    CDCLAKE_ASSIGN_OR_RETURN(std::string name, WriteFile(fs, "delta", changed));
    ref_.files.push_back(name);
    delta_entries_ += added;
  }
  return ref_;
}

}  // namespace cdclake::pipeline
