// The two-halves CSV reader: the file's parts are CsvChangeReaders over byte ranges.
#include "sources/files/csv_split_reader_internal.h"

#include <utility>

#include "sources/files/csv_change_reader_internal.h"
#include "sources/files/file_halves_internal.h"

namespace cdclake::sources::internal {

Result<std::unique_ptr<ChangeFileReader>> OpenSplitCsvReader(io::FileSystem& fs,
                                                             const std::string& path,
                                                             const data::Schema& schema,
                                                             const ChangeFileOptions& options,
                                                             bool last_is_required, uint64_t size) {
  CDCLAKE_ASSIGN_OR_RETURN(std::optional<FileCut> cut,
                           FindFileCut(fs, path, size, options.split_from_bytes));
  if (!cut) return std::unique_ptr<ChangeFileReader>();
  // Both parts know the earlier run's unterminated last record: the file may have grown far
  // past it since, so that it now lies in the first half.
  OpenFilePart open = [&fs, path, schema, options, last_is_required](
                          uint64_t begin, uint64_t end,
                          int64_t first_line) -> Result<std::unique_ptr<ChangeFileReader>> {
    CDCLAKE_ASSIGN_OR_RETURN(
        ChunkedInput input,
        ChunkedInput::OpenRange(fs, path, options.read_chunk_bytes, begin, end));
    auto reader = std::make_unique<CsvChangeReader>(
        std::move(input), schema, path, options.batch_rows, options.unterminated_last,
        last_is_required, !options.rescued_data_column.empty());
    if (begin == 0) {
      CDCLAKE_RETURN_IF_ERROR(reader->SkipHeader());
    } else {
      reader->StartAtLine(first_line);
    }
    return std::unique_ptr<ChangeFileReader>(std::move(reader));
  };
  return NewTwoHalvesReader(schema, std::move(open), *cut);
}

}  // namespace cdclake::sources::internal
