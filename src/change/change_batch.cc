// ChangeBatch row selection: the rows and everything that follows them, kept together.
#include "change/change_batch.h"

#include <algorithm>
#include <iterator>
#include <numeric>
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

ChangeBatch TakeFrontRows(int64_t n, ChangeBatch* batch) {
  const int64_t rows = batch->rows.num_rows();
  n = std::clamp<int64_t>(n, 0, rows);
  std::vector<int64_t> head(static_cast<size_t>(n));
  std::vector<int64_t> tail(static_cast<size_t>(rows - n));
  std::iota(head.begin(), head.end(), int64_t{0});
  std::iota(tail.begin(), tail.end(), n);
  std::vector<data::Column> front_columns;
  std::vector<data::Column> back_columns;
  for (const data::Column& c : batch->rows.columns()) {
    front_columns.push_back(c.Take(head));
    back_columns.push_back(c.Take(tail));
  }
  ChangeBatch front;
  front.rows = data::RecordBatch(batch->rows.schema(), std::move(front_columns));
  front.rows.set_num_rows(n);
  data::RecordBatch back(batch->rows.schema(), std::move(back_columns));
  back.set_num_rows(rows - n);
  batch->rows = std::move(back);
  front.positions = batch->positions.TakeFront(static_cast<size_t>(n));
  front.raw = batch->raw.TakeFront(static_cast<size_t>(n));
  for (std::vector<uint8_t>& marks : batch->unchanged) {
    const auto cut = static_cast<std::ptrdiff_t>(std::min(marks.size(), static_cast<size_t>(n)));
    front.unchanged.emplace_back(marks.begin(), marks.begin() + cut);
    marks.erase(marks.begin(), marks.begin() + cut);
  }
  front.rejected = std::exchange(batch->rejected, {});
  front.text_source = batch->text_source;
  return front;
}

void AppendRows(ChangeBatch&& from, ChangeBatch* into) {
  if (from.rows.num_columns() == 0) {
    // Nothing but rejected records.
    into->rejected.insert(into->rejected.end(), std::make_move_iterator(from.rejected.begin()),
                          std::make_move_iterator(from.rejected.end()));
    return;
  }
  if (into->rows.num_columns() == 0 || (into->rows.num_rows() == 0 && into->rejected.empty())) {
    *into = std::move(from);
    return;
  }
  const auto before = static_cast<size_t>(into->rows.num_rows());
  const auto added = static_cast<size_t>(from.rows.num_rows());
  for (size_t c = 0; c < into->rows.num_columns(); ++c) {
    into->rows.mutable_column(c).AppendColumn(from.rows.column(c));
  }
  into->positions.Append(from.positions);
  // Raw texts are one per row or none: rows without one get an empty text.
  if (!into->raw.empty() || !from.raw.empty()) {
    into->raw.AddEmpty(before - std::min(before, into->raw.size()));
    const size_t given = from.raw.size();
    into->raw.Append(std::move(from.raw));
    into->raw.AddEmpty(added - std::min(added, given));
  }
  if (!into->unchanged.empty() || !from.unchanged.empty()) {
    into->unchanged.resize(into->rows.num_columns());
    for (size_t c = 0; c < into->unchanged.size(); ++c) {
      std::vector<uint8_t>& marks = into->unchanged[c];
      marks.resize(before, 0);
      if (c < from.unchanged.size()) {
        const std::vector<uint8_t>& more = from.unchanged[c];
        marks.insert(marks.end(), more.begin(), more.begin() + std::min(added, more.size()));
      }
      marks.resize(before + added, 0);
    }
  }
  into->rejected.insert(into->rejected.end(), std::make_move_iterator(from.rejected.begin()),
                        std::make_move_iterator(from.rejected.end()));
  if (into->text_source == nullptr) into->text_source = std::move(from.text_source);
}

}  // namespace cdclake::change
