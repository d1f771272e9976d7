// ChangeFileReader::Open: checks the options and hands the file to the reader of its format.
#include "sources/files/change_file_reader.h"

#include "sources/files/csv_change_reader_internal.h"
#include "sources/files/json_lines_change_reader_internal.h"

namespace cdclake::sources {

Result<std::unique_ptr<ChangeFileReader>> ChangeFileReader::Open(io::FileSystem& fs,
                                                                 std::string path,
                                                                 ChangeFileOptions options) {
  if (options.batch_rows <= 0) {
    return Status::InvalidArgument("batch_rows must be positive, got " +
                                   std::to_string(options.batch_rows));
  }
  if (options.read_chunk_bytes <= 0) {
    return Status::InvalidArgument("read_chunk_bytes must be positive, got " +
                                   std::to_string(options.read_chunk_bytes));
  }
  switch (options.format) {
    case FileFormat::kCsv:
      return internal::CsvChangeReader::Open(fs, std::move(path), options);
    case FileFormat::kJsonLines:
      return internal::JsonLinesChangeReader::Open(fs, std::move(path), options);
  }
  return Status::InvalidArgument("unknown file format");
}

}  // namespace cdclake::sources
