// ParquetChangeReader: matches the file's columns to the schema, decides each column's cast,
// and cuts row groups into batches with row-ordinal positions.
#include "sources/files/parquet_change_reader.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "parquet/reader/file_reader.h"
#include "sources/files/change_batch_builder_internal.h"

namespace cdclake::sources {

namespace {

bool IsFloating(data::TypeId id) {
  return id == data::TypeId::kFloat || id == data::TypeId::kDouble;
}

// An integer column of any width as a column of the wider integer type `to`.
data::Column WidenInteger(const data::Column& from, const data::TypePtr& to) {
  const int from_width = from.type()->byte_width();
  const int to_width = to->byte_width();
  const int64_t n = from.length();
  const uint8_t* in = from.values().data();
  data::Column out(to);
  std::vector<uint8_t>& values = out.mutable_values();
  values.resize(static_cast<size_t>(n * to_width));
  for (int64_t i = 0; i < n; ++i) {
    int64_t v = 0;
    switch (from_width) {
      case 1: {
        int8_t x;
        std::memcpy(&x, in + i, 1);
        v = x;
        break;
      }
      case 2: {
        int16_t x;
        std::memcpy(&x, in + i * 2, 2);
        v = x;
        break;
      }
      case 4: {
        int32_t x;
        std::memcpy(&x, in + i * 4, 4);
        v = x;
        break;
      }
      default:
        std::memcpy(&v, in + i * 8, 8);
        break;
    }
    // Little-endian: the low `to_width` bytes of the sign-extended value.
    std::memcpy(values.data() + i * to_width, &v, static_cast<size_t>(to_width));
  }
  out.SetLengthAndValidity(n, from.validity());
  return out;
}

data::Column FloatToDouble(const data::Column& from) {
  const int64_t n = from.length();
  data::Column out(data::DataType::Double());
  std::vector<uint8_t>& values = out.mutable_values();
  values.resize(static_cast<size_t>(n) * sizeof(double));
  for (int64_t i = 0; i < n; ++i) {
    double v = from.ValueAt<float>(i);
    std::memcpy(values.data() + i * sizeof(double), &v, sizeof(double));
  }
  out.SetLengthAndValidity(n, from.validity());
  return out;
}

}  // namespace

ParquetChangeReader::ParquetChangeReader(std::unique_ptr<parquet::FileReader> file,
                                         std::string path, data::Schema schema,
                                         std::vector<Cast> casts, int64_t batch_rows)
    : file_(std::move(file)),
      path_(std::move(path)),
      schema_(std::move(schema)),
      casts_(std::move(casts)),
      batch_rows_(batch_rows) {}

ParquetChangeReader::~ParquetChangeReader() = default;

Result<std::unique_ptr<ParquetChangeReader>> ParquetChangeReader::Open(
    const io::FileSystem& fs, const std::string& path, ParquetChangeOptions options) {
  if (options.batch_rows <= 0) {
    return Status::InvalidArgument("batch_rows must be positive, got " +
                                   std::to_string(options.batch_rows));
  }
  CDCLAKE_ASSIGN_OR_RETURN(std::unique_ptr<parquet::FileReader> file,
                           parquet::FileReader::Open(fs, path));
  std::vector<data::Field> fields;
  std::vector<Cast> casts;
  for (const data::Field& column : file->schema().fields()) {
    const data::Field* wanted = internal::FindSchemaField(options.schema, column.name);
    if (wanted == nullptr) {
      fields.push_back({column.name, column.type, true});
      casts.push_back(Cast::kNone);
      continue;
    }
    const data::DataType& have = *column.type;
    const data::DataType& want = *wanted->type;
    Cast cast = Cast::kNone;
    if (have.Equals(want)) {
      cast = Cast::kNone;
    } else if (data::IntegerRank(have.id()) > 0 && data::IntegerRank(want.id()) > 0 &&
               data::IntegerRank(have.id()) < data::IntegerRank(want.id())) {
      cast = Cast::kWidenInteger;
    } else if (have.id() == data::TypeId::kFloat && want.id() == data::TypeId::kDouble) {
      cast = Cast::kFloatToDouble;
    } else if ((have.id() == data::TypeId::kDecimal && want.id() == data::TypeId::kDecimal &&
                have.scale() == want.scale() && have.precision() < want.precision()) ||
               (have.id() == data::TypeId::kBinary && want.id() == data::TypeId::kString)) {
      cast = Cast::kRetype;
    } else {
      const bool numbers = (data::IntegerRank(have.id()) > 0 || IsFloating(have.id())) &&
                           (data::IntegerRank(want.id()) > 0 || IsFloating(want.id()));
      return Status::InvalidArgument(
          path + ": column '" + column.name + "' is " + have.ToString() +
          " in the file but the schema asks for " + want.ToString() +
          (numbers ? " (only widening casts are made: a narrower integer to a wider one, float "
                     "to double)"
                   : ""));
    }
    fields.push_back({wanted->name, wanted->type, true});
    casts.push_back(cast);
  }
  data::Schema schema(std::move(fields));
  CDCLAKE_RETURN_IF_ERROR(internal::CheckUniqueNames(schema, path));
  return std::unique_ptr<ParquetChangeReader>(new ParquetChangeReader(
      std::move(file), path, std::move(schema), std::move(casts), options.batch_rows));
}

Result<bool> ParquetChangeReader::LoadRowGroup() {
  while (next_group_ < file_->num_row_groups()) {
    const int g = next_group_++;
    auto read = file_->ReadRowGroup(g);
    if (!read.ok()) return read.status().WithContext(path_ + ": row group " + std::to_string(g));
    data::RecordBatch group = std::move(read).value();
    group_first_row_ = group_first_row_ + group_rows_;
    group_rows_ = group.num_rows();
    group_offset_ = 0;
    std::vector<data::Column> columns;
    columns.reserve(group.num_columns());
    for (size_t c = 0; c < group.num_columns(); ++c) {
      data::Column& column = group.mutable_column(c);
      const data::TypePtr& type = schema_.field(c).type;
      switch (casts_[c]) {
        case Cast::kNone:
          columns.push_back(std::move(column));
          break;
        case Cast::kRetype:
          column.SetType(type);
          columns.push_back(std::move(column));
          break;
        case Cast::kWidenInteger:
          columns.push_back(WidenInteger(column, type));
          break;
        case Cast::kFloatToDouble:
          columns.push_back(FloatToDouble(column));
          break;
      }
    }
    group_ = data::RecordBatch(schema_, std::move(columns));
    if (group_.num_columns() == 0) group_.set_num_rows(group_rows_);
    if (group_rows_ > 0) return true;
  }
  return false;
}

Result<std::optional<change::ChangeBatch>> ParquetChangeReader::Next() {
  if (group_offset_ >= group_rows_) {
    CDCLAKE_ASSIGN_OR_RETURN(bool more, LoadRowGroup());
    if (!more) return std::optional<change::ChangeBatch>();
  }
  const int64_t start = group_offset_;
  const int64_t count = std::min(batch_rows_, group_rows_ - start);
  change::ChangeBatch batch;
  if (start == 0 && count == group_rows_) {
    batch.rows = std::move(group_);
    group_ = data::RecordBatch();
  } else {
    std::vector<int64_t> indices(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) indices[static_cast<size_t>(i)] = start + i;
    std::vector<data::Column> columns;
    columns.reserve(group_.num_columns());
    for (const data::Column& column : group_.columns()) columns.push_back(column.Take(indices));
    batch.rows = data::RecordBatch(schema_, std::move(columns));
    if (batch.rows.num_columns() == 0) batch.rows.set_num_rows(count);
  }
  group_offset_ = start + count;
  batch.positions.reserve(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    const int64_t ordinal = group_first_row_ + start + i;
    batch.positions.Add(path_, ordinal + 1, ordinal, 0);
  }
  batch.raw.AddEmpty(static_cast<size_t>(count));
  return std::optional<change::ChangeBatch>(std::move(batch));
}

}  // namespace cdclake::sources
