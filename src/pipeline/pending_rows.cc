// PendingRows: column-wise gathering of change batches with NULLs for missing columns, and
// batches cut at a row with the rejected records read before it.
#include "pipeline/pending_rows.h"

#include <algorithm>
#include <iterator>

namespace cdclake::pipeline {

bool PendingRows::Accepts(const data::Schema& schema) const {
  for (const data::Field& f : schema.fields()) {
    int at = Find(f.name);
    if (at >= 0 && !(*fields_[static_cast<size_t>(at)].type == *f.type)) return false;
  }
  return true;
}

Status PendingRows::Add(change::ChangeBatch batch, const std::string& file, int64_t file_index) {
  const data::RecordBatch& in = batch.rows;
  const int64_t n = in.num_rows();
  for (size_t c = 0; c < in.num_columns(); ++c) {
    const data::Field& f = in.schema().field(c);
    int at = Find(f.name);
    if (at < 0) {
      fields_.push_back({f.name, f.type, true});
      columns_.push_back(data::Column::Repeat(f.type, data::Value::Null(), rows_));
      if (!unchanged_.empty()) unchanged_.emplace_back(static_cast<size_t>(rows_), 0);
    } else if (!(*fields_[static_cast<size_t>(at)].type == *f.type)) {
      return Status::InvalidArgument(
          file + ": column '" + f.name + "' is read as " + f.type->ToString() + " here but as " +
          fields_[static_cast<size_t>(at)].type->ToString() + " in earlier rows");
    }
  }
  if (!batch.unchanged.empty() && unchanged_.empty()) {
    unchanged_.assign(fields_.size(), std::vector<uint8_t>(static_cast<size_t>(rows_), 0));
  }
  for (size_t j = 0; j < fields_.size(); ++j) {
    int k = in.schema().FieldIndex(fields_[j].name);
    if (k >= 0 && rows_ == 0) {
      // The first rows held: taken over, not copied (a batch of one file is usually whole).
      columns_[j] = std::move(batch.rows.mutable_column(static_cast<size_t>(k)));
    } else if (k >= 0) {
      columns_[j].AppendColumn(in.column(static_cast<size_t>(k)));
    } else {
      columns_[j].AppendColumn(data::Column::Repeat(fields_[j].type, data::Value::Null(), n));
    }
    if (unchanged_.empty()) continue;
    std::vector<uint8_t>& marks = unchanged_[j];
    auto kk = static_cast<size_t>(k);
    if (k >= 0 && kk < batch.unchanged.size() &&
        batch.unchanged[kk].size() == static_cast<size_t>(n)) {
      marks.insert(marks.end(), batch.unchanged[kk].begin(), batch.unchanged[kk].end());
    } else {
      marks.resize(marks.size() + static_cast<size_t>(n), 0);
    }
  }
  const auto un = static_cast<size_t>(n);
  const change::PositionList& positions = batch.positions;
  if (positions_.empty()) points_.reserve(un);
  bool all_placed = positions.size() == un;  // every row has its position with a file
  for (size_t i = 0; i < un; ++i) {
    const bool known = i < positions.size();
    all_placed = all_placed && known && !positions.file(i).empty();
    points_.push_back({file_index, known ? positions.byte_offset(i) : 0});
  }
  // The first rows held take the batch's lists over (a batch of one file is usually whole).
  if (positions_.empty() && all_placed) {
    positions_ = std::move(batch.positions);
  } else {
    for (size_t i = 0; i < un; ++i) {
      if (i >= positions.size()) {
        positions_.Add(file, 0, 0, 0);
        continue;
      }
      const std::string_view own = positions.file(i);
      positions_.Add(own.empty() ? std::string_view(file) : own, positions.line(i),
                     positions.byte_offset(i), positions.byte_end(i));
    }
  }
  if (raw_.empty() && batch.raw.size() == un) {
    raw_ = std::move(batch.raw);
  } else {
    for (size_t i = 0; i < un; ++i) raw_.push_back(i < batch.raw.size() ? batch.raw[i] : "");
  }
  for (change::RejectedRecord& rec : batch.rejected) {
    if (rec.position.file.empty()) rec.position.file = file;
    rejected_points_.push_back({file_index, rec.position.byte_offset});
    rejected_.push_back(std::move(rec));
  }
  rows_ += n;
  return Status::OK();
}

int64_t PendingRows::first_file_index() const {
  int64_t first = -1;
  if (!points_.empty()) first = points_.front().file_index;
  if (!rejected_points_.empty() && (first < 0 || rejected_points_.front().file_index < first)) {
    first = rejected_points_.front().file_index;
  }
  return first;
}

change::ChangeBatch PendingRows::Take(int64_t n) {
  if (n <= 0 || n > rows_) n = rows_;
  const auto un = static_cast<size_t>(n);
  change::ChangeBatch out;
  std::vector<int64_t> head(un), tail(static_cast<size_t>(rows_ - n));
  for (int64_t i = 0; i < n; ++i) head[static_cast<size_t>(i)] = i;
  for (int64_t i = n; i < rows_; ++i) tail[static_cast<size_t>(i - n)] = i;
  std::vector<data::Column> taken, kept;
  for (data::Column& c : columns_) {
    if (tail.empty()) {
      taken.push_back(std::move(c));
    } else {
      taken.push_back(c.Take(head));
      kept.push_back(c.Take(tail));
    }
  }
  out.rows = data::RecordBatch(data::Schema(fields_), std::move(taken));
  out.rows.set_num_rows(n);
  last_taken_ = n > 0 ? points_[un - 1] : ReadPoint{};
  out.positions = positions_.TakeFront(un);
  out.raw = raw_.TakeFront(un);
  // Rejected records read before the first row that stays go with these rows.
  std::vector<change::RejectedRecord> rejected_kept;
  std::vector<ReadPoint> points_kept;
  for (size_t i = 0; i < rejected_.size(); ++i) {
    if (tail.empty() || rejected_points_[i] < points_[un]) {
      if (last_taken_ < rejected_points_[i]) last_taken_ = rejected_points_[i];
      out.rejected.push_back(std::move(rejected_[i]));
    } else {
      rejected_kept.push_back(std::move(rejected_[i]));
      points_kept.push_back(rejected_points_[i]);
    }
  }
  rejected_ = std::move(rejected_kept);
  rejected_points_ = std::move(points_kept);
  points_.erase(points_.begin(), points_.begin() + n);
  if (!unchanged_.empty()) {
    bool any = false;
    for (std::vector<uint8_t>& marks : unchanged_) {
      std::vector<uint8_t> head_marks(marks.begin(), marks.begin() + n);
      marks.erase(marks.begin(), marks.begin() + n);
      any = any ||
            std::any_of(head_marks.begin(), head_marks.end(), [](uint8_t m) { return m != 0; });
      out.unchanged.push_back(std::move(head_marks));
    }
    if (!any) out.unchanged.clear();
    if (tail.empty()) unchanged_.clear();
  }
  columns_ = std::move(kept);
  if (tail.empty()) {
    for (const data::Field& f : fields_) columns_.emplace_back(f.type);
  }
  rows_ -= n;
  return out;
}

int PendingRows::Find(const std::string& name) const {
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace cdclake::pipeline
