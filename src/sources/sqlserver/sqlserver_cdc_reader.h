// SqlServerCdcReader: rows exported from SQL Server's CDC change tables (cdc.<instance>_CT, or
// the fn_cdc_get_all_changes functions) as CSV or JSON Lines, decoded into change batches
// (../shared/design/SOURCE-FORMATS.md §2).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "base/result.h"
#include "change/change_batch.h"
#include "data/schema.h"
#include "io/file_system.h"
#include "sources/files/change_file_reader.h"

namespace cdclake::sources {

struct SqlServerCdcOptions {
  FileFormat format = FileFormat::kCsv;
  /// Types for the captured columns (else inferred as ChangeFileReader does).
  std::optional<data::Schema> schema;
  int64_t batch_rows = 1 << 16;
  /// ChangeFileOptions::unterminated_last of the export.
  std::optional<RecordSpan> unterminated_last;
};

struct SqlServerCdcCounts {
  int64_t before_images = 0;  // __$operation 3 rows: counted, not applied
};

/// Decoded rows: the captured columns (in the export's order, without the `__$` columns), then
/// `_op` STRING (`d` for __$operation 1, `c` for 2, `u` for 4), `_seq` STRUCT(start_lsn STRING,
/// command_id BIGINT, seqval STRING, operation INT) — the LSNs as lower-case hex without 0x, so
/// that they sort bytewise; `command_id` NULL-free (0 when the export lacks it) — and
/// `_source_table` when a `__$source_table` column is present. For updates (4), captured
/// columns whose bit is clear in `__$update_mask` (bit i, counting from the last byte's least
/// significant bit, is the column of ordinal i+1 = the i-th captured column of the export, as
/// sys.fn_cdc_is_bit_set reads it; bits past the mask's length are clear) are marked in
/// ChangeBatch::unchanged. Their cells keep the exported value rather than NULL: an op 4 row is
/// the whole after image, and key columns an update did not touch have clear bits but must
/// still identify the row. No mark when the mask is NULL or absent, nor for 1 and 2.
/// Rows with __$operation 3 are dropped and counted; an unknown operation (including net
/// changes' 5), a malformed LSN (base64 included), mask or command id is a rejected record with
/// its reason. Open fails when __$operation, __$start_lsn or __$seqval is missing, or when a
/// captured column is named like an added one. A NULL `__$command_id` reads as 0.
class SqlServerCdcReader {
 public:
  static Result<std::unique_ptr<SqlServerCdcReader>> Open(io::FileSystem& fs, std::string path,
                                                          SqlServerCdcOptions options = {});
  virtual ~SqlServerCdcReader() = default;
  virtual Result<std::optional<change::ChangeBatch>> Next() = 0;
  virtual const SqlServerCdcCounts& counts() const = 0;
  /// The export's record not whole yet, and its unterminated last record (ChangeFileReader's).
  virtual std::optional<PendingRecord> Pending() const = 0;
  virtual std::optional<RecordSpan> UnterminatedLast() const = 0;
};

}  // namespace cdclake::sources
