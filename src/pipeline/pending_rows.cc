// PendingRows: change batches held whole until taken, then concatenated column by column with
// NULLs for missing columns; batches cut at a row with the rejected records read before it.
#include "pipeline/pending_rows.h"

#include <algorithm>
#include <deque>
#include <iterator>
#include <numeric>
#include <thread>

namespace cdclake::pipeline {

namespace {
// Take joins the columns of this many rows or more on two threads.
constexpr int64_t kJoinOnTwoThreadsFrom = 65536;
}  // namespace

bool PendingRows::Accepts(const data::Schema& schema) const {
  for (const data::Field& f : schema.fields()) {
    int at = Find(f.name);
    if (at >= 0 && !(*fields_[static_cast<size_t>(at)].type == *f.type)) return false;
  }
  return true;
}

Status PendingRows::Add(change::ChangeBatch batch, const std::string& file, int64_t file_index) {
  const data::Schema& schema = batch.rows.schema();
  for (const data::Field& f : schema.fields()) {
    int at = Find(f.name);
    if (at >= 0 && !(*fields_[static_cast<size_t>(at)].type == *f.type)) {
      return Status::InvalidArgument(
          file + ": column '" + f.name + "' is read as " + f.type->ToString() + " here but as " +
          fields_[static_cast<size_t>(at)].type->ToString() + " in earlier rows");
    }
  }
  for (const data::Field& f : schema.fields()) {
    if (Find(f.name) < 0) fields_.push_back({f.name, f.type, true});
  }
  if (text_source_ == nullptr) text_source_ = batch.text_source;
  const int64_t n = batch.rows.num_rows();
  const auto un = static_cast<size_t>(n);
  if (n > 0) {
    // A batch joins the last chunk while the two fit in a reader's batch: the readers reserve
    // room for 65,536 rows in each batch, so a chunk kept per small file (a stream of 10-row
    // files) would hold megabytes it never uses. Large batches stay whole, taken over as read.
    const bool join = !chunks_.empty() && chunks_.back().rows + n <= chunk_rows_;
    Chunk fresh;
    Chunk& chunk = join ? chunks_.back() : fresh;
    for (size_t j = 0; j < fields_.size(); ++j) {
      const data::Field& f = fields_[j];
      if (j >= chunk.columns.size()) {  // NULL in the chunk's rows read before the column
        chunk.columns.push_back(data::Column::Repeat(f.type, data::Value::Null(), chunk.rows));
      }
      const int k = schema.FieldIndex(f.name);
      const auto kk = static_cast<size_t>(k);
      data::Column& column = chunk.columns[j];
      if (k >= 0 && !join) {
        column = std::move(batch.rows.mutable_column(kk));
      } else {
        column.AppendColumn(k >= 0 ? batch.rows.column(kk)
                                   : data::Column::Repeat(f.type, data::Value::Null(), n));
      }
      const bool marked = k >= 0 && kk < batch.unchanged.size() && batch.unchanged[kk].size() == un;
      if (!marked && (j >= chunk.unchanged.size() || chunk.unchanged[j].empty())) continue;
      if (chunk.unchanged.size() < fields_.size()) chunk.unchanged.resize(fields_.size());
      std::vector<uint8_t>& marks = chunk.unchanged[j];
      marks.resize(static_cast<size_t>(chunk.rows), 0);  // the chunk's earlier rows: none marked
      if (marked) {
        marks.insert(marks.end(), batch.unchanged[kk].begin(), batch.unchanged[kk].end());
      } else {
        marks.resize(marks.size() + un, 0);
      }
    }
    const change::PositionList& positions = batch.positions;
    chunk.points.reserve(chunk.points.size() + un);
    bool all_placed = positions.size() == un;  // every row has its position with a file
    for (size_t i = 0; i < un; ++i) {
      const bool known = i < positions.size();
      all_placed = all_placed && known && !positions.file(i).empty();
      chunk.points.push_back({file_index, known ? positions.byte_offset(i) : 0});
    }
    if (all_placed && !join) {
      chunk.positions = std::move(batch.positions);
    } else if (all_placed) {
      chunk.positions.Append(positions);
    } else {
      for (size_t i = 0; i < un; ++i) {
        if (i >= positions.size()) {
          chunk.positions.Add(file, 0, 0, 0);
          continue;
        }
        const std::string_view own = positions.file(i);
        chunk.positions.Add(own.empty() ? std::string_view(file) : own, positions.line(i),
                            positions.byte_offset(i), positions.byte_end(i));
      }
    }
    if (batch.raw.size() == un && !join) {
      chunk.raw = std::move(batch.raw);
    } else {
      for (size_t i = 0; i < un; ++i) chunk.raw.AddFrom(batch.raw, i);
    }
    chunk.rows += n;
    if (!join) chunks_.push_back(std::move(fresh));
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
  if (!chunks_.empty()) first = chunks_.front().points.front().file_index;
  if (!rejected_points_.empty() && (first < 0 || rejected_points_.front().file_index < first)) {
    first = rejected_points_.front().file_index;
  }
  return first;
}

void PendingRows::SplitChunk(size_t at, int64_t n) {
  Chunk& chunk = chunks_[at];
  const auto un = static_cast<size_t>(n);
  std::vector<int64_t> head(un), tail(static_cast<size_t>(chunk.rows - n));
  std::iota(head.begin(), head.end(), int64_t{0});
  std::iota(tail.begin(), tail.end(), n);
  Chunk front;
  front.rows = n;
  for (data::Column& c : chunk.columns) {
    front.columns.push_back(c.Take(head));
    c = c.Take(tail);
  }
  for (std::vector<uint8_t>& marks : chunk.unchanged) {
    if (marks.empty()) {
      front.unchanged.emplace_back();
      continue;
    }
    front.unchanged.emplace_back(marks.begin(), marks.begin() + n);
    marks.erase(marks.begin(), marks.begin() + n);
  }
  front.positions = chunk.positions.TakeFront(un);
  front.raw = chunk.raw.TakeFront(un);
  front.points.assign(chunk.points.begin(), chunk.points.begin() + n);
  chunk.points.erase(chunk.points.begin(), chunk.points.begin() + n);
  chunk.rows -= n;
  chunks_.insert(chunks_.begin() + static_cast<std::ptrdiff_t>(at), std::move(front));
}

change::ChangeBatch PendingRows::Take(int64_t n) {
  if (n <= 0 || n > rows_) n = rows_;
  // The chunks the rows fill, the last one cut where they end.
  size_t count = 0;
  for (int64_t covered = 0; covered < n; ++count) {
    const int64_t rows = chunks_[count].rows;
    if (covered + rows > n) SplitChunk(count, n - covered);
    covered += chunks_[count].rows;
  }
  change::ChangeBatch out;
  out.text_source = text_source_;
  std::vector<data::Column> columns;
  columns.reserve(fields_.size());
  for (const data::Field& field : fields_) columns.emplace_back(field.type);
  auto join = [&](size_t j) {
    const data::TypePtr& type = fields_[j].type;
    if (count == 1 && j < chunks_[0].columns.size()) {
      columns[j] = std::move(chunks_[0].columns[j]);  // one batch: taken over, not copied
      return;
    }
    std::deque<data::Column> nulls;  // for batches read before the column was seen
    std::vector<const data::Column*> parts;
    for (size_t i = 0; i < count; ++i) {
      if (j < chunks_[i].columns.size()) {
        parts.push_back(&chunks_[i].columns[j]);
      } else {
        parts.push_back(
            &nulls.emplace_back(data::Column::Repeat(type, data::Value::Null(), chunks_[i].rows)));
      }
    }
    columns[j].ReserveForAppend(parts);
    for (const data::Column* part : parts) columns[j].AppendColumn(*part);
  };
  if (count > 1 && n >= kJoinOnTwoThreadsFrom) {
    // Many rows from several batches (a file decoded in two halves): the columns are copied
    // into one on two threads, every other column each (the copying and its page faults were
    // 5% of a 100,000-event Debezium batch's process on one).
    std::thread helper([&] {
      for (size_t j = 1; j < fields_.size(); j += 2) join(j);
    });
    for (size_t j = 0; j < fields_.size(); j += 2) join(j);
    helper.join();
  } else {
    for (size_t j = 0; j < fields_.size(); ++j) join(j);
  }
  out.rows = data::RecordBatch(data::Schema(fields_), std::move(columns));
  out.rows.set_num_rows(n);

  // Unchanged marks, when a source marked any cell of these rows.
  bool any_marked = false;
  for (size_t i = 0; i < count && !any_marked; ++i) {
    for (const std::vector<uint8_t>& marks : chunks_[i].unchanged) {
      if (std::any_of(marks.begin(), marks.end(), [](uint8_t m) { return m != 0; })) {
        any_marked = true;
        break;
      }
    }
  }
  if (any_marked) {
    out.unchanged.resize(fields_.size());
    for (size_t j = 0; j < fields_.size(); ++j) {
      std::vector<uint8_t>& marks = out.unchanged[j];
      marks.reserve(static_cast<size_t>(n));
      for (size_t i = 0; i < count; ++i) {
        const Chunk& chunk = chunks_[i];
        if (j < chunk.unchanged.size() && !chunk.unchanged[j].empty()) {
          marks.insert(marks.end(), chunk.unchanged[j].begin(), chunk.unchanged[j].end());
        } else {
          marks.resize(marks.size() + static_cast<size_t>(chunk.rows), 0);
        }
      }
    }
  }

  for (size_t i = 0; i < count; ++i) {
    if (i == 0) {
      out.positions = std::move(chunks_[0].positions);
      out.raw = std::move(chunks_[0].raw);
      out.positions.reserve(static_cast<size_t>(n));
      out.raw.reserve(static_cast<size_t>(n));
    } else {
      out.positions.Append(chunks_[i].positions);
      out.raw.Append(std::move(chunks_[i].raw));
    }
  }
  last_taken_ = count > 0 ? chunks_[count - 1].points.back() : ReadPoint{};
  // Rejected records read before the first row that stays go with these rows.
  const ReadPoint* first_kept = count < chunks_.size() ? &chunks_[count].points.front() : nullptr;
  std::vector<change::RejectedRecord> rejected_kept;
  std::vector<ReadPoint> points_kept;
  for (size_t i = 0; i < rejected_.size(); ++i) {
    if (first_kept == nullptr || rejected_points_[i] < *first_kept) {
      if (last_taken_ < rejected_points_[i]) last_taken_ = rejected_points_[i];
      out.rejected.push_back(std::move(rejected_[i]));
    } else {
      rejected_kept.push_back(std::move(rejected_[i]));
      points_kept.push_back(rejected_points_[i]);
    }
  }
  rejected_ = std::move(rejected_kept);
  rejected_points_ = std::move(points_kept);
  chunks_.erase(chunks_.begin(), chunks_.begin() + static_cast<std::ptrdiff_t>(count));
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
