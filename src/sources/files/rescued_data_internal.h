// RescuedData: the values of one record that did not convert to their column's type, kept as a
// JSON object (column -> the value as the file has it, plus "_file_path") in a STRING column of
// the row instead of rejecting the record, as Auto Loader's rescued data column does.
#pragma once

#include <string>
#include <string_view>

#include "json/json.h"
#include "sources/files/cell_conversion_internal.h"
#include "sources/files/scratch_arena_internal.h"

namespace cdclake::sources::internal {

class RescuedData {
 public:
  explicit RescuedData(std::string path) : path_(std::move(path)) {}

  /// Starts a record: nothing rescued.
  void Clear() { values_ = json::Json(); }
  /// Keeps `raw` for `column` (its cell becomes NULL).
  void Add(std::string_view column, std::string_view raw) {
    values_[std::string(column)] = std::string(raw);
  }
  /// The record's rescued-data cell: the JSON object in `arena`, or NULL when nothing was kept.
  void Stage(ScratchArena* arena, StagedCell* cell) {
    if (values_.is_null()) {
      cell->SetNull();
      return;
    }
    values_["_file_path"] = path_;
    const std::string text = json::Dump(values_);
    char* out = arena->Allocate(text.size());
    text.copy(out, text.size());
    cell->SetNull();
    cell->kind = StagedCell::Kind::kBytes;
    cell->bytes = std::string_view(out, text.size());
  }

 private:
  std::string path_;
  json::Json values_;
};

}  // namespace cdclake::sources::internal
