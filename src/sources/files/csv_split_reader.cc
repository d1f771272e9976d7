// The two-halves CSV reader: the first half decoded on a thread of its own while the calling
// thread decodes the second; joined when the first half ends cleanly at the cut.
#include "sources/files/csv_split_reader_internal.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <utility>
#include <vector>

#include "sources/files/csv_change_reader_internal.h"
#include "sources/files/file_halves_internal.h"

namespace cdclake::sources::internal {

namespace {

constexpr uint64_t kBoundaryWindow = 4 << 20;  // searched after the middle for a line ending

class SplitCsvReader final : public ChangeFileReader {
 public:
  SplitCsvReader(io::FileSystem& fs, std::string path, data::Schema schema,
                 ChangeFileOptions options, bool last_is_required, uint64_t cut, int64_t cut_line)
      : fs_(fs),
        path_(std::move(path)),
        schema_(std::move(schema)),
        options_(std::move(options)),
        last_is_required_(last_is_required),
        cut_(cut),
        cut_line_(cut_line) {}

  const data::Schema& schema() const override { return schema_; }

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
  std::optional<PendingRecord> Pending() const override {
    if (whole_ != nullptr) return whole_->Pending();
    return second_ != nullptr ? second_->Pending() : std::nullopt;
  }
  std::optional<RecordSpan> UnterminatedLast() const override {
    if (whole_ != nullptr) return whole_->UnterminatedLast();
    return second_ != nullptr ? second_->UnterminatedLast() : std::nullopt;
  }
  bool split() const { return started_ && whole_ == nullptr; }

 private:
  // A reader of the bytes [begin, end) of the file: after the header when `begin` is 0, else
  // from line `first_line` on; `tail` for the half that ends where the file does.
  Result<std::unique_ptr<CsvChangeReader>> OpenPart(uint64_t begin, uint64_t end,
                                                    int64_t first_line,
                                                    std::optional<RecordSpan> tail) {
    CDCLAKE_ASSIGN_OR_RETURN(
        ChunkedInput input,
        ChunkedInput::OpenRange(fs_, path_, options_.read_chunk_bytes, begin, end));
    auto reader = std::make_unique<CsvChangeReader>(std::move(input), schema_, path_,
                                                    options_.batch_rows, tail, last_is_required_);
    if (begin == 0) {
      CDCLAKE_RETURN_IF_ERROR(reader->SkipHeader());
    } else {
      reader->StartAtLine(first_line);
    }
    return reader;
  }

  Status DecodeHalves() {
    constexpr uint64_t kEnd = std::numeric_limits<uint64_t>::max();
    // Both halves know the earlier run's unterminated last record: the file may have grown far
    // past it since, so that it now lies in the first half.
    auto first = OpenPart(0, cut_, 1, options_.unterminated_last);
    auto second = OpenPart(cut_, kEnd, cut_line_, options_.unterminated_last);
    if (first.ok() && second.ok()) {
      DecodedHalf a, b;
      ReadBothHalves(**first, **second, &a, &b);
      // A quoted field open at the cut leaves the first half's last record pending; a record
      // without its line ending there would have been read on past the cut.
      if (a.status.ok() && b.status.ok() && !(*first)->Pending() && !(*first)->UnterminatedLast()) {
        for (auto& batch : a.batches) ready_.push_back(std::move(batch));
        for (auto& batch : b.batches) ready_.push_back(std::move(batch));
        second_ = std::move(*second);
        return Status::OK();
      }
    }
    // Front to back after all (an error, if any, then shows where it is).
    CDCLAKE_ASSIGN_OR_RETURN(whole_, OpenPart(0, kEnd, 1, options_.unterminated_last));
    return Status::OK();
  }

  io::FileSystem& fs_;
  std::string path_;
  data::Schema schema_;
  ChangeFileOptions options_;
  bool last_is_required_;
  uint64_t cut_ = 0;
  int64_t cut_line_ = 1;
  bool started_ = false;
  std::deque<change::ChangeBatch> ready_;
  std::unique_ptr<CsvChangeReader> second_;  // for Pending and UnterminatedLast
  std::unique_ptr<CsvChangeReader> whole_;   // the front-to-back reader, when used
};

}  // namespace

Result<std::unique_ptr<ChangeFileReader>> OpenSplitCsvReader(io::FileSystem& fs,
                                                             const std::string& path,
                                                             const data::Schema& schema,
                                                             const ChangeFileOptions& options,
                                                             bool last_is_required, uint64_t size) {
  if (options.split_from_bytes <= 0 || size < static_cast<uint64_t>(options.split_from_bytes) ||
      size > static_cast<uint64_t>(kCsvSplitUpToBytes) || size < 4) {
    return std::unique_ptr<ChangeFileReader>();
  }
  CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<io::RandomAccessFile> file, fs.OpenRead(path));
  const uint64_t middle = size / 2;
  std::string window;
  CDCLAKE_RETURN_IF_ERROR(file->ReadAt(middle, std::min(kBoundaryWindow, size - middle), &window));
  const size_t newline = window.find('\n');
  if (newline == std::string::npos || middle + newline + 1 >= size) {
    return std::unique_ptr<ChangeFileReader>();
  }
  const uint64_t cut = middle + newline + 1;
  CDCLAKE_ASSIGN_OR_RETURN(int64_t line, LineAtOffset(*file, cut));  // the second half's first
  return std::unique_ptr<ChangeFileReader>(
      std::make_unique<SplitCsvReader>(fs, path, schema, options, last_is_required, cut, line));
}

bool DecodedCsvInHalves(const ChangeFileReader& reader) {
  const auto* split = dynamic_cast<const SplitCsvReader*>(&reader);
  return split != nullptr && split->split();
}

}  // namespace cdclake::sources::internal
