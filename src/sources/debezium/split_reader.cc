// The two-halves Debezium reader: the first half of the file is decoded on a thread of its own
// while the calling thread decodes the second. The halves join up when every batch of both has
// one schema and the first half ends cleanly at the cut (no record left pending there); then
// reading the file front to back would have made the same rows, rejected records and positions
// (only where the batches end differs, and the runners do not depend on that). Otherwise the
// file is read front to back after all.
#include <algorithm>
#include <cstring>
#include <deque>
#include <limits>
#include <utility>
#include <vector>

#include "sources/debezium/debezium_range_internal.h"
#include "sources/files/file_halves_internal.h"

namespace cdclake::sources::internal {

namespace {

constexpr uint64_t kProbeBytes = 64 << 10;     // looked at for the file's first record
constexpr uint64_t kBoundaryWindow = 4 << 20;  // searched after the middle for a cut

void AddCounts(const DebeziumCounts& from, DebeziumCounts* to) {
  to->tombstones += from.tombstones;
  to->messages += from.messages;
  to->transaction_records += from.transaction_records;
  to->schema_changes += from.schema_changes;
}

class SplitReader final : public DebeziumReader {
 public:
  SplitReader(io::FileSystem& fs, std::string path, DebeziumOptions options, uint64_t cut,
              int64_t cut_line)
      : fs_(fs),
        path_(std::move(path)),
        options_(std::move(options)),
        cut_(cut),
        cut_line_(cut_line) {}

  Result<std::optional<change::ChangeBatch>> Next() override {
    if (!started_) {
      started_ = true;
      CDCLAKE_RETURN_IF_ERROR(DecodeHalves());
    }
    if (whole_ != nullptr) return whole_->Next();
    if (ready_.empty()) return std::optional<change::ChangeBatch>();
    change::ChangeBatch batch = std::move(ready_.front());
    ready_.pop_front();
    return std::optional<change::ChangeBatch>(std::move(batch));
  }
  const DebeziumCounts& counts() const override {
    return whole_ != nullptr ? whole_->counts() : counts_;
  }
  std::optional<PendingRecord> Pending() const override {
    if (whole_ != nullptr) return whole_->Pending();
    return second_ != nullptr ? second_->Pending() : std::nullopt;
  }
  std::optional<RecordSpan> UnterminatedLast() const override {
    if (whole_ != nullptr) return whole_->UnterminatedLast();
    return second_ != nullptr ? second_->UnterminatedLast() : std::nullopt;
  }
  /// Whether the halves joined up (tests).
  bool split() const { return started_ && whole_ == nullptr; }

 private:
  Status DecodeHalves() {
    constexpr uint64_t kEnd = std::numeric_limits<uint64_t>::max();
    std::shared_ptr<ObservationPass> pass = NewObservationPass();
    auto first = OpenDebeziumRange(fs_, path_, options_, 0, cut_, 1, pass);
    auto second = OpenDebeziumRange(fs_, path_, options_, cut_, kEnd, cut_line_, pass);
    if (first.ok() && second.ok()) {
      DecodedHalf a, b;
      ReadBothHalves(**first, **second, &a, &b);
      if (Joined(**first, a, b)) {
        AddCounts((*first)->counts(), &counts_);
        AddCounts((*second)->counts(), &counts_);
        for (auto& batch : a.batches) ready_.push_back(std::move(batch));
        for (auto& batch : b.batches) ready_.push_back(std::move(batch));
        second_ = std::move(*second);
        return Status::OK();
      }
    }
    // Front to back after all (an error, if any, then shows where it is).
    CDCLAKE_ASSIGN_OR_RETURN(whole_, OpenDebeziumRange(fs_, path_, options_, 0, kEnd, 1));
    return Status::OK();
  }

  static bool Joined(const DebeziumReader& first, const DecodedHalf& a, const DecodedHalf& b) {
    if (!a.status.ok() || !b.status.ok() || a.batches.empty()) return false;
    // A record left pending at the cut would have been read on past it.
    if (first.Pending().has_value() || first.UnterminatedLast().has_value()) return false;
    const data::Schema& schema = a.batches.front().rows.schema();
    for (const DecodedHalf* half : {&a, &b}) {
      for (const change::ChangeBatch& batch : half->batches) {
        if (!(batch.rows.schema() == schema)) return false;
      }
    }
    return true;
  }

  io::FileSystem& fs_;
  std::string path_;
  DebeziumOptions options_;
  uint64_t cut_ = 0;
  int64_t cut_line_ = 1;
  bool started_ = false;
  std::deque<change::ChangeBatch> ready_;
  DebeziumCounts counts_;
  std::unique_ptr<DebeziumReader> second_;  // for Pending and UnterminatedLast
  std::unique_ptr<DebeziumReader> whole_;   // the front-to-back reader, when used
};

// Where the second half starts: the first line after the middle that starts with '{' right
// after a line that ends with '}' (a record boundary in a file of one record per line), or 0.
Result<uint64_t> FindCut(io::RandomAccessFile& file, uint64_t size) {
  const uint64_t middle = size / 2;
  std::string window;
  CDCLAKE_RETURN_IF_ERROR(file.ReadAt(middle, std::min(kBoundaryWindow, size - middle), &window));
  for (size_t i = 1; i + 1 < window.size(); ++i) {
    if (window[i] != '\n' || window[i + 1] != '{') continue;
    size_t before = i - 1;
    if (window[before] == '\r' && before > 0) --before;
    if (window[before] == '}') return middle + i + 1;
  }
  return uint64_t{0};
}

}  // namespace

bool DecodedInHalves(const DebeziumReader& reader) {
  const auto* split = dynamic_cast<const SplitReader*>(&reader);
  return split != nullptr && split->split();
}

Result<std::unique_ptr<DebeziumReader>> OpenSplitDebeziumReader(io::FileSystem& fs,
                                                                const std::string& path,
                                                                const DebeziumOptions& options) {
  if (options.split_from_bytes <= 0) return std::unique_ptr<DebeziumReader>();
  CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<io::RandomAccessFile> file, fs.OpenRead(path));
  CDCLAKE_ASSIGN_OR_RETURN(uint64_t size, file->Size());
  if (size < static_cast<uint64_t>(options.split_from_bytes) ||
      size > static_cast<uint64_t>(kSplitUpToBytes) || size < 4) {
    return std::unique_ptr<DebeziumReader>();
  }
  // One record per line: the file starts with an object (after a byte order mark and blanks),
  // not an array.
  std::string head;
  CDCLAKE_RETURN_IF_ERROR(file->ReadAt(0, std::min(kProbeBytes, size), &head));
  size_t start = head.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;
  start = head.find_first_not_of(" \t\r\n", start);
  if (start == std::string::npos || head[start] != '{') return std::unique_ptr<DebeziumReader>();
  CDCLAKE_ASSIGN_OR_RETURN(uint64_t cut, FindCut(*file, size));
  if (cut == 0) return std::unique_ptr<DebeziumReader>();
  CDCLAKE_ASSIGN_OR_RETURN(int64_t lines, LineAtOffset(*file, cut));  // the second half's first
  return std::unique_ptr<DebeziumReader>(
      std::make_unique<SplitReader>(fs, path, options, cut, lines));
}

}  // namespace cdclake::sources::internal
