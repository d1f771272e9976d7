// ParquetChangeReader: change rows stored as a Parquet file (plain columns, among them the
// operation and sequence columns) into change batches, one row group at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "change/change_batch.h"
#include "data/schema.h"
#include "io/file_system.h"
#include "sources/files/change_file_reader.h"

namespace cdclake::parquet {
class FileReader;
}  // namespace cdclake::parquet

namespace cdclake::sources {

struct ParquetChangeOptions {
  /// Types to read columns as. A file column whose type differs is widened when that loses
  /// nothing (a narrower integer to a wider one, FLOAT to DOUBLE, a decimal to one of the same
  /// scale and a larger precision, BINARY to STRING); any other difference fails Open with an
  /// error naming the file and the column. Columns the schema does not name keep the file's
  /// type; schema columns missing from the file are absent from the batch.
  std::optional<data::Schema> schema;
  /// Rows per batch returned by Next (the last of each row group may be shorter).
  int64_t batch_rows = 1 << 16;
};

/// Reads one Parquet file of change rows with the engine's own Parquet reader, a row group at a
/// time, each cut into batches of at most `batch_rows` rows (a batch never spans two row
/// groups). Column names match schema fields exactly, else ignoring ASCII case, and the batch
/// uses the schema's name; every batch field is nullable.
///
/// Positions: `file` is the path; `line` is the row's number in the file, 1-based; and, since a
/// Parquet row has no byte offset of its own, `byte_offset` is the row's ordinal in the file
/// (0-based: line - 1). It grows with every row, so a resume may skip the rows whose ordinal is
/// below the one it saved. `raw` is empty for every row. A file that does not decode is an
/// error of Next (Parquet has no per-record rejection).
class ParquetChangeReader final : public ChangeFileReader {
 public:
  static Result<std::unique_ptr<ParquetChangeReader>> Open(const io::FileSystem& fs,
                                                           const std::string& path,
                                                           ParquetChangeOptions options = {});
  ~ParquetChangeReader() override;

  const data::Schema& schema() const override { return schema_; }
  Result<std::optional<change::ChangeBatch>> Next() override;

 private:
  // How column i of the file becomes column i of a batch.
  enum class Cast { kNone, kRetype, kWidenInteger, kFloatToDouble };

  ParquetChangeReader(std::unique_ptr<parquet::FileReader> file, std::string path,
                      data::Schema schema, std::vector<Cast> casts, int64_t batch_rows);
  // Reads the next non-empty row group into group_ (false at the end of the file).
  Result<bool> LoadRowGroup();

  std::unique_ptr<parquet::FileReader> file_;
  std::string path_;
  data::Schema schema_;
  std::vector<Cast> casts_;  // per column
  int64_t batch_rows_;
  int next_group_ = 0;
  data::RecordBatch group_;      // the row group being cut into batches
  int64_t group_rows_ = 0;       // its rows
  int64_t group_first_row_ = 0;  // ordinal of its first row in the file
  int64_t group_offset_ = 0;     // its rows already returned
};

}  // namespace cdclake::sources
