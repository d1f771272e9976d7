// CsvChangeReader: the CSV side of ChangeFileReader (see change_file_reader.h for the contract).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sources/files/change_batch_builder_internal.h"
#include "sources/files/change_file_reader.h"
#include "sources/files/chunked_input_internal.h"
#include "sources/files/csv_record_splitter_internal.h"
#include "sources/files/record_tail_internal.h"
#include "sources/files/rescued_data_internal.h"
#include "sources/files/scratch_arena_internal.h"

namespace cdclake::sources::internal {

class CsvChangeReader final : public ChangeFileReader {
 public:
  /// Reads the header and, when a column has no schema type, the whole file once to infer it.
  static Result<std::unique_ptr<ChangeFileReader>> Open(io::FileSystem& fs, std::string path,
                                                        const ChangeFileOptions& options);

  const data::Schema& schema() const override { return builder_.schema(); }
  Result<std::optional<change::ChangeBatch>> Next() override;
  std::optional<PendingRecord> Pending() const override { return tail_.pending(); }
  std::optional<RecordSpan> UnterminatedLast() const override { return tail_.unterminated_last(); }

  /// `last_is_required`: the last column is a SEQUENCE BY or other required column
  /// (ChangeFileOptions::required_columns): an empty one there is cut short. Then SkipHeader, or
  /// StartAtLine for an input that is a range starting on a record boundary.
  /// With `rescue`, the schema's last column is the rescued-data column
  /// (ChangeFileOptions::rescued_data_column), not one of the file's.
  CsvChangeReader(ChunkedInput input, data::Schema schema, std::string path, int64_t batch_rows,
                  std::optional<RecordSpan> unterminated_last, bool last_is_required,
                  bool rescue = false);

  /// Positions the reader on the first record after the header.
  Status SkipHeader();
  /// The input's first record is on line `line` of the file (a range's reader).
  void StartAtLine(int64_t line) { splitter_.StartAt(line); }

 private:
  // Whether record_, which the file ends in without a line ending, is not whole yet.
  bool NotWholeYet(size_t num_columns);
  // Rejects or adds record_ (converted into cells_, or failing with `reason`), noting it.
  void Reject(std::string reason, std::string misfit_column = {});

  ChunkedInput input_;
  CsvRecordSplitter splitter_;
  ChangeBatchBuilder builder_;
  std::vector<data::TypePtr> types_;
  std::vector<StagedCell> cells_;
  CsvRecord record_;
  ScratchArena arena_;
  ConversionError error_;
  RecordTail tail_;
  bool last_is_required_;
  bool rescue_;
  RescuedData rescued_;
  bool done_ = false;
};

}  // namespace cdclake::sources::internal
