// RecordFileReader: block-at-a-time reading with CRC-32 checks.
#include "sources/snapshot/record_file_reader.h"

#include "base/bytes.h"

namespace cdclake::sources::snapshot {

namespace {
constexpr std::string_view kMagic = "CDCLREC1";
}  // namespace

Result<std::unique_ptr<RecordFileReader>> RecordFileReader::Open(const io::FileSystem& fs,
                                                                 const std::string& path) {
  CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<io::RandomAccessFile> file, fs.OpenRead(path));
  CDCLAKE_ASSIGN_OR_RETURN(uint64_t size, file->Size());
  std::unique_ptr<RecordFileReader> reader(new RecordFileReader(std::move(file), size));
  if (size < kMagic.size() + 8) return reader->Corrupt("file too short for a header");
  std::string head;
  CDCLAKE_RETURN_IF_ERROR(reader->file_->ReadAt(0, kMagic.size() + 4, &head));
  if (std::string_view(head).substr(0, kMagic.size()) != kMagic) {
    return reader->Corrupt("not a cdclake record file (bad magic)");
  }
  const uint32_t header_size = LoadLE<uint32_t>(head.data() + kMagic.size());
  const uint64_t header_at = kMagic.size() + 4;
  if (header_at + header_size + 4 > size) return reader->Corrupt("header runs past the end");
  CDCLAKE_RETURN_IF_ERROR(reader->file_->ReadAt(header_at, header_size + 4, &head));
  reader->header_ = head.substr(0, header_size);
  if (LoadLE<uint32_t>(head.data() + header_size) != Crc32(reader->header_)) {
    return reader->Corrupt("header checksum mismatch");
  }
  reader->offset_ = header_at + header_size + 4;
  return reader;
}

Status RecordFileReader::Corrupt(const std::string& what) const {
  return Status::Corrupt(file_->path() + ": " + what + " (at byte " + std::to_string(offset_) +
                         ")");
}

Status RecordFileReader::LoadBlock() {
  std::string frame;
  if (offset_ + 4 > size_) return Corrupt("truncated: no end-of-blocks marker");
  CDCLAKE_RETURN_IF_ERROR(file_->ReadAt(offset_, 4, &frame));
  const uint32_t length = LoadLE<uint32_t>(frame.data());
  if (length == 0) {
    if (offset_ + 4 + 12 != size_) return Corrupt("bad trailer length");
    CDCLAKE_RETURN_IF_ERROR(file_->ReadAt(offset_ + 4, 12, &frame));
    const std::string_view count = std::string_view(frame).substr(0, 8);
    if (LoadLE<uint32_t>(frame.data() + 8) != Crc32(count)) return Corrupt("trailer checksum");
    if (LoadLE<uint64_t>(count.data()) != static_cast<uint64_t>(records_)) {
      return Corrupt("trailer says " + std::to_string(LoadLE<uint64_t>(count.data())) +
                     " records, read " + std::to_string(records_));
    }
    ended_ = true;
    block_.clear();
    block_pos_ = 0;
    return Status::OK();
  }
  if (offset_ + 8 + length > size_) return Corrupt("truncated block");
  CDCLAKE_RETURN_IF_ERROR(file_->ReadAt(offset_ + 4, 4, &frame));
  const uint32_t crc = LoadLE<uint32_t>(frame.data());
  CDCLAKE_RETURN_IF_ERROR(file_->ReadAt(offset_ + 8, length, &block_));
  if (Crc32(block_) != crc) return Corrupt("block checksum mismatch");
  offset_ += 8 + length;
  block_pos_ = 0;
  return Status::OK();
}

Result<bool> RecordFileReader::Next(Record* record) {
  while (block_pos_ >= block_.size()) {
    if (ended_) return false;
    CDCLAKE_RETURN_IF_ERROR(LoadBlock());
  }
  ByteReader in(std::string_view(block_).substr(block_pos_));
  CDCLAKE_ASSIGN_OR_RETURN(uint64_t key_size, in.ReadVarint());
  CDCLAKE_ASSIGN_OR_RETURN(record->key, in.ReadBytes(key_size));
  CDCLAKE_ASSIGN_OR_RETURN(uint64_t rest_size, in.ReadVarint());
  CDCLAKE_ASSIGN_OR_RETURN(record->rest, in.ReadBytes(rest_size));
  CDCLAKE_ASSIGN_OR_RETURN(uint64_t line, in.ReadVarint());
  record->line = static_cast<int64_t>(line);
  block_pos_ += in.position();
  ++records_;
  return true;
}

}  // namespace cdclake::sources::snapshot
