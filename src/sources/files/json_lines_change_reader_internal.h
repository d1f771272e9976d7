// JsonLinesChangeReader: the JSON Lines side of ChangeFileReader (see change_file_reader.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sources/files/change_batch_builder_internal.h"
#include "sources/files/change_file_reader.h"
#include "sources/files/chunked_input_internal.h"
#include "sources/files/line_cursor_internal.h"
#include "sources/files/record_tail_internal.h"
#include "sources/files/rescued_data_internal.h"
#include "sources/files/scratch_arena_internal.h"

namespace cdclake::sources::internal {

class JsonLinesChangeReader final : public ChangeFileReader {
 public:
  /// Reads the whole file once to learn its members (columns, in order of first appearance)
  /// and to infer the types the schema does not give. A large file is then decoded in two
  /// halves at once (NewTwoHalvesReader; a JSON line holds no raw line ending, so every line
  /// ending is a record boundary).
  static Result<std::unique_ptr<ChangeFileReader>> Open(io::FileSystem& fs, std::string path,
                                                        const ChangeFileOptions& options);

  const data::Schema& schema() const override { return builder_.schema(); }
  Result<std::optional<change::ChangeBatch>> Next() override;
  std::optional<PendingRecord> Pending() const override { return tail_.pending(); }
  std::optional<RecordSpan> UnterminatedLast() const override { return tail_.unterminated_last(); }

  /// `keys[i]` is the member name that feeds column i of `schema`. With `rescue`, the schema's
  /// last column is the rescued-data column (ChangeFileOptions::rescued_data_column).
  JsonLinesChangeReader(ChunkedInput input, data::Schema schema, std::vector<std::string> keys,
                        std::string path, int64_t batch_rows,
                        std::optional<RecordSpan> unterminated_last, bool rescue = false);

  /// For an input that is a range starting at line `line` of the file.
  void StartAtLine(int64_t line) { cursor_.StartAtLine(line); }

 private:
  struct KeyHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  using KeyIndex = std::unordered_map<std::string, int, KeyHash, std::equal_to<>>;

  // The column fed by member `name`, the `position`-th member of its line; -1 when none.
  int ColumnOf(std::string_view name, size_t position);
  // Converts one line into cells_; false with `*reason` set when it is rejected (and
  // ended_early_ when its JSON ends before the value does).
  bool ConvertLine(std::string_view line, std::string* reason);

  ChunkedInput input_;
  LineCursor cursor_;
  ChangeBatchBuilder builder_;
  std::vector<std::string> keys_;
  KeyIndex key_index_;
  std::vector<int> last_order_;  // column of each member position in the previous line
  std::vector<data::TypePtr> types_;
  std::vector<StagedCell> cells_;
  std::vector<uint8_t> seen_;
  ScratchArena arena_;
  ConversionError error_;
  RecordTail tail_;
  bool ended_early_ = false;
  std::string misfit_column_;  // set by ConvertLine when a value did not convert
  bool rescue_;
  RescuedData rescued_;
  bool done_ = false;
};

}  // namespace cdclake::sources::internal
