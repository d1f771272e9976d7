// ChangeBatchBuilder: assembles the batches both file readers return — converted rows with
// their positions and raw text, and rejected records — plus the schema matching they share.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "change/change_batch.h"
#include "data/schema.h"
#include "sources/files/cell_conversion_internal.h"

namespace cdclake::sources::internal {

/// The field of `schema` named `name`: an exact match first, else one that differs only in
/// ASCII case; nullptr when none (or no schema).
const data::Field* FindSchemaField(const std::optional<data::Schema>& schema,
                                   std::string_view name);

/// Whether `name` is one of `names`, exactly or ignoring ASCII case.
bool NamedIn(const std::vector<std::string>& names, std::string_view name);

/// Fails with kInvalidArgument when two columns of `schema` share a name.
Status CheckUniqueNames(const data::Schema& schema, const std::string& path);

class ChangeBatchBuilder {
 public:
  /// REQUIRES: batch_rows > 0.
  ChangeBatchBuilder(data::Schema schema, std::string path, int64_t batch_rows)
      : schema_(std::move(schema)), path_(std::move(path)), batch_rows_(batch_rows) {}

  /// Rows leave their text in the file, read back through `source` when needed, instead of
  /// keeping a copy (null: copies).
  void set_text_source(std::shared_ptr<const change::RowTextSource> source) {
    text_source_ = std::move(source);
  }

  const data::Schema& schema() const { return schema_; }

  /// Begins an empty batch.
  void Start();
  bool full() const { return rows_ >= batch_rows_; }
  bool empty() const { return rows_ == 0 && batch_.rejected.empty(); }

  /// Appends one row: cells[i] goes to column i; the record is [offset, end) in the file, its
  /// text `raw` the bytes from `offset` on.
  void AddRow(const std::vector<StagedCell>& cells, std::string_view raw, int64_t line,
              uint64_t offset, uint64_t end);
  /// Rejects one record; `misfit_column` names the column whose value did not convert, when
  /// that is the reason.
  void Reject(std::string_view raw, int64_t line, uint64_t offset, uint64_t end, std::string reason,
              std::string misfit_column = {});

  /// The batch built since Start().
  change::ChangeBatch Finish();

 private:
  change::SourcePosition Position(int64_t line, uint64_t offset, uint64_t end) const {
    return change::SourcePosition{path_, line, static_cast<int64_t>(offset),
                                  static_cast<int64_t>(end)};
  }

  data::Schema schema_;
  std::string path_;
  int64_t batch_rows_;
  int64_t rows_ = 0;
  std::shared_ptr<const change::RowTextSource> text_source_;
  change::ChangeBatch batch_;
  std::vector<double> bytes_per_row_;  // string bytes per row of the last batch, by column
};

}  // namespace cdclake::sources::internal
