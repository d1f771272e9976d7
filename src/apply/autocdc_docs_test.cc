// The engine (Applier) on the four AUTO CDC documentation examples (testdata/autocdc-docs): for
// every batch size and several arrival orders the target equals expected.csv (SEMANTICS §1),
// and after every batch it equals the reference model of the rows applied so far.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "apply/applier.h"
#include "apply/testing/reference_model.h"
#include "delta/snapshot.h"
#include "delta/table_scan.h"
#include "io/local_file_system.h"
#include "io/scratch_dir.h"

namespace cdclake::apply::testing {
namespace {

using data::DataType;
using data::Value;

constexpr int64_t kFixedNowMs = 1'700'000'000'000;

std::shared_ptr<const data::Expr> OperationIs(const std::string& op) {
  return data::Expr::Compare(data::CompareOp::kEq, data::Expr::Column({"operation"}),
                             data::Expr::Literal(Value::Bytes(op), DataType::String()));
}

std::vector<std::string> Names(const json::Json& list) {
  std::vector<std::string> out;
  for (const json::Json& n : list) out.push_back(n.get<std::string>());
  return out;
}

// The example's flow, with conditions built as expression trees.
FlowDefinition DocsFlow(const DocsExample& ex, const std::string& target) {
  const json::Json& p = ex.params;
  FlowDefinition flow;
  flow.name = "docs_" + ex.name;
  flow.target = target;
  flow.keys = Names(p["keys"]);
  flow.sequence_by = {p["sequence_by"].get<std::string>()};
  flow.delete_when = OperationIs("DELETE");
  if (p["apply_as_truncates"].is_string()) flow.truncate_when = OperationIs("TRUNCATE");
  if (p["column_list"].is_array()) {
    flow.columns = ColumnSelection::Only(Names(p["column_list"]));
  } else if (p["except_column_list"].is_array()) {
    flow.columns = ColumnSelection::Except(Names(p["except_column_list"]));
  }
  flow.scd_type = p["stored_as_scd_type"].get<int>() == 2 ? ScdType::kType2 : ScdType::kType1;
  if (p["track_history_column_list"].is_array()) {
    flow.track_history = ColumnSelection::Only(Names(p["track_history_column_list"]));
  } else if (p["track_history_except_column_list"].is_array()) {
    flow.track_history = ColumnSelection::Except(Names(p["track_history_except_column_list"]));
  }
  if (p.value("ignore_null_updates", false)) flow.ignore_null_updates = ColumnSelection::All();
  return flow;
}

// The input rows at `indices` as one change batch (positions are the CSV's line numbers).
change::ChangeBatch Batch(const DocsExample& ex, const std::vector<size_t>& indices) {
  change::ChangeBatch batch;
  batch.rows = data::RecordBatch(ex.input_schema);
  for (size_t i : indices) {
    batch.rows.AppendRow(ex.input_rows[i]);
    batch.positions.push_back({"input.csv", static_cast<int64_t>(i) + 2, 0});
    batch.raw.push_back(ex.input_lines[i]);
  }
  return batch;
}

// The target's rows (columns `fields`, by name); no rows when the table does not exist yet.
Result<std::vector<ModelRow>> ReadTarget(io::FileSystem& fs, const std::string& target,
                                         const std::vector<data::Field>& fields) {
  CDCLAKE_ASSIGN_OR_RETURN(bool exists, fs.Exists(target + "/_delta_log"));
  if (!exists) return std::vector<ModelRow>{};
  CDCLAKE_ASSIGN_OR_RETURN(auto snapshot, delta::Snapshot::Load(fs, target));
  delta::ScanOptions options;
  for (const data::Field& f : fields) options.columns.push_back(f.name);
  CDCLAKE_ASSIGN_OR_RETURN(data::RecordBatch rows, delta::ReadTable(fs, *snapshot, options));
  std::vector<ModelRow> out;
  for (int64_t r = 0; r < rows.num_rows(); ++r) out.push_back(rows.GetRow(r));
  return out;
}

std::string OrderText(const std::vector<size_t>& order) {
  std::string out;
  for (size_t i : order) out += (out.empty() ? "" : ",") + std::to_string(i + 2);
  return out;
}

class DocsEngineTest : public ::testing::TestWithParam<const char*> {};

// §1: arrival order and batch cuts never change the result. Each run: a fresh table, the
// input in `order` cut into batches of `size` rows.
TEST_P(DocsEngineTest, EveryBatchSizeAndOrderGivesExpectedTable) {
  auto ex = LoadDocsExample(CDCLAKE_SHARED_DIR, GetParam());
  ASSERT_TRUE(ex.ok()) << ex.status().ToString();
  // The conditions built above are the ones params.json spells.
  ASSERT_EQ(ex->params["apply_as_deletes"].get<std::string>(), "operation = 'DELETE'");
  if (ex->params["apply_as_truncates"].is_string()) {
    ASSERT_EQ(ex->params["apply_as_truncates"].get<std::string>(), "operation = 'TRUNCATE'");
  }
  const ModelFlow model_flow = DocsModelFlow(*ex);
  const std::vector<ModelEvent> events = DocsModelEvents(*ex, model_flow);
  const std::vector<data::Field> fields = ex->expected_fields;
  auto scratch = io::ScratchDir::Create("cdclake-docs-");
  ASSERT_TRUE(scratch.ok()) << scratch.status().ToString();
  io::LocalFileSystem fs;
  const size_t n = ex->input_rows.size();

  std::vector<std::vector<size_t>> orders;
  std::vector<size_t> given(n);
  for (size_t i = 0; i < n; ++i) given[i] = i;
  orders.push_back(given);
  for (uint64_t seed : {1u, 2u, 3u}) {
    std::vector<size_t> shuffled = given;
    std::mt19937_64 rng(seed);
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    orders.push_back(shuffled);
  }

  int run = 0;
  for (const std::vector<size_t>& order : orders) {
    for (size_t size = 1; size <= n; ++size, ++run) {
      SCOPED_TRACE("input lines in order " + OrderText(order) + ", batches of " +
                   std::to_string(size));
      const std::string target = scratch->path() + "/run" + std::to_string(run);
      ApplyOptions options;
      options.clock = [] { return kFixedNowMs; };
      // RocksDB for the given order; the shuffles keep the index in memory (opening RocksDB
      // dominates the run time, and the property tests cover the persistent index).
      options.persistent_index = &order == &orders.front();
      auto applier = Applier::Open(fs, DocsFlow(*ex, target), options);
      ASSERT_TRUE(applier.ok()) << applier.status().ToString();
      std::vector<ModelEvent> applied_events;
      int64_t applied = 0, discarded = 0;
      for (size_t from = 0; from < n; from += size) {
        std::vector<size_t> slice(order.begin() + from, order.begin() + std::min(n, from + size));
        auto result = (*applier)->Apply(Batch(*ex, slice));
        ASSERT_TRUE(result.ok()) << result.status().ToString();
        const ApplyCounts& c = result->counts;
        // §8 conservation; the docs' input has nothing invalid (the truncate's NULL key is
        // not a key: a truncate has none).
        EXPECT_EQ(c.read, static_cast<int64_t>(slice.size()));
        EXPECT_EQ(c.read, c.applied + c.discarded + c.quarantined);
        EXPECT_EQ(c.quarantined, 0);
        EXPECT_FALSE(result->quarantine_version.has_value());
        applied += c.applied;
        discarded += c.discarded;
        if (result->version.has_value()) {
          EXPECT_EQ((*applier)->version(), *result->version);
        }
        // After every batch: the model of the rows so far.
        for (size_t i : slice) applied_events.push_back(events[i]);
        auto rows = ReadTarget(fs, target, fields);
        ASSERT_TRUE(rows.ok()) << rows.status().ToString();
        std::vector<ModelRow> want = ReferenceApply(model_flow, applied_events);
        ASSERT_TRUE(SameModelRows(*rows, want, fields))
            << "after the batch ending at row " << from + slice.size() << "\nengine:\n"
            << FormatModelRows(*rows, fields) << "model:\n"
            << FormatModelRows(want, fields);
      }
      EXPECT_EQ(applied + discarded, static_cast<int64_t>(n));
      auto rows = ReadTarget(fs, target, fields);
      ASSERT_TRUE(rows.ok()) << rows.status().ToString();
      ASSERT_TRUE(SameModelRows(*rows, ex->expected_rows, fields))
          << "engine:\n"
          << FormatModelRows(*rows, fields) << "expected.csv:\n"
          << FormatModelRows(ex->expected_rows, fields);
    }
  }
}

// §8: the whole input applied a second time (one batch) changes nothing and writes no version.
TEST_P(DocsEngineTest, ReplayingTheInputWritesNothing) {
  auto ex = LoadDocsExample(CDCLAKE_SHARED_DIR, GetParam());
  ASSERT_TRUE(ex.ok()) << ex.status().ToString();
  auto scratch = io::ScratchDir::Create("cdclake-docs-");
  ASSERT_TRUE(scratch.ok());
  io::LocalFileSystem fs;
  const std::string target = scratch->path() + "/t";
  ApplyOptions options;
  options.clock = [] { return kFixedNowMs; };
  auto applier = Applier::Open(fs, DocsFlow(*ex, target), options);
  ASSERT_TRUE(applier.ok()) << applier.status().ToString();
  std::vector<size_t> all(ex->input_rows.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  auto first = (*applier)->Apply(Batch(*ex, all));
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_TRUE(first->version.has_value());
  auto before = delta::Snapshot::Load(fs, target);
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  EXPECT_EQ((*before)->version(), *first->version);
  for (int round = 0; round < 2; ++round) {
    auto again = (*applier)->Apply(Batch(*ex, all));
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    EXPECT_FALSE(again->version.has_value());
    EXPECT_EQ(again->counts.read, static_cast<int64_t>(all.size()));
    EXPECT_EQ(again->counts.applied, 0);
    EXPECT_EQ(again->counts.discarded, static_cast<int64_t>(all.size()));
    auto after = delta::Snapshot::Load(fs, target);
    ASSERT_TRUE(after.ok());
    EXPECT_EQ((*after)->version(), (*before)->version());
  }
  auto rows = ReadTarget(fs, target, ex->expected_fields);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_TRUE(SameModelRows(*rows, ex->expected_rows, ex->expected_fields))
      << FormatModelRows(*rows, ex->expected_fields);
}

INSTANTIATE_TEST_SUITE_P(AutoCdcDocs, DocsEngineTest,
                         ::testing::Values("scd1-users", "scd1-users-truncate", "scd2-users",
                                           "scd2-users-track-history-except-city"),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

}  // namespace
}  // namespace cdclake::apply::testing
