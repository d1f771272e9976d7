// Footer validation, row group reads, projection and statistics-based skipping.
#include "parquet/reader/file_reader.h"

#include <cmath>

#include "base/bytes.h"
#include "parquet/reader/assembler.h"
#include "parquet/reader/column_chunk_reader.h"
#include "parquet/statistics.h"

namespace cdclake::parquet {

namespace {
constexpr std::string_view kMagic = "PAR1";

// Whether `v` has the representation Value uses for a non-null value of primitive `type`.
bool ValueFitsType(const data::Value& v, const data::DataType& type) {
  switch (type.id()) {
    case data::TypeId::kBoolean:
      return v.is_bool();
    case data::TypeId::kFloat:
    case data::TypeId::kDouble:
      return v.is_double();
    case data::TypeId::kDecimal:
      return v.is_decimal();
    case data::TypeId::kString:
    case data::TypeId::kBinary:
      return v.is_bytes();
    default:
      return v.is_int();
  }
}
constexpr uint64_t kMaxFooterBytes = 256ULL << 20;
}  // namespace

FileReader::FileReader(std::unique_ptr<io::RandomAccessFile> file, format::FileMetaData metadata,
                       FileSchema schema)
    : file_(std::move(file)), metadata_(std::move(metadata)), schema_(std::move(schema)) {
  int64_t row = 0;
  for (const auto& rg : metadata_.row_groups) {
    first_row_.push_back(row);
    row += rg.num_rows;
  }
}

Result<std::unique_ptr<FileReader>> FileReader::Open(const io::FileSystem& fs,
                                                     const std::string& path) {
  CDCLAKE_ASSIGN_OR_RETURN(auto file, fs.OpenRead(path));
  return Open(std::move(file));
}

Result<std::unique_ptr<FileReader>> FileReader::Open(std::unique_ptr<io::RandomAccessFile> file) {
  const std::string path = file->path();
  auto fail = [&](const std::string& why) { return Status::Corrupt(path + ": " + why); };
  CDCLAKE_ASSIGN_OR_RETURN(uint64_t size, file->Size());
  if (size < 12) return fail("not a Parquet file: " + std::to_string(size) + " bytes is too short");
  std::string tail;
  CDCLAKE_RETURN_IF_ERROR(file->ReadAt(size - 8, 8, &tail));
  if (tail.substr(4) != kMagic) return fail("not a Parquet file: no PAR1 at the end");
  uint32_t footer_len = LoadLE<uint32_t>(tail.data());
  if (footer_len > size - 12 || footer_len > kMaxFooterBytes) {
    return fail("footer length " + std::to_string(footer_len) + " does not fit a file of " +
                std::to_string(size) + " bytes");
  }
  std::string head;
  CDCLAKE_RETURN_IF_ERROR(file->ReadAt(0, 4, &head));
  if (head != kMagic) return fail("not a Parquet file: no PAR1 at the start");
  std::string footer;
  CDCLAKE_RETURN_IF_ERROR(file->ReadAt(size - 8 - footer_len, footer_len, &footer));
  auto meta_or = format::DecodeFileMetaData(footer);
  if (!meta_or.ok()) return meta_or.status().WithContext(path + ": footer");
  format::FileMetaData meta = std::move(meta_or).value();
  if (meta.has_encryption_algorithm)
    return Status::NotSupported(path + ": encrypted Parquet files");
  auto schema_or = FileSchema::FromParquet(meta.schema);
  if (!schema_or.ok()) return schema_or.status().WithContext(path);
  FileSchema schema = std::move(schema_or).value();
  size_t leaves = schema.leaves().size();
  int64_t rows = 0;
  for (size_t g = 0; g < meta.row_groups.size(); ++g) {
    const auto& rg = meta.row_groups[g];
    std::string where = "row group " + std::to_string(g);
    if (rg.num_rows < 0) return fail(where + " has a negative row count");
    if (rg.num_rows > INT64_MAX - rows) return fail(where + ": the row counts overflow");
    rows += rg.num_rows;
    if (rg.columns.size() != leaves) {
      return fail(where + " has " + std::to_string(rg.columns.size()) +
                  " column chunks, the schema " + std::to_string(leaves) + " leaves");
    }
    for (size_t c = 0; c < rg.columns.size(); ++c) {
      const auto& cc = rg.columns[c];
      if (cc.file_path) return Status::NotSupported(path + ": column chunks in other files");
      if (!cc.meta_data) return fail(where + " column " + std::to_string(c) + " has no metadata");
      const auto& m = *cc.meta_data;
      if (m.type != *schema.leaves()[c]->element.type) {
        return fail(where + " column " + std::to_string(c) +
                    " has a physical type that differs from the schema");
      }
      int64_t start = m.data_page_offset;
      if (m.dictionary_page_offset && *m.dictionary_page_offset > 0 &&
          *m.dictionary_page_offset < start) {
        start = *m.dictionary_page_offset;
      }
      if (start < 4 || m.total_compressed_size < 0 || m.num_values < 0 ||
          static_cast<uint64_t>(start) + static_cast<uint64_t>(m.total_compressed_size) >
              size - 8 - footer_len) {
        return fail(where + " column '" + schema.leaves()[c]->name +
                    "' lies outside the file (offset " + std::to_string(start) + ", " +
                    std::to_string(m.total_compressed_size) + " bytes)");
      }
    }
  }
  if (rows != meta.num_rows) {
    return fail("the row groups hold " + std::to_string(rows) + " rows, the footer says " +
                std::to_string(meta.num_rows));
  }
  return std::unique_ptr<FileReader>(
      new FileReader(std::move(file), std::move(meta), std::move(schema)));
}

Result<std::vector<int>> FileReader::ProjectedFields(const ReadOptions& options) const {
  std::vector<int> fields;
  if (options.columns.empty()) {
    for (size_t i = 0; i < schema().num_fields(); ++i) fields.push_back(static_cast<int>(i));
    return fields;
  }
  for (const std::string& name : options.columns) {
    int i = schema().FieldIndex(name);
    if (i < 0) return Status::NotFound(path() + ": no column named '" + name + "'");
    fields.push_back(i);
  }
  return fields;
}

Result<data::Schema> FileReader::ProjectedSchema(const ReadOptions& options) const {
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<int> fields, ProjectedFields(options));
  std::vector<data::Field> out;
  for (int i : fields) out.push_back(schema().field(i));
  if (options.with_row_index)
    out.push_back({options.row_index_column, data::DataType::Int64(), false});
  return data::Schema(std::move(out));
}

bool FileReader::RowGroupMayMatch(int i, const std::vector<StatisticsFilter>& filters) const {
  const auto& rg = metadata_.row_groups[i];
  for (const StatisticsFilter& f : filters) {
    int field = schema().FieldIndex(f.column);
    if (field < 0) continue;
    const SchemaNode& node = schema_.fields()[field];
    if (node.kind != SchemaNode::Kind::kPrimitive) continue;
    const auto& meta = *rg.columns[node.leaf_index].meta_data;
    if (!meta.statistics) continue;
    const format::Statistics& s = *meta.statistics;
    if (f.op == StatisticsFilter::Op::kIsNull) {
      if (s.null_count && *s.null_count == 0) return false;
      continue;
    }
    if (f.op == StatisticsFilter::Op::kIsNotNull) {
      if (s.null_count && *s.null_count == rg.num_rows) return false;
      continue;
    }
    if (f.value.is_null()) return false;                // a comparison with NULL is never true
    if (!ValueFitsType(f.value, *node.type)) continue;  // a filter of another type refutes nothing
    if (!s.min_value || !s.max_value) continue;
    if (*node.element.type == format::Type::kInt96) continue;
    auto lo = DecodeStatisticValue(*s.min_value, node);
    auto hi = DecodeStatisticValue(*s.max_value, node);
    if (!lo.ok() || !hi.ok()) continue;
    const data::DataType& t = *node.type;
    if ((t.id() == data::TypeId::kFloat || t.id() == data::TypeId::kDouble) &&
        (std::isnan(lo->double_value()) || std::isnan(hi->double_value()))) {
      continue;
    }
    int vs_lo = CompareValues(f.value, *lo, t);
    int vs_hi = CompareValues(f.value, *hi, t);
    bool may = true;
    switch (f.op) {
      case StatisticsFilter::Op::kEq:
        may = vs_lo >= 0 && vs_hi <= 0;
        break;
      case StatisticsFilter::Op::kLt:
        may = vs_lo > 0;
        break;  // some row < value needs min < value
      case StatisticsFilter::Op::kLe:
        may = vs_lo >= 0;
        break;
      case StatisticsFilter::Op::kGt:
        may = vs_hi < 0;
        break;  // needs max > value
      case StatisticsFilter::Op::kGe:
        may = vs_hi <= 0;
        break;
      default:
        break;
    }
    if (!may) return false;
  }
  return true;
}

Result<data::RecordBatch> FileReader::ReadRowGroup(int i, const ReadOptions& options) const {
  if (i < 0 || i >= num_row_groups()) {
    return Status::OutOfRange(path() + ": row group " + std::to_string(i) + " of " +
                              std::to_string(num_row_groups()));
  }
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<int> fields, ProjectedFields(options));
  CDCLAKE_ASSIGN_OR_RETURN(data::Schema out_schema, ProjectedSchema(options));
  const format::RowGroup& rg = metadata_.row_groups[i];
  std::vector<data::Column> columns;
  std::string bytes;
  for (int f : fields) {
    const SchemaNode& field = schema_.fields()[f];
    std::vector<LeafData> data;
    std::vector<const SchemaNode*> field_leaves;
    {
      std::vector<const SchemaNode*> todo{&field};
      while (!todo.empty()) {
        const SchemaNode* n = todo.back();
        todo.pop_back();
        if (n->kind == SchemaNode::Kind::kPrimitive) {
          field_leaves.push_back(n);
        } else {
          for (auto it = n->children.rbegin(); it != n->children.rend(); ++it) todo.push_back(&*it);
        }
      }
    }
    data.resize(field_leaves.size());
    std::vector<LeafData*> pointers;
    for (size_t l = 0; l < field_leaves.size(); ++l) {
      const SchemaNode& leaf = *field_leaves[l];
      const format::ColumnMetaData& m = *rg.columns[leaf.leaf_index].meta_data;
      int64_t start = m.data_page_offset;
      if (m.dictionary_page_offset && *m.dictionary_page_offset > 0 &&
          *m.dictionary_page_offset < start) {
        start = *m.dictionary_page_offset;
      }
      CDCLAKE_RETURN_IF_ERROR(file_->ReadAt(
          static_cast<uint64_t>(start), static_cast<uint64_t>(m.total_compressed_size), &bytes));
      Status s = ReadColumnChunk(leaf, m, bytes, &data[l]);
      if (!s.ok())
        return s.WithContext(path() + ": row group " + std::to_string(i) + ", column '" +
                             leaf.name + "'");
      pointers.push_back(&data[l]);
    }
    auto column = AssembleColumn(field, std::move(pointers), rg.num_rows);
    if (!column.ok())
      return column.status().WithContext(path() + ": row group " + std::to_string(i));
    columns.push_back(std::move(column).value());
  }
  if (options.with_row_index) {
    data::Column index(data::DataType::Int64());
    index.Reserve(rg.num_rows);
    for (int64_t r = 0; r < rg.num_rows; ++r) index.Append<int64_t>(first_row_[i] + r);
    columns.push_back(std::move(index));
  }
  data::RecordBatch batch(std::move(out_schema), std::move(columns));
  batch.set_num_rows(rg.num_rows);
  return batch;
}

Result<data::RecordBatch> FileReader::ReadAll(const ReadOptions& options) const {
  CDCLAKE_ASSIGN_OR_RETURN(data::Schema out_schema, ProjectedSchema(options));
  data::RecordBatch out(out_schema);
  int64_t rows = 0;
  bool first = true;
  for (int g = 0; g < num_row_groups(); ++g) {
    if (!RowGroupMayMatch(g, options.filters)) continue;
    CDCLAKE_ASSIGN_OR_RETURN(data::RecordBatch part, ReadRowGroup(g, options));
    rows += part.num_rows();
    if (first) {
      out = std::move(part);
      first = false;
      continue;
    }
    for (size_t c = 0; c < out.num_columns(); ++c)
      out.mutable_column(c).AppendColumn(part.column(c));
  }
  out.set_num_rows(rows);
  return out;
}

}  // namespace cdclake::parquet
