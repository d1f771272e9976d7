// Table, CSV and JSON Lines printing.
#include "cli/table_output.h"

#include <algorithm>
#include <vector>

namespace cdclake::cli {

Result<OutputFormat> ParseOutputFormat(const std::string& name) {
  if (name == "table") return OutputFormat::kTable;
  if (name == "csv") return OutputFormat::kCsv;
  if (name == "jsonl") return OutputFormat::kJsonl;
  return Status::InvalidArgument("unknown format '" + name + "' (use table, csv or jsonl)");
}

namespace {

// Display width of UTF-8 text, counting code points (good enough for alignment).
size_t DisplayWidth(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string CellText(const data::Value& v, const data::DataType& type) {
  if (v.is_null()) return "NULL";
  std::string text = data::FormatValueText(v, type);
  std::replace(text.begin(), text.end(), '\n', ' ');
  if (DisplayWidth(text) > 60) {
    text.resize(57);
    text.append("...");
  }
  return text;
}

}  // namespace

void PrintBatch(const data::RecordBatch& batch, OutputFormat format, int64_t limit,
                std::ostream& out) {
  const data::Schema& schema = batch.schema();
  int64_t rows = limit < 0 ? batch.num_rows() : std::min(limit, batch.num_rows());
  switch (format) {
    case OutputFormat::kCsv: {
      for (size_t c = 0; c < schema.num_fields(); ++c) {
        if (c > 0) out << ',';
        out << data::CsvField(data::Value::Bytes(schema.field(c).name), *data::DataType::String());
      }
      out << '\n';
      for (int64_t r = 0; r < rows; ++r) {
        for (size_t c = 0; c < schema.num_fields(); ++c) {
          if (c > 0) out << ',';
          out << data::CsvField(batch.column(c).GetValue(r), *schema.field(c).type);
        }
        out << '\n';
      }
      return;
    }
    case OutputFormat::kJsonl: {
      std::string line;
      for (int64_t r = 0; r < rows; ++r) {
        line = "{";
        for (size_t c = 0; c < schema.num_fields(); ++c) {
          if (c > 0) line += ',';
          data::AppendJsonString(schema.field(c).name, &line);
          line += ':';
          data::AppendValueJson(batch.column(c).GetValue(r), *schema.field(c).type, &line);
        }
        line += "}\n";
        out << line;
      }
      return;
    }
    case OutputFormat::kTable: {
      std::vector<std::vector<std::string>> cells(static_cast<size_t>(rows) + 1);
      std::vector<size_t> widths(schema.num_fields(), 0);
      for (size_t c = 0; c < schema.num_fields(); ++c) {
        cells[0].push_back(schema.field(c).name);
        widths[c] = DisplayWidth(schema.field(c).name);
      }
      for (int64_t r = 0; r < rows; ++r) {
        for (size_t c = 0; c < schema.num_fields(); ++c) {
          cells[r + 1].push_back(CellText(batch.column(c).GetValue(r), *schema.field(c).type));
          widths[c] = std::max(widths[c], DisplayWidth(cells[r + 1].back()));
        }
      }
      auto rule = [&] {
        out << '+';
        for (size_t w : widths) out << std::string(w + 2, '-') << '+';
        out << '\n';
      };
      rule();
      for (size_t r = 0; r < cells.size(); ++r) {
        out << '|';
        for (size_t c = 0; c < cells[r].size(); ++c) {
          out << ' ' << cells[r][c] << std::string(widths[c] - DisplayWidth(cells[r][c]), ' ')
              << " |";
        }
        out << '\n';
        if (r == 0) rule();
      }
      rule();
      out << rows << (rows == 1 ? " row" : " rows");
      if (rows < batch.num_rows()) out << " (of " << batch.num_rows() << ")";
      out << '\n';
      return;
    }
  }
}

}  // namespace cdclake::cli
