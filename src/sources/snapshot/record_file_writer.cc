// RecordFileWriter: blocks of varint-framed records, each block with its length and CRC-32.
#include "sources/snapshot/record_file_writer.h"

#include "base/bytes.h"

namespace cdclake::sources::snapshot {

Result<std::unique_ptr<RecordFileWriter>> RecordFileWriter::Open(io::FileSystem& fs,
                                                                 const std::string& path,
                                                                 std::string_view header,
                                                                 int64_t block_bytes) {
  CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<io::OutputStream> out, fs.OpenWrite(path));
  std::string head(kRecordFileMagic);
  AppendLE<uint32_t>(&head, static_cast<uint32_t>(header.size()));
  head.append(header);
  AppendLE<uint32_t>(&head, Crc32(header));
  CDCLAKE_RETURN_IF_ERROR(out->Append(head));
  return std::unique_ptr<RecordFileWriter>(
      new RecordFileWriter(std::move(out), block_bytes < 64 ? 64 : block_bytes));
}

Status RecordFileWriter::Add(std::string_view key, std::string_view rest, int64_t line) {
  AppendVarint(&block_, key.size());
  block_.append(key);
  AppendVarint(&block_, rest.size());
  block_.append(rest);
  AppendVarint(&block_, static_cast<uint64_t>(line < 0 ? 0 : line));
  ++records_;
  if (static_cast<int64_t>(block_.size()) >= block_bytes_) return FlushBlock();
  return Status::OK();
}

Status RecordFileWriter::FlushBlock() {
  if (block_.empty()) return Status::OK();
  std::string frame;
  AppendLE<uint32_t>(&frame, static_cast<uint32_t>(block_.size()));
  AppendLE<uint32_t>(&frame, Crc32(block_));
  CDCLAKE_RETURN_IF_ERROR(out_->Append(frame));
  CDCLAKE_RETURN_IF_ERROR(out_->Append(block_));
  block_.clear();
  return Status::OK();
}

Status RecordFileWriter::Finish() {
  CDCLAKE_RETURN_IF_ERROR(FlushBlock());
  std::string trailer;
  AppendLE<uint32_t>(&trailer, 0);  // a block of length 0 ends the blocks
  std::string count;
  AppendLE<uint64_t>(&count, static_cast<uint64_t>(records_));
  trailer.append(count);
  AppendLE<uint32_t>(&trailer, Crc32(count));
  CDCLAKE_RETURN_IF_ERROR(out_->Append(trailer));
  return out_->Close();
}

uint64_t RecordFileWriter::bytes_written() const {
  return out_->BytesWritten() + block_.size();
}

}  // namespace cdclake::sources::snapshot
