// Property tests of the engine against the reference model (SEMANTICS §1, §8): random event sets
// x arrival orders x batch cuts x replays x restarts and lost key indexes give the model's
// table; replays write nothing; counts conserve. Plus tombstone expiry (§6).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <random>
#include <set>
#include <sstream>

#include "apply/applier.h"
#include "apply/index_log.h"
#include "apply/key_index.h"
#include "apply/testing/reference_model.h"
#include "delta/snapshot.h"
#include "delta/table_scan.h"
#include "io/local_file_system.h"
#include "io/scratch_dir.h"

namespace cdclake::apply::testing {
namespace {

using data::DataType;
using data::Field;
using data::Value;

constexpr int64_t kFixedNowMs = 1'700'000'000'000;
constexpr int64_t kDayMs = 24LL * 3600 * 1000;

int64_t EnvInt(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  return std::strtoll(v, nullptr, 10);
}

std::shared_ptr<const data::Expr> OpIs(const std::string& op) {
  return data::Expr::Compare(data::CompareOp::kEq, data::Expr::Column({"op"}),
                             data::Expr::Literal(Value::Bytes(op), DataType::String()));
}

// The target's rows (columns `fields`, by name); no rows when the table does not exist yet.
Result<std::vector<ModelRow>> ReadTarget(io::FileSystem& fs, const std::string& target,
                                         const std::vector<Field>& fields) {
  CDCLAKE_ASSIGN_OR_RETURN(bool exists, fs.Exists(target + "/_delta_log"));
  if (!exists) return std::vector<ModelRow>{};
  CDCLAKE_ASSIGN_OR_RETURN(auto snapshot, delta::Snapshot::Load(fs, target));
  delta::ScanOptions options;
  for (const Field& f : fields) options.columns.push_back(f.name);
  CDCLAKE_ASSIGN_OR_RETURN(data::RecordBatch rows, delta::ReadTable(fs, *snapshot, options));
  std::vector<ModelRow> out;
  for (int64_t r = 0; r < rows.num_rows(); ++r) out.push_back(rows.GetRow(r));
  return out;
}

// The table's latest version, -1 when it does not exist.
Result<int64_t> TableVersion(io::FileSystem& fs, const std::string& target) {
  CDCLAKE_ASSIGN_OR_RETURN(bool exists, fs.Exists(target + "/_delta_log"));
  if (!exists) return int64_t{-1};
  CDCLAKE_ASSIGN_OR_RETURN(auto snapshot, delta::Snapshot::Load(fs, target));
  return snapshot->version();
}

// --- one random case ------------------------------------------------------------------------

enum class SeqKind { kInt, kStruct, kString };
enum class Interrupt { kNone, kRestart, kDropIndex };

struct CaseConfig {
  ScdType scd = ScdType::kType1;
  int key_columns = 1;
  SeqKind seq = SeqKind::kInt;
  std::optional<ColumnSelection> ignore_null;
  std::optional<ColumnSelection> track_history;
  bool truncates = false;  // SCD1: some events are truncates
  bool invalid = false;    // some rows have a NULL key or sequence (to be quarantined)
  bool persistent_index = true;
  Interrupt interrupt = Interrupt::kNone;
  // The target's layout (chosen from the case number, not the generator, so the events of a
  // case do not depend on it): PARTITIONED BY, and copy-on-write instead of deletion vectors.
  std::vector<std::string> partition_by;
  bool copy_on_write = false;
  // Every batch checks for an index without state (ApplyOptions::bulk_from 1), so that a first
  // batch takes the bulk path a load takes.
  bool bulk_every_batch = false;
  // SCD2: ApplyOptions::history_tail_events (1 and 2 archive after a few events per key).
  size_t history_tail = 4;
  // Up to this many more events per case (long histories, for the SCD2 archive).
  int extra_events = 0;
};

std::string SelectionText(const std::optional<ColumnSelection>& s) {
  if (!s.has_value()) return "off";
  if (s->mode == ColumnSelection::Mode::kAll) return "*";
  std::string out = s->mode == ColumnSelection::Mode::kOnly ? "(" : "* EXCEPT (";
  for (size_t i = 0; i < s->columns.size(); ++i) out += (i ? ", " : "") + s->columns[i];
  return out + ")";
}

std::string ConfigText(const CaseConfig& c) {
  std::ostringstream out;
  out << "SCD" << static_cast<int>(c.scd) << ", " << c.key_columns << " key column(s), "
      << (c.seq == SeqKind::kInt      ? "bigint"
          : c.seq == SeqKind::kStruct ? "STRUCT(s1 int, s2 int)"
                                      : "string")
      << " sequence, IGNORE NULL UPDATES " << SelectionText(c.ignore_null) << ", TRACK HISTORY "
      << SelectionText(c.track_history) << ", truncates " << c.truncates << ", invalid rows "
      << c.invalid << ", persistent index " << c.persistent_index << ", interrupts "
      << (c.interrupt == Interrupt::kNone      ? "none"
          : c.interrupt == Interrupt::kRestart ? "restart"
                                               : "restart+drop index");
  out << ", partitioned by (" << SelectionText(ColumnSelection::Only(c.partition_by)).substr(1)
      << ", " << (c.copy_on_write ? "copy-on-write" : "deletion vectors")
      << (c.bulk_every_batch ? ", bulk path for every batch" : "");
  if (c.scd == ScdType::kType2) out << ", history tail " << c.history_tail;
  return out.str();
}

// Whether `sel` picks `name` (written here rather than borrowed from the engine).
bool Picks(const ColumnSelection& sel, const std::string& name) {
  bool listed = std::find(sel.columns.begin(), sel.columns.end(), name) != sel.columns.end();
  if (sel.mode == ColumnSelection::Mode::kAll) return true;
  return sel.mode == ColumnSelection::Mode::kOnly ? listed : !listed;
}

// Source: k1 int [, k2 string], v1 bigint, v2 string, v3 int, op string, then the sequence
// (seq bigint | s1 int, s2 int | seq string). Output: everything but op and the sequence.
struct CaseSchema {
  data::Schema source;
  std::vector<std::string> sequence_columns;
  ModelFlow model;
};

CaseSchema MakeSchema(const CaseConfig& c) {
  CaseSchema s;
  std::vector<Field> fields = {{"k1", DataType::Int32(), true}};
  if (c.key_columns == 2) fields.push_back({"k2", DataType::String(), true});
  fields.push_back({"v1", DataType::Int64(), true});
  fields.push_back({"v2", DataType::String(), true});
  fields.push_back({"v3", DataType::Int32(), true});
  s.model.columns = fields;
  s.model.keys = {"k1"};
  if (c.key_columns == 2) s.model.keys.push_back("k2");
  fields.push_back({"op", DataType::String(), true});
  switch (c.seq) {
    case SeqKind::kInt:
      fields.push_back({"seq", DataType::Int64(), true});
      s.sequence_columns = {"seq"};
      s.model.sequence_type = DataType::Int64();
      break;
    case SeqKind::kStruct:
      fields.push_back({"s1", DataType::Int32(), true});
      fields.push_back({"s2", DataType::Int32(), true});
      s.sequence_columns = {"s1", "s2"};
      s.model.sequence_type =
          DataType::Struct({{"s1", DataType::Int32(), true}, {"s2", DataType::Int32(), true}});
      break;
    case SeqKind::kString:
      fields.push_back({"seq", DataType::String(), true});
      s.sequence_columns = {"seq"};
      s.model.sequence_type = DataType::String();
      break;
  }
  s.source = data::Schema(fields);
  s.model.scd_type = static_cast<int>(c.scd);
  if (c.track_history.has_value()) {
    std::set<std::string> tracked;
    for (const Field& f : s.model.columns) {
      if (Picks(*c.track_history, f.name)) tracked.insert(f.name);
    }
    s.model.tracked = tracked;
  }
  if (c.ignore_null.has_value()) {
    for (const Field& f : s.model.columns) {
      if (Picks(*c.ignore_null, f.name)) s.model.ignore_null.insert(f.name);
    }
  }
  return s;
}

FlowDefinition MakeFlow(const CaseConfig& c, const CaseSchema& s, const std::string& target) {
  FlowDefinition flow;
  flow.name = "property";
  flow.target = target;
  flow.keys = s.model.keys;
  flow.sequence_by = s.sequence_columns;
  flow.sequence_is_struct = c.seq == SeqKind::kStruct;
  flow.delete_when = OpIs("DELETE");
  if (c.scd == ScdType::kType1) flow.truncate_when = OpIs("TRUNCATE");
  std::vector<std::string> except = {"op"};
  except.insert(except.end(), s.sequence_columns.begin(), s.sequence_columns.end());
  flow.columns = ColumnSelection::Except(except);
  flow.scd_type = c.scd;
  flow.track_history = c.track_history;
  flow.ignore_null_updates = c.ignore_null;
  flow.partition_columns = c.partition_by;
  if (c.copy_on_write) flow.table_properties["delta.enableDeletionVectors"] = "false";
  return flow;
}

// One source row and what the model makes of it.
struct GenRow {
  std::vector<Value> row;
  bool valid = true;
  ModelEvent event;
};

std::string RowText(const GenRow& r) {
  std::string out;
  for (size_t i = 0; i < r.row.size(); ++i) out += (i ? ", " : "") + r.row[i].DebugString();
  return out + (r.valid ? "" : "   <- invalid");
}

template <typename T>
const T& Pick(std::mt19937_64& rng, const std::vector<T>& from) {
  return from[rng() % from.size()];
}

std::vector<GenRow> GenerateRows(std::mt19937_64& rng, const CaseConfig& c) {
  int n = 3 + static_cast<int>(rng() % 12);
  if (c.extra_events > 0) n += static_cast<int>(rng() % static_cast<uint64_t>(c.extra_events));
  // 2-4 keys.
  std::vector<std::vector<Value>> key_pool;
  if (c.key_columns == 1) {
    for (int k = 1; k <= 4; ++k) key_pool.push_back({Value::Int(k)});
  } else {
    for (int a = 1; a <= 2; ++a) {
      for (const char* b : {"a", "b"}) key_pool.push_back({Value::Int(a), Value::Bytes(b)});
    }
  }
  std::shuffle(key_pool.begin(), key_pool.end(), rng);
  key_pool.resize(2 + rng() % 3);
  // Sequences with ties: few distinct values.
  std::vector<Value> seqs;
  if (c.seq == SeqKind::kInt) {
    for (int v = 0; v < 2 + n / 2; ++v) seqs.push_back(Value::Int(v * 10));
  } else if (c.seq == SeqKind::kStruct) {
    for (int a = 0; a < 3; ++a) {
      for (int b = 0; b < 2; ++b) seqs.push_back(Value::Nested({Value::Int(a), Value::Int(b)}));
    }
  } else {
    for (const char* v : {"", "a", "a0", "aa", "b", "b0", "ba", "c"})
      seqs.push_back(Value::Bytes(v));
    seqs.resize(3 + n / 3);
  }
  const std::vector<Value> v1s = {Value::Null(), Value::Int(1), Value::Int(2)};
  const std::vector<Value> v2s = {Value::Null(), Value::Bytes("x"), Value::Bytes("y")};
  const std::vector<Value> v3s = {Value::Null(), Value::Int(7)};
  const std::vector<Value> upsert_ops = {Value::Bytes("INSERT"), Value::Bytes("UPDATE"),
                                         Value::Null()};

  std::vector<GenRow> rows;
  for (int i = 0; i < n; ++i) {
    if (!rows.empty() && rng() % 7 == 0) {  // an exact duplicate of an earlier row
      rows.push_back(rows[rng() % rows.size()]);
      continue;
    }
    GenRow g;
    int roll = static_cast<int>(rng() % 100);
    g.event.kind = c.truncates && roll < 8 ? EventKind::kTruncate
                   : roll < 30             ? EventKind::kDelete
                                           : EventKind::kUpsert;
    std::vector<Value> key = Pick(rng, key_pool);
    std::vector<Value> values = {Pick(rng, v1s), Pick(rng, v2s), Pick(rng, v3s)};
    Value seq = Pick(rng, seqs);
    Value op = g.event.kind == EventKind::kUpsert   ? Pick(rng, upsert_ops)
               : g.event.kind == EventKind::kDelete ? Value::Bytes("DELETE")
                                                    : Value::Bytes("TRUNCATE");
    if (g.event.kind == EventKind::kTruncate && rng() % 4 != 0) {
      for (Value& k : key) k = Value::Null();  // as the docs' truncate row
      for (Value& v : values) v = Value::Null();
    }
    if (c.invalid && g.event.kind != EventKind::kTruncate && rng() % 6 == 0) {
      g.valid = false;
      int what = static_cast<int>(rng() % 3);
      if (what == 0) {
        key[rng() % key.size()] = Value::Null();
      } else if (what == 1 || c.seq != SeqKind::kStruct) {
        seq = Value::Null();
      } else {
        std::vector<Value> fields = seq.children();
        fields[rng() % 2] = Value::Null();
        seq = Value::Nested(fields);
      }
    }
    g.row = key;
    g.row.insert(g.row.end(), values.begin(), values.end());
    g.event.values = g.row;
    g.event.sequence = seq;
    g.row.push_back(op);
    if (c.seq == SeqKind::kStruct) {
      if (seq.is_null()) {
        g.row.push_back(Value::Null());
        g.row.push_back(Value::Null());
      } else {
        g.row.push_back(seq.children()[0]);
        g.row.push_back(seq.children()[1]);
      }
    } else {
      g.row.push_back(seq);
    }
    rows.push_back(std::move(g));
  }
  return rows;
}

change::ChangeBatch MakeBatch(const CaseSchema& s, const std::vector<GenRow>& rows) {
  change::ChangeBatch batch;
  batch.rows = data::RecordBatch(s.source);
  for (size_t i = 0; i < rows.size(); ++i) {
    batch.rows.AppendRow(rows[i].row);
    batch.positions.push_back({"generated", static_cast<int64_t>(i) + 1, 0});
    batch.raw.push_back(RowText(rows[i]));
  }
  return batch;
}

int64_t InvalidCount(const std::vector<GenRow>& rows) {
  return std::count_if(rows.begin(), rows.end(), [](const GenRow& g) { return !g.valid; });
}

// What the cases exercised, printed once per test so a reader can see the generator reach
// ties, truncates, replays and restarts.
struct Coverage {
  int64_t batches = 0, replays = 0, restarts = 0, index_drops = 0;
  int64_t applied = 0, discarded = 0, quarantined = 0, conflicts = 0, target_rows = 0;
  int64_t truncates = 0, struct_cases = 0, string_cases = 0;
  int64_t partitioned_cases = 0, copy_on_write_cases = 0;
  int64_t index_comparisons = 0;  // bulk cases whose key index was compared with the ordinary's
  int64_t archived_chunks = 0;    // SCD2 history chunks written
  int64_t chunks_rewritten = 0;   // of them, written again or deleted (histories read whole)

  std::string ToString() const {
    std::ostringstream out;
    out << batches << " batches, " << replays << " replays, " << restarts << " restarts ("
        << index_drops << " with the index deleted); events applied " << applied << ", discarded "
        << discarded << ", quarantined " << quarantined << ", sequence conflicts " << conflicts
        << ", truncate rows " << truncates << "; target rows checked " << target_rows
        << "; cases with a STRUCT sequence " << struct_cases << ", with a string sequence "
        << string_cases << ", partitioned " << partitioned_cases << ", copy-on-write "
        << copy_on_write_cases << "; key indexes compared with the ordinary path's "
        << index_comparisons << "; SCD2 history chunks written " << archived_chunks << " ("
        << chunks_rewritten << " again or deleted)";
    return out.str();
  }
};

// Runs one case; returns a failure description, or "" when the engine agreed throughout.
class CaseRunner {
 public:
  CaseRunner(const CaseConfig& config, std::mt19937_64& rng, std::string target, Coverage* coverage)
      : config_(config),
        rng_(rng),
        schema_(MakeSchema(config)),
        target_(std::move(target)),
        coverage_(coverage) {
    fields_ = ModelTargetFields(schema_.model);
  }

  std::string Run() {
    std::vector<GenRow> rows = GenerateRows(rng_, config_);
    std::shuffle(rows.begin(), rows.end(), rng_);  // arrival order
    // Batch cuts.
    const size_t n = rows.size();
    size_t num_batches = 1 + rng_() % std::min<size_t>(n, 6);
    std::vector<size_t> cuts = {0, n};
    while (cuts.size() < num_batches + 1) {
      size_t cut = 1 + rng_() % (n - 1);
      if (std::find(cuts.begin(), cuts.end(), cut) == cuts.end()) cuts.push_back(cut);
    }
    std::sort(cuts.begin(), cuts.end());
    std::vector<std::vector<GenRow>> batches;
    for (size_t b = 0; b + 1 < cuts.size(); ++b) {
      batches.emplace_back(rows.begin() + cuts[b], rows.begin() + cuts[b + 1]);
    }
    return RunBatches(batches, /*extras=*/true);
  }

  // Applies `batches` in order, checking after each; with `extras`, also replays earlier
  // batches and restarts (dropping the key index) at random points.
  std::string RunBatches(const std::vector<std::vector<GenRow>>& batches, bool extras) {
    trace_ = ConfigText(config_) + "\nsource columns:";
    for (const Field& f : schema_.source.fields()) trace_ += " " + f.name;
    trace_ += "\n";
    if (EnvInt("CDCLAKE_PROPERTY_VERBOSE", 0) != 0) std::cerr << trace_;
    if (std::string err = Open(); !err.empty()) return err;
    for (size_t b = 0; b < batches.size(); ++b) {
      Note("batch " + std::to_string(b) + ":");
      for (const GenRow& r : batches[b]) Note("  " + RowText(r));
      if (std::string err = ApplyNew(batches[b]); !err.empty()) return err;
      if (extras && rng_() % 3 == 0) {
        size_t j = rng_() % (b + 1);
        Note("replay of batch " + std::to_string(j));
        ++coverage_->replays;
        if (std::string err = Replay(batches[j]); !err.empty()) return err;
      }
      if (extras && config_.interrupt != Interrupt::kNone && rng_() % 2 == 0) {
        applier_.reset();
        if (config_.interrupt == Interrupt::kDropIndex) {
          Note("restart, key index folder deleted");
          ++coverage_->index_drops;
          std::error_code ec;
          std::filesystem::remove_all(target_ + "/_cdclake/index", ec);
          if (ec) return "could not delete the index folder: " + ec.message();
        } else {
          Note("restart");
          ++coverage_->restarts;
        }
        if (std::string err = Open(); !err.empty()) return err;
      }
    }
    CountArchivedChunks();
    if (config_.bulk_every_batch && config_.persistent_index &&
        config_.interrupt == Interrupt::kNone) {
      return CheckIndexAgainstOrdinaryPath();
    }
    return "";
  }

 private:
  void Note(const std::string& line) {
    trace_ += line + "\n";
    if (EnvInt("CDCLAKE_PROPERTY_VERBOSE", 0) != 0) std::cerr << line << "\n";
  }

  std::string Fail(const std::string& what) { return what + "\n--- case ---\n" + trace_; }

  std::string Open() {
    ApplyOptions options;
    options.clock = [] { return kFixedNowMs; };
    options.persistent_index = config_.persistent_index;
    options.history_tail_events = config_.history_tail;
    if (config_.bulk_every_batch) options.bulk_from = 1;
    auto opened = Applier::Open(fs_, MakeFlow(config_, schema_, target_), options);
    if (!opened.ok()) return Fail("Applier::Open failed: " + opened.status().ToString());
    applier_ = std::move(opened).value();
    return "";
  }

  // Checks the counts of one call (§8 conservation).
  std::string CheckCounts(const ApplyResult& r, const std::vector<GenRow>& batch) {
    const ApplyCounts& c = r.counts;
    std::ostringstream out;
    if (c.read != static_cast<int64_t>(batch.size())) {
      out << "counts.read " << c.read << " != rows in the batch " << batch.size() << "; ";
    }
    if (c.read != c.applied + c.discarded + c.quarantined) {
      out << "counts do not conserve: read " << c.read << " != applied " << c.applied
          << " + discarded " << c.discarded << " + quarantined " << c.quarantined << "; ";
    }
    if (c.quarantined != InvalidCount(batch)) {
      out << "quarantined " << c.quarantined << ", expected " << InvalidCount(batch) << "; ";
    }
    coverage_->applied += c.applied;
    coverage_->discarded += c.discarded;
    coverage_->quarantined += c.quarantined;
    coverage_->conflicts += c.sequence_conflicts;
    if (c.quarantined == 0 && r.quarantine_version.has_value()) {
      out << "quarantine table written with nothing quarantined; ";
    }
    return out.str();
  }

  std::string CheckTable(const std::string& when) {
    auto rows = ReadTarget(fs_, target_, fields_);
    if (!rows.ok()) return Fail(when + ": reading the target failed: " + rows.status().ToString());
    std::vector<ModelRow> want = ReferenceApply(schema_.model, applied_);
    coverage_->target_rows += static_cast<int64_t>(want.size());
    if (!SameModelRows(*rows, want, fields_)) {
      return Fail(when + ": the engine's table differs from the model\nengine:\n" +
                  FormatModelRows(*rows, fields_) + "model:\n" + FormatModelRows(want, fields_));
    }
    return "";
  }

  std::string ApplyNew(const std::vector<GenRow>& batch) {
    ++coverage_->batches;
    for (const GenRow& g : batch) coverage_->truncates += g.event.kind == EventKind::kTruncate;
    auto before = TableVersion(fs_, target_);
    if (!before.ok()) return Fail("table version: " + before.status().ToString());
    fed_.push_back(batch);
    auto result = applier_->Apply(MakeBatch(schema_, batch));
    if (!result.ok()) return Fail("Apply failed: " + result.status().ToString());
    if (std::string bad = CheckCounts(*result, batch); !bad.empty()) return Fail(bad);
    auto after = TableVersion(fs_, target_);
    if (!after.ok()) return Fail("table version: " + after.status().ToString());
    if (result->version.has_value()) {
      if (*after != *result->version || applier_->version() != *result->version) {
        return Fail("ApplyResult.version " + std::to_string(*result->version) + ", table at " +
                    std::to_string(*after) + ", applier at " + std::to_string(applier_->version()));
      }
    } else if (*after != *before) {
      return Fail("no version reported but the table went from " + std::to_string(*before) +
                  " to " + std::to_string(*after));
    }
    for (const GenRow& g : batch) {
      if (g.valid) applied_.push_back(g.event);
    }
    return CheckTable("after the batch");
  }

  // §8: input already applied changes nothing and writes no table version.
  std::string Replay(const std::vector<GenRow>& batch) {
    auto before = TableVersion(fs_, target_);
    if (!before.ok()) return Fail("table version: " + before.status().ToString());
    fed_.push_back(batch);
    auto result = applier_->Apply(MakeBatch(schema_, batch));
    if (!result.ok()) return Fail("Apply (replay) failed: " + result.status().ToString());
    std::string bad = CheckCounts(*result, batch);
    if (result->version.has_value()) {
      bad += "a replay wrote table version " + std::to_string(*result->version) + "; ";
    }
    if (result->counts.applied != 0) {
      bad += "a replay applied " + std::to_string(result->counts.applied) + " events; ";
    }
    auto after = TableVersion(fs_, target_);
    if (!after.ok()) return Fail("table version: " + after.status().ToString());
    if (*after != *before) {
      bad += "the table went from version " + std::to_string(*before) + " to " +
             std::to_string(*after) + " on a replay; ";
    }
    if (!bad.empty()) return Fail("replay: " + bad);
    return CheckTable("after the replay");
  }

  // SCD2 history chunks the case's commits wrote (their index-log files' "h" puts), and those
  // written again or deleted (a history read whole and archived again).
  void CountArchivedChunks() {
    std::error_code ec;
    std::set<std::string> written;
    for (const auto& file : std::filesystem::directory_iterator(IndexLogDir(target_), ec)) {
      auto batch = ReadIndexLog(fs_, target_, file.path().filename().string());
      if (!batch.ok()) continue;
      for (const auto& [key, value] : batch->puts) {
        if (!key.starts_with("h")) continue;
        ++coverage_->archived_chunks;
        coverage_->chunks_rewritten += !written.insert(key).second;
      }
      for (const std::string& key : batch->deletes) {
        coverage_->chunks_rewritten += key.starts_with("h");
      }
    }
  }

  // The key index's state entries ("k" keys) and SCD2 history chunks ("h" keys) of `target`,
  // as "key=value" texts in key order.
  static Result<std::vector<std::string>> IndexEntries(const std::string& target) {
    CDCLAKE_ASSIGN_OR_RETURN(auto index, OpenRocksKeyIndex(IndexDir(target)));
    std::vector<std::string> out;
    for (const char* prefix : {"h", "k"}) {
      CDCLAKE_RETURN_IF_ERROR(
          index->Scan(prefix, [&](std::string_view key, std::string_view value) {
            out.push_back(std::string(key) + "=" + std::string(value));
            return true;
          }));
    }
    return out;
  }

  // The bulk path (bulk_from 1) must leave the key index byte for byte as the ordinary path
  // leaves it: the table alone cannot tell (a state with a wrong digest rewrites an identical
  // row, and the table stays equal). The batches the case applied and replayed go through the
  // ordinary path into a twin target, and the two indexes' entries are compared.
  std::string CheckIndexAgainstOrdinaryPath() {
    applier_.reset();
    const std::string twin = target_ + "_ordinary";
    ApplyOptions options;
    options.clock = [] { return kFixedNowMs; };
    options.history_tail_events = config_.history_tail;
    auto opened = Applier::Open(fs_, MakeFlow(config_, schema_, twin), options);
    if (!opened.ok()) return Fail("twin Applier::Open failed: " + opened.status().ToString());
    for (const std::vector<GenRow>& batch : fed_) {
      auto r = (*opened)->Apply(MakeBatch(schema_, batch));
      if (!r.ok()) return Fail("twin Apply failed: " + r.status().ToString());
    }
    opened->reset();
    auto bulk = IndexEntries(target_);
    auto ordinary = IndexEntries(twin);
    if (!bulk.ok() || !ordinary.ok()) {
      return Fail("reading the key indexes: " + bulk.status().ToString() + " / " +
                  ordinary.status().ToString());
    }
    if (*bulk != *ordinary) {
      size_t i = 0;
      while (i < bulk->size() && i < ordinary->size() && (*bulk)[i] == (*ordinary)[i]) ++i;
      auto at = [&](const std::vector<std::string>& v) {
        if (i >= v.size()) return std::string("(none)");
        static const char* kHex = "0123456789abcdef";
        std::string hex;
        for (unsigned char ch : v[i].substr(0, 96)) {
          hex += kHex[ch >> 4];
          hex += kHex[ch & 15];
        }
        return hex;
      };
      return Fail("the bulk path's key index differs from the ordinary path's: " +
                  std::to_string(bulk->size()) + " entries against " +
                  std::to_string(ordinary->size()) + "; first difference at entry " +
                  std::to_string(i) + ": bulk " + at(*bulk) + ", ordinary " + at(*ordinary));
    }
    coverage_->index_comparisons += 1;
    return Open();
  }

  const CaseConfig config_;
  std::mt19937_64& rng_;
  const CaseSchema schema_;
  const std::string target_;
  std::vector<Field> fields_;
  io::LocalFileSystem fs_;
  std::unique_ptr<Applier> applier_;
  std::vector<ModelEvent> applied_;       // valid events applied so far
  std::vector<std::vector<GenRow>> fed_;  // every batch given to Apply, in order
  std::string trace_;
  Coverage* coverage_;
};

CaseConfig RandomConfig(std::mt19937_64& rng, ScdType scd) {
  CaseConfig c;
  c.scd = scd;
  c.key_columns = rng() % 5 < 3 ? 1 : 2;
  int seq = static_cast<int>(rng() % 10);
  c.seq = seq < 6 ? SeqKind::kInt : seq < 8 ? SeqKind::kStruct : SeqKind::kString;
  switch (rng() % 8) {
    case 0:
    case 1:
      c.ignore_null = ColumnSelection::All();
      break;
    case 2:
      c.ignore_null = ColumnSelection::Only({"v1"});
      break;
    case 3:
      c.ignore_null = ColumnSelection::Except({"v1"});
      break;
    default:
      break;
  }
  if (scd == ScdType::kType2) {
    switch (rng() % 5) {
      case 0:
        c.track_history = ColumnSelection::Only({"v1"});
        break;
      case 1:
        c.track_history = ColumnSelection::Except({"v2"});
        break;
      case 2:
        c.track_history = ColumnSelection::Only({"v2", "v3"});
        break;
      default:
        break;
    }
  } else {
    c.truncates = rng() % 2 == 0;
  }
  c.invalid = rng() % 4 == 0;
  c.persistent_index = rng() % 5 != 0;
  int interrupt = static_cast<int>(rng() % 4);
  c.interrupt = interrupt < 2    ? Interrupt::kNone
                : interrupt == 2 ? Interrupt::kRestart
                                 : Interrupt::kDropIndex;
  return c;
}

// Runs CDCLAKE_PROPERTY_CASES cases (default 150 per SCD type) from CDCLAKE_PROPERTY_SEED,
// starting at case CDCLAKE_PROPERTY_FIRST_CASE; stops at the first disagreement and prints how
// to run that case alone. CDCLAKE_PROPERTY_VERBOSE=1 prints every case as it runs.
// `adjust` changes each case's configuration (given the case number) after it is drawn.
void RunCases(ScdType scd, const char* test_name,
              const std::function<void(CaseConfig&, int64_t)>& adjust = {},
              int64_t default_cases = 150) {
  const uint64_t seed = static_cast<uint64_t>(EnvInt("CDCLAKE_PROPERTY_SEED", 20240901));
  const int64_t cases = EnvInt("CDCLAKE_PROPERTY_CASES", default_cases);
  const int64_t first = EnvInt("CDCLAKE_PROPERTY_FIRST_CASE", 0);
  auto scratch = io::ScratchDir::Create("cdclake-property-");
  ASSERT_TRUE(scratch.ok()) << scratch.status().ToString();
  Coverage coverage;
  for (int64_t i = first; i < first + cases; ++i) {
    std::seed_seq seq{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32),
                      static_cast<uint32_t>(scd), static_cast<uint32_t>(i)};
    std::mt19937_64 rng(seq);
    CaseConfig config = RandomConfig(rng, scd);
    // Partitioned by nothing, a value column with NULLs (rows move between partitions, one of
    // them the NULL partition), the first key column (a key never moves), or two columns.
    static const std::vector<std::vector<std::string>> kPartitions = {
        {}, {"v2"}, {"k1"}, {"v3", "v1"}};
    config.partition_by = kPartitions[static_cast<size_t>(i) % kPartitions.size()];
    config.copy_on_write = (i / 4) % 3 == 0;
    config.bulk_every_batch = (i / 3) % 2 == 0;
    if (scd == ScdType::kType2) config.history_tail = std::vector<size_t>{0, 1, 4}[i % 3];
    if (adjust) adjust(config, i);
    coverage.partitioned_cases += !config.partition_by.empty();
    coverage.copy_on_write_cases += config.copy_on_write;
    coverage.struct_cases += config.seq == SeqKind::kStruct;
    coverage.string_cases += config.seq == SeqKind::kString;
    CaseRunner runner(config, rng, scratch->path() + "/case" + std::to_string(i), &coverage);
    std::string failure = runner.Run();
    if (!failure.empty()) {
      FAIL() << "case " << i << " of seed " << seed << " disagrees with the model.\nRerun it: "
             << "CDCLAKE_PROPERTY_SEED=" << seed << " CDCLAKE_PROPERTY_FIRST_CASE=" << i
             << " CDCLAKE_PROPERTY_CASES=1 apply_test --gtest_filter=PropertyTest." << test_name
             << "\n"
             << failure;
    }
  }
  std::cout << "[ coverage ] " << cases << " cases: " << coverage.ToString() << "\n";
  // The generator must reach what the cases are for (checked when there are enough cases).
  if (cases >= default_cases && default_cases >= 50) {
    EXPECT_GT(coverage.conflicts, 0);
    EXPECT_GT(coverage.replays, 0);
    EXPECT_GT(coverage.restarts, 0);
    EXPECT_GT(coverage.index_drops, 0);
    EXPECT_GT(coverage.quarantined, 0);
    EXPECT_GT(coverage.discarded, 0);
    if (!adjust) {
      EXPECT_GT(coverage.struct_cases, 0);
      EXPECT_GT(coverage.string_cases, 0);
    }
    EXPECT_GT(coverage.partitioned_cases, 0);
    EXPECT_GT(coverage.copy_on_write_cases, 0);
    EXPECT_GT(coverage.index_comparisons, 0);
    if (scd == ScdType::kType1) {
      EXPECT_GT(coverage.truncates, 0);
    } else {
      EXPECT_GT(coverage.archived_chunks, 0);
      if (adjust) {
        EXPECT_GT(coverage.chunks_rewritten, 0);
      }
    }
  }
}

TEST(PropertyTest, Scd1MatchesModel) {
  RunCases(ScdType::kType1, "Scd1MatchesModel");
}

TEST(PropertyTest, Scd2MatchesModel) {
  RunCases(ScdType::kType2, "Scd2MatchesModel");
}

// Long SCD2 histories (up to 70 events over 2-4 keys, in up to six batches of any arrival
// order), their first events archived in chunks after a few (key_history.h): events landing
// in the archive, copy-on-write moving archived versions' rows, restarts and a lost index
// must all give the model's table.
TEST(PropertyTest, Scd2LongHistoriesMatchModel) {
  RunCases(
      ScdType::kType2, "Scd2LongHistoriesMatchModel",
      [](CaseConfig& c, int64_t i) {
        c.seq = SeqKind::kInt;  // enough distinct sequences for long histories
        c.extra_events = 56;
        c.history_tail = static_cast<size_t>(i % 2);
      },
      60);
}

// --- fixed scenarios (found by the random cases, kept as small reproductions) ----------------

// A row of the 1-key, bigint-sequence source: k1, v1, v2, v3, op, seq.
GenRow Row(EventKind kind, int64_t seq, int64_t k, Value v1, Value v2, Value v3) {
  GenRow g;
  g.event.kind = kind;
  g.event.sequence = Value::Int(seq);
  g.event.values = {Value::Int(k), v1, v2, v3};
  g.row = g.event.values;
  g.row.push_back(kind == EventKind::kUpsert   ? Value::Bytes("UPSERT")
                  : kind == EventKind::kDelete ? Value::Bytes("DELETE")
                                               : Value::Bytes("TRUNCATE"));
  g.row.push_back(Value::Int(seq));
  return g;
}
GenRow Up(int64_t seq, int64_t k, Value v1, Value v2, Value v3) {
  return Row(EventKind::kUpsert, seq, k, std::move(v1), std::move(v2), std::move(v3));
}
const Value kNull = Value::Null();
Value N(int64_t v) {
  return Value::Int(v);
}
Value Str(const char* s) {
  return Value::Bytes(s);
}

void ExpectScenario(CaseConfig config, const std::vector<std::vector<GenRow>>& batches) {
  auto scratch = io::ScratchDir::Create("cdclake-scenario-");
  ASSERT_TRUE(scratch.ok()) << scratch.status().ToString();
  std::mt19937_64 rng(1);
  Coverage coverage;
  CaseRunner runner(config, rng, scratch->path() + "/t", &coverage);
  std::string failure = runner.RunBatches(batches, /*extras=*/false);
  EXPECT_TRUE(failure.empty()) << failure;
}

CaseConfig Scd1IgnoringNulls() {
  CaseConfig c;
  c.ignore_null = ColumnSelection::All();
  return c;
}

// §3 IGNORE NULL UPDATES, one batch: a NULL keeps the current value.
TEST(ScenarioTest, IgnoreNullUpdatesInOneBatch) {
  ExpectScenario(Scd1IgnoringNulls(),
                 {{Up(1, 1, N(1), Str("x"), N(7)), Up(2, 1, N(2), kNull, kNull)}});
}

// §1/§3 IGNORE NULL UPDATES: a late older event fills what the newer one left NULL.
TEST(ScenarioTest, IgnoreNullUpdatesLateOlderEvent) {
  ExpectScenario(Scd1IgnoringNulls(),
                 {{Up(2, 1, N(2), kNull, kNull)}, {Up(1, 1, N(1), Str("x"), N(7))}});
}

// §2 ties with IGNORE NULL UPDATES, one batch: the winner (2,NULL,NULL) is overlaid on the
// row before the tie, (1,'x',7); the loser (NULL,'y',NULL) is discarded. Expected (2,'x',7).
TEST(ScenarioTest, IgnoreNullUpdatesTieInOneBatch) {
  ExpectScenario(Scd1IgnoringNulls(),
                 {{Up(1, 1, N(1), Str("x"), N(7)), Up(2, 1, N(2), kNull, kNull),
                   Up(2, 1, kNull, Str("y"), kNull)}});
}

// The same tie, the winner arriving in a later batch than the loser.
TEST(ScenarioTest, IgnoreNullUpdatesTieWinnerArrivesLater) {
  ExpectScenario(Scd1IgnoringNulls(),
                 {{Up(1, 1, N(1), Str("x"), N(7)), Up(2, 1, kNull, Str("y"), kNull)},
                  {Up(2, 1, N(2), kNull, kNull)}});
}

// The same tie, the loser arriving in a later batch than the winner: discarded, not merged.
TEST(ScenarioTest, IgnoreNullUpdatesTieLoserArrivesLater) {
  ExpectScenario(Scd1IgnoringNulls(),
                 {{Up(1, 1, N(1), Str("x"), N(7)), Up(2, 1, N(2), kNull, kNull)},
                  {Up(2, 1, kNull, Str("y"), kNull)}});
}

// Found by seed 1: the winner (2,'y',NULL) beats (1,'y',7) at sequence 20 and is overlaid on
// the row of sequence 10, (2,'x',7): expected (2,'y',7). In one batch, and across two.
TEST(ScenarioTest, IgnoreNullUpdatesTieWinnerOverlaidOnEarlierRow) {
  ExpectScenario(Scd1IgnoringNulls(),
                 {{Up(10, 1, N(2), Str("x"), N(7)), Up(20, 1, N(1), Str("y"), N(7)),
                   Up(20, 1, N(2), Str("y"), kNull)}});
  ExpectScenario(Scd1IgnoringNulls(),
                 {{Up(10, 1, N(2), Str("x"), N(7)), Up(20, 1, N(1), Str("y"), N(7))},
                  {Up(20, 1, N(2), Str("y"), kNull)}});
}

// --- tombstone expiry (§6) -------------------------------------------------------------------

// id bigint, name string, op string, seq bigint; SCD1, deletes on op = 'DELETE'.
struct ExpiryFixture {
  io::LocalFileSystem fs;
  std::string target;
  int64_t now = kFixedNowMs;
  std::unique_ptr<Applier> applier;
  data::Schema schema{{{"id", DataType::Int64(), true},
                       {"name", DataType::String(), true},
                       {"op", DataType::String(), true},
                       {"seq", DataType::Int64(), true}}};

  Status Open(std::map<std::string, std::string> properties) {
    FlowDefinition flow;
    flow.name = "expiry";
    flow.target = target;
    flow.keys = {"id"};
    flow.sequence_by = {"seq"};
    flow.delete_when = OpIs("DELETE");
    flow.columns = ColumnSelection::Except({"op", "seq"});
    flow.table_properties = std::move(properties);
    ApplyOptions options;
    options.clock = [this] { return now; };
    CDCLAKE_ASSIGN_OR_RETURN(applier, Applier::Open(fs, flow, options));
    return Status::OK();
  }

  Result<ApplyResult> Apply(int64_t id, const char* name, const char* op, int64_t seq) {
    change::ChangeBatch batch;
    batch.rows = data::RecordBatch(schema);
    batch.rows.AppendRow({Value::Int(id), name ? Value::Bytes(name) : Value::Null(),
                          Value::Bytes(op), Value::Int(seq)});
    batch.positions.push_back({"expiry", 1, 0});
    batch.raw.push_back(std::to_string(id) + "," + op + "," + std::to_string(seq));
    return applier->Apply(batch);
  }

  std::vector<ModelRow> Rows() {
    auto rows = ReadTarget(fs, target, {schema.field(0), schema.field(1)});
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? *rows : std::vector<ModelRow>{};
  }
};

std::vector<Field> ExpiryFields() {
  return {{"id", DataType::Int64(), true}, {"name", DataType::String(), true}};
}

ModelRow IdName(int64_t id, const char* name) {
  return {Value::Int(id), Value::Bytes(name)};
}

// Runs the common story: a row, its delete, a late event before expiry (discarded), then time
// passes beyond the threshold and an unrelated event purges the tombstone. Returns the sum of
// tombstones_purged.
void ExpireTombstone(ExpiryFixture& f, int64_t threshold_ms, int64_t* purged) {
  auto r = f.Apply(1, "a", "INSERT", 5);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->counts.applied, 1);
  r = f.Apply(1, nullptr, "DELETE", 10);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->counts.applied, 1);
  EXPECT_TRUE(f.Rows().empty());
  // Before expiry the tombstone holds: a late older upsert is discarded.
  f.now += threshold_ms / 2;
  r = f.Apply(1, "late", "UPDATE", 7);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->counts.discarded, 1);
  EXPECT_EQ(r->counts.applied, 0);
  EXPECT_FALSE(r->version.has_value());
  EXPECT_TRUE(f.Rows().empty());
  *purged = r->counts.tombstones_purged;
  // Past the threshold (measured from the delete's processing time).
  f.now = kFixedNowMs + threshold_ms + 3600 * 1000;
  r = f.Apply(2, "b", "INSERT", 100);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->counts.applied, 1);
  *purged += r->counts.tombstones_purged;
}

// §6 default policy: after the purge a late older event for the key is applied as new.
TEST(TombstoneExpiryTest, DefaultPolicyAppliesLateEventAsNewAfterPurge) {
  auto scratch = io::ScratchDir::Create("cdclake-expiry-");
  ASSERT_TRUE(scratch.ok());
  ExpiryFixture f;
  f.target = scratch->path() + "/t";
  ASSERT_TRUE(f.Open({}).ok());
  int64_t purged = 0;
  ExpireTombstone(f, 172800LL * 1000, &purged);
  if (HasFatalFailure()) return;
  auto r = f.Apply(1, "late", "UPDATE", 8);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  purged += r->counts.tombstones_purged;
  EXPECT_EQ(purged, 1);
  EXPECT_EQ(r->counts.applied, 1);
  EXPECT_EQ(r->counts.quarantined, 0);
  // A key never seen, at a sequence below the purged tombstone's: applied too.
  r = f.Apply(3, "c", "INSERT", 3);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->counts.applied, 1);
  EXPECT_TRUE(
      SameModelRows(f.Rows(), {IdName(1, "late"), IdName(2, "b"), IdName(3, "c")}, ExpiryFields()))
      << FormatModelRows(f.Rows(), ExpiryFields());
}

// §6 with cdclake.lateEventPolicy = 'quarantine': an event at or below the purge horizon whose
// key has no state is quarantined; events above it, or for keys with state, apply.
TEST(TombstoneExpiryTest, QuarantinePolicyQuarantinesLateEventAfterPurge) {
  auto scratch = io::ScratchDir::Create("cdclake-expiry-");
  ASSERT_TRUE(scratch.ok());
  ExpiryFixture f;
  f.target = scratch->path() + "/t";
  ASSERT_TRUE(f.Open({{"cdclake.lateEventPolicy", "quarantine"}}).ok());
  int64_t purged = 0;
  ExpireTombstone(f, 172800LL * 1000, &purged);
  if (HasFatalFailure()) return;
  auto r = f.Apply(1, "late", "UPDATE", 8);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  purged += r->counts.tombstones_purged;
  EXPECT_EQ(purged, 1);
  EXPECT_EQ(r->counts.applied, 0);
  EXPECT_EQ(r->counts.quarantined, 1);
  EXPECT_TRUE(r->quarantine_version.has_value());
  EXPECT_FALSE(r->version.has_value());
  // At the horizon itself (the purged delete's sequence), a key never seen: quarantined.
  r = f.Apply(3, "c", "INSERT", 10);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->counts.quarantined, 1);
  // Above the horizon: applied. A key with state (2) at an older sequence: discarded as older.
  r = f.Apply(4, "d", "INSERT", 11);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->counts.applied, 1);
  r = f.Apply(2, "old", "UPDATE", 50);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->counts.discarded, 1);
  EXPECT_EQ(r->counts.quarantined, 0);
  EXPECT_TRUE(SameModelRows(f.Rows(), {IdName(2, "b"), IdName(4, "d")}, ExpiryFields()))
      << FormatModelRows(f.Rows(), ExpiryFields());
  // The quarantine table beside the target holds the two rows.
  auto q = delta::Snapshot::Load(f.fs, f.target + "_quarantine");
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  auto qrows = delta::ReadTable(f.fs, **q);
  ASSERT_TRUE(qrows.ok()) << qrows.status().ToString();
  EXPECT_EQ(qrows->num_rows(), 2);
}

// §6: the threshold is the table property pipelines.cdc.tombstoneGCThresholdInSeconds.
TEST(TombstoneExpiryTest, ThresholdComesFromTableProperty) {
  auto scratch = io::ScratchDir::Create("cdclake-expiry-");
  ASSERT_TRUE(scratch.ok());
  ExpiryFixture f;
  f.target = scratch->path() + "/t";
  ASSERT_TRUE(f.Open({{"pipelines.cdc.tombstoneGCThresholdInSeconds", "60"}}).ok());
  int64_t purged = 0;
  ExpireTombstone(f, 60 * 1000, &purged);
  if (HasFatalFailure()) return;
  auto r = f.Apply(1, "late", "UPDATE", 8);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  purged += r->counts.tombstones_purged;
  EXPECT_EQ(purged, 1);
  EXPECT_EQ(r->counts.applied, 1);
  EXPECT_TRUE(SameModelRows(f.Rows(), {IdName(1, "late"), IdName(2, "b")}, ExpiryFields()))
      << FormatModelRows(f.Rows(), ExpiryFields());
}

// §6: with the clock fixed nothing expires, across a restart and a lost key index.
TEST(TombstoneExpiryTest, TombstonesSurviveRestartAndLostIndex) {
  auto scratch = io::ScratchDir::Create("cdclake-expiry-");
  ASSERT_TRUE(scratch.ok());
  ExpiryFixture f;
  f.target = scratch->path() + "/t";
  ASSERT_TRUE(f.Open({}).ok());
  ASSERT_TRUE(f.Apply(1, "a", "INSERT", 5).ok());
  ASSERT_TRUE(f.Apply(1, nullptr, "DELETE", 10).ok());
  ASSERT_TRUE(f.Apply(2, nullptr, "DELETE", 10).ok());  // a tombstone for a key never seen
  f.applier.reset();
  std::filesystem::remove_all(f.target + "/_cdclake/index");
  ASSERT_TRUE(f.Open({}).ok());
  for (int64_t id : {1, 2}) {
    auto r = f.Apply(id, "late", "UPDATE", 7);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->counts.discarded, 1) << "id " << id;
    EXPECT_FALSE(r->version.has_value());
  }
  EXPECT_TRUE(f.Rows().empty()) << FormatModelRows(f.Rows(), ExpiryFields());
}

}  // namespace
}  // namespace cdclake::apply::testing
