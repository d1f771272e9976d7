// Reads every Parquet file of the Delta conformance tables in ../shared/testdata/delta (data
// files, checkpoints, sidecars, expected results) and checks what was read against facts the
// fixtures state independently: MANIFEST.json row counts, the `add` stats in the Delta logs
// (numRecords, nullCount, minValues/maxValues), _last_checkpoint sizes, and the expected data.
#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "base/bytes.h"
#include "data/decimal.h"
#include "io/local_file_system.h"
#include "parquet/format/parquet_types.h"
#include "parquet/reader/file_reader.h"

namespace cdclake::parquet {
namespace {

namespace stdfs = std::filesystem;
using nlohmann::json;

const std::string& Root() {
  static const std::string root = std::string(CDCLAKE_SHARED_DIR) + "/testdata/delta";
  return root;
}

const io::FileSystem& Fs() {
  return *io::LocalFileSystem::Instance();
}

std::string Rel(const std::string& path) {
  if (path.rfind(Root() + "/", 0) == 0) return path.substr(Root().size() + 1);
  return path;
}

bool Hidden(const std::string& name) {
  return !name.empty() && (name[0] == '.' || name[0] == '_');
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

/// Every .parquet file under `dir`, sorted; with `data_only`, files below a folder or with a
/// name that starts with '_' or '.' are left out (the Delta rule for data directories).
std::vector<std::string> ParquetFilesUnder(const std::string& dir, bool data_only) {
  std::vector<std::string> out;
  std::error_code ec;
  if (!stdfs::is_directory(dir, ec)) return out;
  for (auto it = stdfs::recursive_directory_iterator(dir, ec);
       !ec && it != stdfs::recursive_directory_iterator(); it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (data_only && Hidden(name)) {
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file() && EndsWith(name, ".parquet")) out.push_back(it->path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// The non-hidden .parquet files directly inside `dir`, sorted.
std::vector<std::string> ParquetFilesIn(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : stdfs::directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    if (e.is_regular_file() && !Hidden(name) && EndsWith(name, ".parquet"))
      out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string ReadText(const std::string& path) {
  auto text = Fs().ReadFile(path);
  return text.ok() ? *text : std::string();
}

/// One JSON value per non-empty line; a line that does not parse becomes a discarded value.
std::vector<json> JsonLines(const std::string& path) {
  std::vector<json> out;
  std::istringstream in(ReadText(path));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    out.push_back(json::parse(line, nullptr, /*allow_exceptions=*/false));
  }
  return out;
}

/// add.path is URI-encoded once.
std::string UriDecode(std::string_view s) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      int hi = hex(s[i + 1]), lo = hex(s[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

std::string VersionName(int64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%020" PRId64, v);
  return buf;
}

// --- Reading ------------------------------------------------------------------------------

/// What the footer says, for failure reports: writer, and per column its physical and
/// logical type, codec, encodings and page kinds.
std::string FooterSummary(const std::string& path) {
  std::string bytes = ReadText(path);
  if (bytes.size() < 12) return "(file of " + std::to_string(bytes.size()) + " bytes)";
  uint32_t len = LoadLE<uint32_t>(bytes.data() + bytes.size() - 8);
  if (len > bytes.size() - 12) return "(footer length " + std::to_string(len) + " too large)";
  auto meta =
      format::DecodeFileMetaData(std::string_view(bytes).substr(bytes.size() - 8 - len, len));
  if (!meta.ok()) return "(footer does not decode: " + meta.status().ToString() + ")";
  std::ostringstream out;
  out << "created_by=" << meta->created_by.value_or("?") << " rows=" << meta->num_rows
      << " row_groups=" << meta->row_groups.size() << "\n  schema:";
  for (const auto& e : meta->schema) {
    out << " " << e.name;
    if (e.type) out << ":t" << static_cast<int>(*e.type);
    if (e.repetition_type) out << ":r" << static_cast<int>(*e.repetition_type);
    if (e.converted_type) out << ":c" << static_cast<int>(*e.converted_type);
    if (e.logical_type) out << ":l" << static_cast<int>(e.logical_type->kind);
    if (e.num_children) out << ":n" << *e.num_children;
  }
  if (!meta->row_groups.empty()) {
    for (const auto& cc : meta->row_groups[0].columns) {
      if (!cc.meta_data) continue;
      const auto& m = *cc.meta_data;
      out << "\n  column";
      for (const auto& p : m.path_in_schema) out << " " << p;
      out << ": type " << static_cast<int>(m.type) << ", codec " << static_cast<int>(m.codec)
          << ", encodings";
      for (auto e : m.encodings) out << " " << static_cast<int>(e);
      out << ", pages";
      for (const auto& s : m.encoding_stats)
        out << " " << static_cast<int>(s.page_type) << "/" << static_cast<int>(s.encoding) << "x"
            << s.count;
    }
  }
  return out.str();
}

struct ReadOutcome {
  Status status;
  int64_t footer_rows = -1;
  data::RecordBatch batch;
};

/// Opens and reads the whole file; the status names the step that failed.
ReadOutcome ReadParquet(const std::string& path) {
  ReadOutcome out;
  auto reader = FileReader::Open(Fs(), path);
  if (!reader.ok()) {
    out.status = reader.status();
    return out;
  }
  out.footer_rows = (*reader)->num_rows();
  auto batch = (*reader)->ReadAll();
  if (!batch.ok()) {
    out.status = batch.status();
    return out;
  }
  out.batch = std::move(batch).value();
  return out;
}

/// Rows of `path`, or -1 (with a test failure) when it does not read.
int64_t RowCount(const std::string& path) {
  ReadOutcome r = ReadParquet(path);
  if (!r.status.ok()) {
    ADD_FAILURE() << Rel(path) << ": " << r.status.ToString();
    return -1;
  }
  return r.batch.num_rows();
}

// --- Manifest -----------------------------------------------------------------------------

struct Table {
  std::string name;
  std::string root;           // absolute
  std::string expected_data;  // as MANIFEST.json spells it, or ""
  std::optional<int64_t> expected_rows;
  int64_t latest_version = -1;
  int64_t dv_deleted_rows = 0;
};

std::vector<Table> LoadManifest() {
  std::vector<Table> out;
  json m = json::parse(ReadText(Root() + "/MANIFEST.json"), nullptr, false);
  if (!m.is_object()) {
    ADD_FAILURE() << "MANIFEST.json does not parse";
    return out;
  }
  for (auto it = m.begin(); it != m.end(); ++it) {
    const json& t = it.value();
    Table table;
    table.name = it.key();
    if (t.contains("table_root") && t["table_root"].is_string())
      table.root = Root() + "/" + t["table_root"].get<std::string>();
    if (t.contains("expected_data") && t["expected_data"].is_string())
      table.expected_data = t["expected_data"].get<std::string>();
    if (t.contains("expected_row_count") && t["expected_row_count"].is_number_integer())
      table.expected_rows = t["expected_row_count"].get<int64_t>();
    if (t.contains("latest_version") && t["latest_version"].is_number_integer())
      table.latest_version = t["latest_version"].get<int64_t>();
    if (t.contains("dv_deleted_rows") && t["dv_deleted_rows"].is_number_integer())
      table.dv_deleted_rows = t["dv_deleted_rows"].get<int64_t>();
    out.push_back(std::move(table));
  }
  return out;
}

// --- Stats JSON ---------------------------------------------------------------------------

/// A scalar of a stats object, keyed by its dotted path ("minValues.id"), with the exact text
/// of numbers (decimals of 38 digits do not survive a double).
struct StatScalar {
  enum class Kind { kNull, kBool, kInt, kFloat, kString } kind = Kind::kNull;
  std::string text;
};
using FlatStats = std::map<std::string, StatScalar>;

class StatsCollector : public nlohmann::json_sax<json> {
 public:
  explicit StatsCollector(FlatStats* out) : out_(out) {}
  bool null() override { return Put({StatScalar::Kind::kNull, ""}); }
  bool boolean(bool v) override { return Put({StatScalar::Kind::kBool, v ? "true" : "false"}); }
  bool number_integer(number_integer_t v) override {
    return Put({StatScalar::Kind::kInt, std::to_string(v)});
  }
  bool number_unsigned(number_unsigned_t v) override {
    return Put({StatScalar::Kind::kInt, std::to_string(v)});
  }
  bool number_float(number_float_t, const string_t& s) override {
    return Put({StatScalar::Kind::kFloat, s});
  }
  bool string(string_t& v) override { return Put({StatScalar::Kind::kString, v}); }
  bool binary(binary_t&) override { return Put({}); }
  bool start_object(std::size_t) override {
    path_.push_back(pending_);
    pending_.clear();
    return true;
  }
  bool key(string_t& k) override {
    pending_ = k;
    return true;
  }
  bool end_object() override {
    path_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override {
    ++in_array_;
    return true;
  }
  bool end_array() override {
    --in_array_;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  bool Put(StatScalar s) {
    if (in_array_ > 0) return true;
    std::string key;
    for (size_t i = 1; i < path_.size(); ++i) key += path_[i] + ".";
    key += pending_;
    (*out_)[key] = std::move(s);
    return true;
  }
  FlatStats* out_;
  std::vector<std::string> path_;
  std::string pending_;
  int in_array_ = 0;
};

std::optional<FlatStats> ParseStats(const std::string& text) {
  FlatStats flat;
  StatsCollector collector(&flat);
  if (!json::sax_parse(text, &collector)) return std::nullopt;
  return flat;
}

std::optional<int64_t> ParseInt(std::string_view s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<int64_t> NumRecords(const FlatStats& stats) {
  auto it = stats.find("numRecords");
  if (it == stats.end() || it->second.kind != StatScalar::Kind::kInt) return std::nullopt;
  return ParseInt(it->second.text);
}

int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

/// "2020-01-31" -> days since the epoch.
std::optional<int64_t> ParseDate(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return std::nullopt;
  auto y = ParseInt(s.substr(0, 4)), m = ParseInt(s.substr(5, 2)), d = ParseInt(s.substr(8, 2));
  if (!y || !m || !d) return std::nullopt;
  return DaysFromCivil(*y, *m, *d);
}

/// "2020-02-01T08:09:10.000Z", "...+00:00", or without zone (timestamp_ntz) -> microseconds.
std::optional<int64_t> ParseTimestamp(std::string_view s) {
  if (s.size() < 19 || s[10] != 'T' || s[13] != ':' || s[16] != ':') return std::nullopt;
  auto days = ParseDate(s.substr(0, 10));
  auto h = ParseInt(s.substr(11, 2)), mi = ParseInt(s.substr(14, 2)),
       se = ParseInt(s.substr(17, 2));
  if (!days || !h || !mi || !se) return std::nullopt;
  int64_t micros = ((*days * 24 + *h) * 60 + *mi) * 60 + *se;
  micros *= 1000000;
  size_t i = 19;
  if (i < s.size() && s[i] == '.') {
    ++i;
    int64_t frac = 0;
    int digits = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (digits < 6) {
        frac = frac * 10 + (s[i] - '0');
        ++digits;
      }
      ++i;
    }
    while (digits < 6) {
      frac *= 10;
      ++digits;
    }
    micros += frac;
  }
  std::string_view zone = s.substr(i);
  if (!(zone.empty() || zone == "Z" || zone == "+00:00")) return std::nullopt;
  return micros;
}

int64_t FloorMillis(int64_t micros) {
  int64_t r = micros % 1000;
  return r < 0 ? micros - r - 1000 : micros - r;
}

// --- Exact row keys, for multiset comparisons ------------------------------------------------

std::string Key(const data::Value& v) {
  if (v.is_null()) return "N";
  if (v.is_bool()) return v.bool_value() ? "T" : "F";
  if (v.is_int()) return "i" + std::to_string(v.int_value());
  if (v.is_double()) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "d%a", v.double_value());
    return buf;
  }
  if (v.is_decimal()) return "m" + data::Int128ToString(v.decimal_value());
  if (v.is_bytes()) return "b" + std::to_string(v.bytes().size()) + ":" + v.bytes();
  std::string out = "[";
  for (const auto& c : v.children()) out += Key(c) + ",";
  return out + "]";
}

/// One key per row, over the columns named in `columns` (in that order).
Result<std::vector<std::string>> RowKeys(const data::RecordBatch& batch,
                                         const std::vector<std::string>& columns) {
  std::vector<int> index;
  for (const auto& c : columns) {
    int i = batch.schema().FieldIndex(c);
    if (i < 0) return Status::NotFound("no column " + c);
    index.push_back(i);
  }
  std::vector<std::string> out;
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    std::string key;
    for (int i : index) key += Key(batch.column(i).GetValue(r)) + "|";
    out.push_back(std::move(key));
  }
  return out;
}

// --- Log replay (JSON commits only: enough for the tables it is used on) --------------------

struct LogAdd {
  std::string path;  // decoded, relative to the table root
  std::optional<std::string> stats;
  bool has_dv = false;
};

struct Replay {
  bool complete = false;
  std::string why;  // when not complete
  bool column_mapping = false;
  std::map<std::string, LogAdd> live;  // by (path, deletion vector id)
};

/// The (path, dvId) key of an add or remove: a commit that gives a file a deletion vector
/// removes the old (path, dv) and adds the new one, in either order.
std::string FileKey(const json& action) {
  std::string key = UriDecode(action.value("path", ""));
  if (action.contains("deletionVector") && action["deletionVector"].is_object()) {
    const json& dv = action["deletionVector"];
    key += "\x1f" + dv.value("storageType", "") + dv.value("pathOrInlineDv", "");
    if (dv.contains("offset") && dv["offset"].is_number_integer())
      key += "@" + std::to_string(dv["offset"].get<int64_t>());
  }
  return key;
}

Replay ReplayCommits(const std::string& table_root, int64_t version) {
  Replay out;
  for (int64_t v = 0; v <= version; ++v) {
    std::string path = table_root + "/_delta_log/" + VersionName(v) + ".json";
    if (!stdfs::exists(path)) {
      out.why = "commit " + std::to_string(v) + " is missing";
      return out;
    }
    for (const json& action : JsonLines(path)) {
      if (!action.is_object()) {
        out.why = "unparsable line in " + Rel(path);
        return out;
      }
      if (action.contains("add")) {
        const json& a = action["add"];
        LogAdd add;
        add.path = UriDecode(a.value("path", ""));
        if (a.contains("stats") && a["stats"].is_string()) add.stats = a["stats"];
        add.has_dv = a.contains("deletionVector") && !a["deletionVector"].is_null();
        out.live[FileKey(a)] = add;
      } else if (action.contains("remove")) {
        out.live.erase(FileKey(action["remove"]));
      } else if (action.contains("metaData")) {
        const json& conf = action["metaData"].value("configuration", json::object());
        std::string mode = conf.value("delta.columnMapping.mode", "none");
        out.column_mapping = mode != "none";
      }
    }
  }
  out.complete = true;
  return out;
}

/// Every add action with stats in the JSON files of a table's _delta_log (commits, compacted
/// logs, JSON checkpoints), by decoded path.
std::map<std::string, std::string> LogStats(const std::string& table_root) {
  std::map<std::string, std::string> out;
  std::string log = table_root + "/_delta_log";
  std::error_code ec;
  std::vector<std::string> files;
  for (const auto& e : stdfs::directory_iterator(log, ec)) {
    std::string name = e.path().filename().string();
    if (e.is_regular_file() && !Hidden(name) && EndsWith(name, ".json"))
      files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    for (const json& action : JsonLines(f)) {
      if (!action.is_object() || !action.contains("add")) continue;
      const json& a = action["add"];
      if (!a.contains("stats") || !a["stats"].is_string()) continue;
      out[UriDecode(a.value("path", ""))] = a["stats"].get<std::string>();
    }
  }
  return out;
}

// --- The fixture --------------------------------------------------------------------------

class TestdataTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(stdfs::is_directory(Root()))
        << Root() << " is missing: these tests need the shared Delta conformance tables";
    ASSERT_TRUE(stdfs::is_regular_file(Root() + "/MANIFEST.json"))
        << Root() << "/MANIFEST.json is missing";
    tables_ = LoadManifest();
    ASSERT_GE(tables_.size(), 30u) << "MANIFEST.json lists too few tables";
  }

  const Table* FindTable(const std::string& name) const {
    for (const auto& t : tables_)
      if (t.name == name) return &t;
    return nullptr;
  }

  std::vector<Table> tables_;
};

// Every .parquet file reads, and yields the rows its footer promises.
TEST_F(TestdataTest, EveryParquetFileReads) {
  std::vector<std::string> files = ParquetFilesUnder(Root(), /*data_only=*/false);
  ASSERT_GE(files.size(), 300u) << "expected about 400 .parquet files under " << Root();
  int ok = 0;
  std::vector<std::string> failures;
  for (const auto& path : files) {
    ReadOutcome r = ReadParquet(path);
    if (!r.status.ok()) {
      failures.push_back(Rel(path) + "\n    " + r.status.ToString() +
                         "\n  footer: " + FooterSummary(path));
      continue;
    }
    ++ok;
    EXPECT_EQ(r.batch.num_rows(), r.footer_rows) << Rel(path);
    for (size_t c = 0; c < r.batch.num_columns(); ++c) {
      EXPECT_EQ(r.batch.column(c).length(), r.batch.num_rows())
          << Rel(path) << " column " << r.batch.schema().field(c).name;
    }
  }
  std::cout << "[ testdata ] " << ok << " of " << files.size() << " .parquet files read\n";
  for (const auto& f : failures) ADD_FAILURE() << "cannot read " << f;
}

// Each row group on its own yields the footer's row count for it.
TEST_F(TestdataTest, RowGroupsReadOneByOne) {
  int groups = 0;
  for (const auto& path : ParquetFilesUnder(Root(), false)) {
    auto reader = FileReader::Open(Fs(), path);
    if (!reader.ok()) continue;  // reported by EveryParquetFileReads
    for (int g = 0; g < (*reader)->num_row_groups(); ++g) {
      auto batch = (*reader)->ReadRowGroup(g);
      if (!batch.ok()) continue;
      ++groups;
      EXPECT_EQ(batch->num_rows(), (*reader)->metadata().row_groups[g].num_rows)
          << Rel(path) << " row group " << g;
    }
  }
  EXPECT_GE(groups, 300);
}

// Data files: the rows read equal the numRecords that the writer put in the add action's stats.
TEST_F(TestdataTest, DataFileRowCountsMatchLogStats) {
  int checked = 0, without_stats = 0;
  for (const Table& t : tables_) {
    if (t.root.empty()) continue;
    std::map<std::string, std::string> stats = LogStats(t.root);
    for (const auto& [path, text] : stats) {
      std::string full = t.root + "/" + path;
      if (path.find("://") != std::string::npos || !stdfs::is_regular_file(full)) continue;
      auto parsed = ParseStats(text);
      ASSERT_TRUE(parsed.has_value()) << t.name << " " << path << ": stats do not parse";
      auto records = NumRecords(*parsed);
      if (!records) continue;
      int64_t rows = RowCount(full);
      EXPECT_EQ(rows, *records) << Rel(full) << ": numRecords in the log";
      ++checked;
    }
    for (const auto& f : ParquetFilesUnder(t.root, /*data_only=*/true)) {
      std::string rel = f.substr(t.root.size() + 1);
      if (!stats.count(rel)) ++without_stats;
    }
  }
  std::cout << "[ testdata ] " << checked << " data files matched numRecords; " << without_stats
            << " data files have no stats in the JSON log\n";
  EXPECT_GE(checked, 150);
}

// Expected-result files hold the manifest's row count at the latest version; DAT's vN files hold
// the rows of the files live at version N (summed from the stats of a JSON replay).
TEST_F(TestdataTest, ExpectedRowCountsMatchManifest) {
  int checked = 0;
  for (const Table& t : tables_) {
    if (t.expected_data.empty()) continue;
    std::string table_dir = Root() + "/" + t.name;
    if (t.expected_data.find("<latest|vN>") != std::string::npos) {
      std::string latest = table_dir + "/expected/latest/table_content.parquet";
      ASSERT_TRUE(stdfs::exists(latest)) << latest;
      ASSERT_TRUE(t.expected_rows.has_value()) << t.name;
      EXPECT_EQ(RowCount(latest), *t.expected_rows) << Rel(latest);
      ++checked;
      for (const auto& e : stdfs::directory_iterator(table_dir + "/expected")) {
        std::string name = e.path().filename().string();
        if (name.size() < 2 || name[0] != 'v') continue;
        auto version = ParseInt(name.substr(1));
        ASSERT_TRUE(version.has_value()) << e.path();
        std::string file = e.path().string() + "/table_content.parquet";
        int64_t rows = RowCount(file);
        if (*version == t.latest_version) {
          EXPECT_EQ(rows, *t.expected_rows) << Rel(file);
        }
        Replay replay = ReplayCommits(t.root, *version);
        ASSERT_TRUE(replay.complete) << t.name << ": " << replay.why;
        int64_t live_rows = 0;
        for (const auto& [key, add] : replay.live) {
          auto stats = add.stats ? ParseStats(*add.stats) : std::nullopt;
          auto n = stats ? NumRecords(*stats) : std::nullopt;
          ASSERT_TRUE(n.has_value()) << t.name << " " << add.path << ": no numRecords";
          live_rows += *n;
        }
        EXPECT_EQ(rows, live_rows) << Rel(file) << ": rows live at version " << *version;
        ++checked;
      }
    } else {
      ASSERT_TRUE(EndsWith(t.expected_data, "/*.parquet")) << t.expected_data;
      std::string dir =
          Root() + "/" + t.expected_data.substr(0, t.expected_data.size() - strlen("/*.parquet"));
      std::vector<std::string> files = ParquetFilesIn(dir);
      ASSERT_FALSE(files.empty()) << dir;
      ASSERT_TRUE(t.expected_rows.has_value()) << t.name;
      int64_t rows = 0;
      for (const auto& f : files) rows += RowCount(f);
      EXPECT_EQ(rows, *t.expected_rows) << t.name << ": rows in " << Rel(dir) << "/*.parquet";
      ++checked;
    }
  }
  EXPECT_GE(checked, 30);
}

// _last_checkpoint gives the number of actions in the checkpoint it names ("size") and how many
// of them are adds ("numOfAddFiles"): count them in the checkpoint Parquet files (classic,
// multi-part, and v2 with sidecars).
TEST_F(TestdataTest, CheckpointsMatchLastCheckpoint) {
  int checked = 0;
  for (const Table& t : tables_) {
    std::string log = t.root + "/_delta_log";
    std::string last_path = log + "/_last_checkpoint";
    if (t.root.empty() || !stdfs::exists(last_path)) continue;
    json last = json::parse(ReadText(last_path), nullptr, false);
    ASSERT_TRUE(last.is_object()) << last_path;
    int64_t version = last.value("version", int64_t{-1});
    int64_t size = last.value("size", int64_t{-1});
    std::optional<int64_t> adds;
    if (last.contains("numOfAddFiles")) adds = last["numOfAddFiles"].get<int64_t>();
    std::string prefix = VersionName(version) + ".checkpoint.";

    // The top-level checkpoint files of `version`.
    std::vector<std::string> top;
    if (last.contains("v2Checkpoint")) {
      top.push_back(log + "/" + last["v2Checkpoint"].value("path", ""));
    } else {
      for (const auto& e : stdfs::directory_iterator(log)) {
        std::string name = e.path().filename().string();
        if (name.rfind(prefix, 0) == 0 && (EndsWith(name, ".parquet") || EndsWith(name, ".json")))
          top.push_back(e.path().string());
      }
      std::sort(top.begin(), top.end());
    }
    ASSERT_FALSE(top.empty()) << t.name << ": no checkpoint files for version " << version;

    int64_t actions = 0, add_actions = 0;
    std::vector<std::string> sidecars;
    auto count_parquet = [&](const std::string& path, bool collect_sidecars) {
      ReadOutcome r = ReadParquet(path);
      if (!r.status.ok()) {
        ADD_FAILURE() << Rel(path) << ": " << r.status.ToString();
        return;
      }
      actions += r.batch.num_rows();
      int add = r.batch.schema().FieldIndex("add");
      if (add >= 0) add_actions += r.batch.num_rows() - r.batch.column(add).null_count();
      int sidecar = r.batch.schema().FieldIndex("sidecar");
      if (collect_sidecars && sidecar >= 0) {
        const data::Column& col = r.batch.column(sidecar);
        int path_field = -1;
        const auto& fields = col.type()->fields();
        for (size_t i = 0; i < fields.size(); ++i)
          if (fields[i].name == "path") path_field = static_cast<int>(i);
        ASSERT_GE(path_field, 0) << Rel(path) << ": sidecar has no path";
        for (int64_t row = 0; row < col.length(); ++row) {
          data::Value v = col.GetValue(row);
          if (!v.is_null()) sidecars.push_back(v.children()[path_field].bytes());
        }
      }
    };
    for (const auto& f : top) {
      if (EndsWith(f, ".json")) {
        for (const json& a : JsonLines(f)) {
          ++actions;
          if (a.contains("add")) ++add_actions;
          if (a.contains("sidecar")) sidecars.push_back(a["sidecar"].value("path", ""));
        }
      } else {
        count_parquet(f, true);
      }
    }
    for (const auto& s : sidecars) count_parquet(log + "/_sidecars/" + s, false);
    EXPECT_EQ(actions, size) << t.name << ": actions in the checkpoint at version " << version;
    if (adds) {
      EXPECT_EQ(add_actions, *adds) << t.name << ": add actions in the checkpoint";
    }
    ++checked;
  }
  EXPECT_GE(checked, 10);
}

// The add actions inside checkpoint Parquet files (read with our reader, nested structs and all)
// agree with the JSON commits, and their numRecords with the data files.
TEST_F(TestdataTest, CheckpointAddsAgreeWithLog) {
  int checked = 0;
  for (const Table& t : tables_) {
    if (t.root.empty()) continue;
    std::map<std::string, std::string> json_stats = LogStats(t.root);
    std::vector<std::string> checkpoints;
    for (const auto& f : ParquetFilesUnder(t.root + "/_delta_log", false)) {
      if (f.find(".checkpoint.") != std::string::npos) checkpoints.push_back(f);
    }
    for (const auto& cp : checkpoints) {
      ReadOutcome r = ReadParquet(cp);
      if (!r.status.ok()) continue;  // reported by EveryParquetFileReads
      int add = r.batch.schema().FieldIndex("add");
      if (add < 0) continue;
      const data::Column& col = r.batch.column(add);
      int path_field = -1, stats_field = -1, parsed_field = -1;
      const auto& fields = col.type()->fields();
      for (size_t i = 0; i < fields.size(); ++i) {
        if (fields[i].name == "path") path_field = static_cast<int>(i);
        if (fields[i].name == "stats") stats_field = static_cast<int>(i);
        if (fields[i].name == "stats_parsed") parsed_field = static_cast<int>(i);
      }
      ASSERT_GE(path_field, 0) << Rel(cp);
      for (int64_t row = 0; row < col.length(); ++row) {
        data::Value v = col.GetValue(row);
        if (v.is_null()) continue;
        const auto& c = v.children();
        ASSERT_TRUE(c[path_field].is_bytes()) << Rel(cp) << " row " << row;
        std::string path = UriDecode(c[path_field].bytes());
        std::optional<int64_t> records;
        if (stats_field >= 0 && c[stats_field].is_bytes()) {
          auto parsed = ParseStats(c[stats_field].bytes());
          ASSERT_TRUE(parsed.has_value()) << Rel(cp) << " row " << row << ": stats";
          records = NumRecords(*parsed);
          // The text may differ (tightBounds turns false once a deletion vector is added),
          // the record count may not.
          auto it = json_stats.find(path);
          auto json_parsed = it != json_stats.end() ? ParseStats(it->second) : std::nullopt;
          auto json_records = json_parsed ? NumRecords(*json_parsed) : std::nullopt;
          if (json_records) {
            EXPECT_EQ(records, json_records)
                << Rel(cp) << ": numRecords of " << path << " differs from the JSON commit";
          }
        } else if (parsed_field >= 0 && c[parsed_field].is_nested()) {
          const auto& pf = fields[parsed_field].type->fields();
          for (size_t i = 0; i < pf.size(); ++i) {
            if (pf[i].name == "numRecords" && c[parsed_field].children()[i].is_int())
              records = c[parsed_field].children()[i].int_value();
          }
        }
        std::string full = t.root + "/" + path;
        if (records && stdfs::is_regular_file(full)) {
          EXPECT_EQ(RowCount(full), *records) << Rel(full) << ": numRecords in " << Rel(cp);
        }
        ++checked;
      }
    }
  }
  std::cout << "[ testdata ] " << checked << " add actions read from checkpoints\n";
  EXPECT_GE(checked, 50);
}

// Column statistics in the log (nullCount, and minValues/maxValues for integers, decimals,
// floating point, dates, timestamps and short strings) agree with the values read.
TEST_F(TestdataTest, ValuesMatchLogColumnStats) {
  std::map<std::string, int> compared;  // by type
  std::set<std::string> decimal_tables;
  for (const Table& t : tables_) {
    if (t.root.empty()) continue;
    for (const auto& [path, text] : LogStats(t.root)) {
      std::string full = t.root + "/" + path;
      if (path.find("://") != std::string::npos || !stdfs::is_regular_file(full)) continue;
      auto stats = ParseStats(text);
      ASSERT_TRUE(stats.has_value()) << Rel(full);
      ReadOutcome r = ReadParquet(full);
      if (!r.status.ok()) continue;  // reported elsewhere
      const data::RecordBatch& b = r.batch;
      for (size_t c = 0; c < b.num_columns(); ++c) {
        const data::Field& field = b.schema().field(c);
        const data::Column& col = b.column(c);
        const data::DataType& type = *field.type;
        if (type.is_nested()) continue;
        std::string where = Rel(full) + " column " + field.name + " (" + type.ToString() + ")";
        auto nc = stats->find("nullCount." + field.name);
        if (nc != stats->end() && nc->second.kind == StatScalar::Kind::kInt) {
          EXPECT_EQ(std::to_string(col.null_count()), nc->second.text) << where << ": nullCount";
          ++compared["nullCount"];
        }
        // The smallest and largest non-null values, by the type's order.
        std::optional<data::Value> lo, hi;
        bool has_nan = false;
        auto less = [&](const data::Value& a, const data::Value& z) {
          if (a.is_int()) return a.int_value() < z.int_value();
          if (a.is_decimal()) return a.decimal_value() < z.decimal_value();
          if (a.is_double()) return a.double_value() < z.double_value();
          if (a.is_bytes()) return a.bytes() < z.bytes();
          return false;
        };
        for (int64_t row = 0; row < col.length(); ++row) {
          data::Value v = col.GetValue(row);
          if (v.is_null()) continue;
          if (v.is_double() && std::isnan(v.double_value())) has_nan = true;
          if (!lo || less(v, *lo)) lo = v;
          if (!hi || less(*hi, v)) hi = v;
        }
        for (const char* which : {"minValues", "maxValues"}) {
          auto it = stats->find(std::string(which) + "." + field.name);
          if (it == stats->end() || !lo) continue;
          const std::string& s = it->second.text;
          const data::Value& got = std::string(which) == "minValues" ? *lo : *hi;
          std::string what = where + ": " + which + " " + s + ", read " + got.DebugString();
          switch (type.id()) {
            case data::TypeId::kInt8:
            case data::TypeId::kInt16:
            case data::TypeId::kInt32:
            case data::TypeId::kInt64: {
              auto want = ParseInt(s);
              ASSERT_TRUE(want.has_value()) << what;
              EXPECT_EQ(got.int_value(), *want) << what;
              ++compared["integer"];
              break;
            }
            case data::TypeId::kDecimal: {
              auto want = data::ParseDecimal(s, type.precision(), type.scale());
              ASSERT_TRUE(want.ok()) << what << ": " << want.status().ToString();
              EXPECT_TRUE(got.decimal_value() == *want)
                  << what << " (" << data::FormatDecimal(got.decimal_value(), type.scale()) << ")";
              ++compared["decimal"];
              decimal_tables.insert(t.name);
              break;
            }
            case data::TypeId::kDouble:
            case data::TypeId::kFloat: {
              if (has_nan || it->second.kind == StatScalar::Kind::kString) break;
              double want = std::strtod(s.c_str(), nullptr);
              if (type.id() == data::TypeId::kFloat) {
                EXPECT_EQ(static_cast<float>(got.double_value()), static_cast<float>(want)) << what;
              } else {
                EXPECT_EQ(got.double_value(), want) << what;
              }
              ++compared["floating point"];
              break;
            }
            case data::TypeId::kDate: {
              auto want = ParseDate(s);
              ASSERT_TRUE(want.has_value()) << what;
              EXPECT_EQ(got.int_value(), *want) << what;
              ++compared["date"];
              break;
            }
            case data::TypeId::kTimestamp:
            case data::TypeId::kTimestampNtz: {
              auto want = ParseTimestamp(s);
              if (!want) {
                ADD_FAILURE() << what << ": unreadable timestamp statistic";
                break;
              }
              // Stats are in milliseconds: truncated, and for a maximum sometimes rounded up.
              int64_t v = got.int_value();
              bool match = *want == v || *want == FloorMillis(v) ||
                           (std::string(which) == "maxValues" && *want == FloorMillis(v) + 1000);
              EXPECT_TRUE(match) << what;
              ++compared["timestamp"];
              break;
            }
            case data::TypeId::kString: {
              // Delta truncates strings to 32 characters; compare the short ASCII ones only.
              bool ascii = std::all_of(
                  s.begin(), s.end(), [](char ch) { return static_cast<unsigned char>(ch) < 128; });
              if (s.size() >= 32 || !ascii) break;
              EXPECT_EQ(got.bytes(), s) << what;
              ++compared["string"];
              break;
            }
            default:
              break;
          }
        }
      }
    }
  }
  std::ostringstream summary;
  for (const auto& [k, n] : compared) summary << " " << k << "=" << n;
  std::cout << "[ testdata ] statistics compared:" << summary.str() << "\n";
  EXPECT_GE(compared["nullCount"], 200);
  EXPECT_GE(compared["integer"], 100);
  EXPECT_GE(compared["decimal"], 58) << "decimals in golden-decimal-various-scale-precision";
  EXPECT_TRUE(decimal_tables.count("golden-decimal-various-scale-precision"));
  EXPECT_TRUE(decimal_tables.count("golden-basic-decimal-table"));
  EXPECT_GE(compared["timestamp"], 10);
  EXPECT_GE(compared["date"], 1);
  EXPECT_GE(compared["string"], 10);
  EXPECT_GE(compared["floating point"], 1);
}

// The data files live at a version hold the same multiset of rows as the expected result
// (projected on the data files' columns: Spark leaves partition columns out of data files).
// Tables with deletion vectors or column mapping are not compared here.
struct Comparison {
  bool compared = false;
  std::string why_not;
};

Comparison CompareLiveFilesWithExpected(const std::string& table_root, int64_t version,
                                        const std::vector<std::string>& expected_files) {
  Comparison out;
  Replay replay = ReplayCommits(table_root, version);
  if (!replay.complete) {
    out.why_not = replay.why;
    return out;
  }
  if (replay.column_mapping) {
    out.why_not = "column mapping";
    return out;
  }
  std::vector<std::string> columns;
  std::vector<std::string> got;
  for (const auto& [key, add] : replay.live) {
    if (add.has_dv) {
      out.why_not = "deletion vectors";
      return out;
    }
    ReadOutcome r = ReadParquet(table_root + "/" + add.path);
    if (!r.status.ok()) {
      ADD_FAILURE() << add.path << ": " << r.status.ToString();
      return out;
    }
    std::vector<std::string> names;
    for (const auto& f : r.batch.schema().fields()) names.push_back(f.name);
    if (columns.empty()) columns = names;
    std::vector<std::string> sorted_columns = columns, sorted_names = names;
    std::sort(sorted_columns.begin(), sorted_columns.end());
    std::sort(sorted_names.begin(), sorted_names.end());
    if (sorted_columns != sorted_names) {
      out.why_not = "live files with different columns";
      return out;
    }
    auto keys = RowKeys(r.batch, columns);
    EXPECT_TRUE(keys.ok()) << keys.status().ToString();
    if (!keys.ok()) return out;
    got.insert(got.end(), keys->begin(), keys->end());
  }
  std::vector<std::string> want;
  for (const auto& f : expected_files) {
    ReadOutcome r = ReadParquet(f);
    if (!r.status.ok()) {
      ADD_FAILURE() << Rel(f) << ": " << r.status.ToString();
      return out;
    }
    auto keys = RowKeys(r.batch, columns);
    EXPECT_TRUE(keys.ok()) << Rel(f) << ": " << keys.status().ToString();
    if (!keys.ok()) return out;
    want.insert(want.end(), keys->begin(), keys->end());
  }
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got.size(), want.size()) << table_root << " v" << version;
  std::vector<std::string> only_got, only_want;
  std::set_difference(got.begin(), got.end(), want.begin(), want.end(),
                      std::back_inserter(only_got));
  std::set_difference(want.begin(), want.end(), got.begin(), got.end(),
                      std::back_inserter(only_want));
  auto first = [](const std::vector<std::string>& v) {
    std::string s;
    for (size_t i = 0; i < v.size() && i < 3; ++i) s += "\n    " + v[i];
    return s;
  };
  EXPECT_TRUE(only_got.empty() && only_want.empty())
      << Rel(table_root) << " v" << version << ": " << only_got.size()
      << " rows only in the data files:" << first(only_got) << "\n  " << only_want.size()
      << " rows only in the expected result:" << first(only_want);
  out.compared = true;
  return out;
}

TEST_F(TestdataTest, LiveDataFilesEqualExpectedRows) {
  std::set<std::string> compared;
  for (const Table& t : tables_) {
    if (t.expected_data.empty()) continue;
    std::string table_dir = Root() + "/" + t.name;
    std::vector<std::pair<int64_t, std::vector<std::string>>> cases;
    if (t.expected_data.find("<latest|vN>") != std::string::npos) {
      for (const auto& e : stdfs::directory_iterator(table_dir + "/expected")) {
        std::string name = e.path().filename().string();
        if (name == "latest") {
          cases.push_back({t.latest_version, {e.path().string() + "/table_content.parquet"}});
        } else if (auto version = name.size() > 1 && name[0] == 'v' ? ParseInt(name.substr(1))
                                                                    : std::nullopt) {
          cases.push_back({*version, {e.path().string() + "/table_content.parquet"}});
        }
      }
    } else {
      std::string dir =
          Root() + "/" + t.expected_data.substr(0, t.expected_data.size() - strlen("/*.parquet"));
      cases.push_back({t.latest_version, ParquetFilesIn(dir)});
    }
    for (const auto& [version, files] : cases) {
      Comparison c = CompareLiveFilesWithExpected(t.root, version, files);
      if (c.compared) {
        compared.insert(t.name);
      } else if (!c.why_not.empty()) {
        std::cout << "[ testdata ] " << t.name << " v" << version << " not compared: " << c.why_not
                  << "\n";
      }
    }
  }
  // The tables the brief singles out, and the other plain ones, must have been compared.
  for (const char* name :
       {"golden-data-reader-primitives", "golden-decimal-various-scale-precision",
        "golden-basic-decimal-table", "golden-kernel-timestamp-int96",
        "golden-kernel-timestamp-timestamp_micros", "golden-data-reader-nested-struct",
        "golden-data-reader-map", "golden-data-reader-array-primitives",
        "golden-data-reader-timestamp_ntz", "golden-data-reader-partition-values",
        "dat-basic_append", "dat-basic_partitioned", "dat-multi_partitioned",
        "dat-with_schema_change"}) {
    EXPECT_TRUE(compared.count(name)) << name << " was not compared with its expected rows";
  }
  std::cout << "[ testdata ] " << compared.size() << " tables compared row for row\n";
}

// golden-data-reader-primitives: the data files and the expected result are the same rows.
TEST_F(TestdataTest, PrimitivesDataEqualsExpected) {
  const Table* t = FindTable("golden-data-reader-primitives");
  ASSERT_NE(t, nullptr);
  std::vector<std::string> data = ParquetFilesUnder(t->root, true);
  std::vector<std::string> expected = ParquetFilesIn(Root() + "/" + t->name + "/expected");
  ASSERT_FALSE(data.empty());
  ASSERT_FALSE(expected.empty());
  std::vector<std::string> got, want;
  std::vector<std::string> columns;
  for (const auto& f : data) {
    ReadOutcome r = ReadParquet(f);
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    if (columns.empty()) {
      for (const auto& field : r.batch.schema().fields()) columns.push_back(field.name);
    }
    auto keys = RowKeys(r.batch, columns);
    ASSERT_TRUE(keys.ok()) << keys.status().ToString();
    got.insert(got.end(), keys->begin(), keys->end());
  }
  for (const auto& f : expected) {
    ReadOutcome r = ReadParquet(f);
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(r.batch.schema().num_fields(), columns.size()) << Rel(f);
    auto keys = RowKeys(r.batch, columns);
    ASSERT_TRUE(keys.ok()) << keys.status().ToString();
    want.insert(want.end(), keys->begin(), keys->end());
  }
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  ASSERT_EQ(got.size(), 11u);
  EXPECT_EQ(got, want);
  // One row is NULL in every column.
  std::string all_null;
  for (size_t i = 0; i < columns.size(); ++i) all_null += "N|";
  EXPECT_EQ(std::count(got.begin(), got.end(), all_null), 1) << "columns: " << columns.size();
}

// INT96 and TIMESTAMP(MICROS) tables hold the same instants, row for row (by id).
TEST_F(TestdataTest, Int96AndMicrosTimestampsAgree) {
  auto times_by_id = [&](const std::string& table) {
    std::map<int64_t, data::Value> out;
    const Table* t = FindTable(table);
    EXPECT_NE(t, nullptr) << table;
    if (!t) return out;
    for (const auto& f : ParquetFilesUnder(t->root, true)) {
      ReadOutcome r = ReadParquet(f);
      EXPECT_TRUE(r.status.ok()) << Rel(f) << ": " << r.status.ToString();
      if (!r.status.ok()) continue;
      int id = r.batch.schema().FieldIndex("id");
      int time = r.batch.schema().FieldIndex("time");
      EXPECT_GE(id, 0);
      EXPECT_GE(time, 0);
      if (id < 0 || time < 0) continue;
      EXPECT_EQ(r.batch.schema().field(time).type->id(), data::TypeId::kTimestamp) << Rel(f);
      for (int64_t row = 0; row < r.batch.num_rows(); ++row)
        out[r.batch.column(id).GetValue(row).int_value()] = r.batch.column(time).GetValue(row);
    }
    return out;
  };
  auto int96 = times_by_id("golden-kernel-timestamp-int96");
  auto micros = times_by_id("golden-kernel-timestamp-timestamp_micros");
  ASSERT_EQ(int96.size(), 5u);
  ASSERT_EQ(micros.size(), 5u);
  for (const auto& [id, v] : int96) {
    ASSERT_TRUE(micros.count(id)) << id;
    EXPECT_EQ(v, micros[id]) << "id " << id << ": INT96 " << v.DebugString() << ", micros "
                             << micros[id].DebugString();
  }
  // id 0 is 2020-02-01T08:09:10Z in the log statistics; id 4 is NULL.
  ASSERT_TRUE(int96[0].is_int());
  EXPECT_EQ(int96[0].int_value(), *ParseTimestamp("2020-02-01T08:09:10.000Z"));
  EXPECT_TRUE(int96[4].is_null());
}

// The decimal table: exact values at every precision and scale, checked against the log's
// statistics text (which keeps all 38 digits) in ValuesMatchLogColumnStats; here, that every
// column reads as the decimal type the Delta schema declares.
TEST_F(TestdataTest, DecimalTypesMatchDeltaSchema) {
  const Table* t = FindTable("golden-decimal-various-scale-precision");
  ASSERT_NE(t, nullptr);
  std::vector<std::string> files = ParquetFilesUnder(t->root, true);
  ASSERT_EQ(files.size(), 1u);
  ReadOutcome r = ReadParquet(files[0]);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ASSERT_EQ(r.batch.num_rows(), 3);
  int columns = 0;
  for (const auto& f : r.batch.schema().fields()) {
    int p = 0, s = 0;
    ASSERT_EQ(std::sscanf(f.name.c_str(), "decimal_%d_%d", &p, &s), 2) << f.name;
    ASSERT_EQ(f.type->id(), data::TypeId::kDecimal) << f.name;
    EXPECT_EQ(f.type->precision(), p) << f.name;
    EXPECT_EQ(f.type->scale(), s) << f.name;
    ++columns;
  }
  EXPECT_EQ(columns, 29);
}

}  // namespace
}  // namespace cdclake::parquet
