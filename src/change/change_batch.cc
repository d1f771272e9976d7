// ChangeBatch row selection: the rows and everything that follows them, kept together.
#include "change/change_batch.h"

#include <utility>

namespace cdclake::change {

namespace {

// `v` (one entry per row, or empty) reduced to the entries of `keep`.
template <typename T>
void KeepEntries(const std::vector<int64_t>& keep, std::vector<T>* v) {
  if (v->empty()) return;
  std::vector<T> kept;
  kept.reserve(keep.size());
  for (int64_t i : keep) {
    if (static_cast<size_t>(i) < v->size()) kept.push_back(std::move((*v)[static_cast<size_t>(i)]));
  }
  *v = std::move(kept);
}

}  // namespace

void KeepRows(const std::vector<int64_t>& keep, ChangeBatch* batch) {
  if (static_cast<int64_t>(keep.size()) == batch->rows.num_rows()) return;
  std::vector<data::Column> columns;
  for (const data::Column& c : batch->rows.columns()) columns.push_back(c.Take(keep));
  data::RecordBatch rows(batch->rows.schema(), std::move(columns));
  rows.set_num_rows(static_cast<int64_t>(keep.size()));
  batch->rows = std::move(rows);
  batch->positions.Keep(keep);
  batch->raw.Keep(keep);
  for (std::vector<uint8_t>& marks : batch->unchanged) KeepEntries(keep, &marks);
}

}  // namespace cdclake::change
