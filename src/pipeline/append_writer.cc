// Streaming-table appends: schema first (create, add columns, widen), then data files and the
// flow's txn in one commit.
#include "pipeline/append_writer.h"

#include "apply/flow_domain.h"
#include "base/strings.h"
#include "delta/log_segment.h"
#include "delta/metadata_change.h"
#include "delta/snapshot.h"
#include "delta/table_writer.h"
#include "delta/transaction.h"
#include "delta/type_widening.h"
#include "pipeline/flow_position.h"

namespace cdclake::pipeline {

namespace {

// Brings the table's schema up to what `rows` need; returns the snapshot to write against.
// Columns of a batch without rows (every record quarantined) say nothing of their types (a
// Debezium batch without events has no sequence struct): an existing table is left as it is.
Result<std::shared_ptr<const delta::Snapshot>> PrepareTable(io::FileSystem& fs,
                                                            const std::string& table_root,
                                                            const data::Schema& incoming,
                                                            bool has_rows,
                                                            const AppendTableSpec& spec) {
  CDCLAKE_ASSIGN_OR_RETURN(bool exists, delta::TableExists(fs, table_root));
  if (!exists) {
    delta::TableSpec table;
    std::vector<data::Field> fields;
    for (const data::Field& f : incoming.fields()) fields.push_back({f.name, f.type, true});
    table.schema = spec.schema ? *spec.schema : data::Schema(std::move(fields));
    table.properties = spec.properties;
    table.partition_columns = spec.partition_columns;
    auto created = delta::CreateTable(fs, table_root, table);
    if (created.ok()) return created;
    if (created.status().code() != StatusCode::kAlreadyExists) return created.status();
  }
  CDCLAKE_ASSIGN_OR_RETURN(std::shared_ptr<const delta::Snapshot> snapshot,
                           delta::Snapshot::Load(fs, table_root));
  if (!has_rows) return snapshot;
  const data::Schema& current = snapshot->schema();
  std::vector<data::Field> added = current.fields();
  std::map<std::string, data::TypePtr> widen;
  bool grow = false;
  for (const data::Field& f : incoming.fields()) {
    int at = current.FieldIndex(f.name);
    if (at < 0) {
      // Delta column names are unique ignoring case: a table with both would not load again.
      for (const data::Field& have : added) {
        if (ToLower(have.name) == ToLower(f.name)) {
          return Status::InvalidArgument(table_root + ": column '" + f.name +
                                         "' differs only in case from the column '" + have.name +
                                         "'");
        }
      }
      added.push_back({f.name, f.type, true});
      grow = true;
      continue;
    }
    const data::DataType& have = *current.field(static_cast<size_t>(at)).type;
    if (have == *f.type) continue;
    if (delta::IsTypeWidening(have, *f.type)) {
      widen[f.name] = f.type;
    } else if (!delta::IsTypeWidening(*f.type, have)) {
      return Status::InvalidArgument(table_root + ": column '" + f.name + "' is " +
                                     have.ToString() + " in the table but " + f.type->ToString() +
                                     " in the new rows");
    }
  }
  if (!widen.empty()) CDCLAKE_RETURN_IF_ERROR(delta::WidenColumns(fs, table_root, widen).status());
  if (grow) {
    // Widened columns keep their new types in the evolved schema.
    CDCLAKE_ASSIGN_OR_RETURN(auto widened, delta::Snapshot::Load(fs, table_root));
    std::vector<data::Field> fields = widened->schema().fields();
    for (size_t i = current.num_fields(); i < added.size(); ++i) fields.push_back(added[i]);
    CDCLAKE_RETURN_IF_ERROR(delta::EvolveSchema(fs, table_root, data::Schema(fields)).status());
  }
  if (!widen.empty() || grow) return delta::Snapshot::Load(fs, table_root);
  return snapshot;
}

// `rows` laid out as the table's columns: same order, NULL where the rows lack one, each cast up
// to the table's type where it was narrower.
Result<data::RecordBatch> AsTableRows(data::RecordBatch rows, const data::Schema& table) {
  const int64_t n = rows.num_rows();
  // Each column of `rows` is named by at most one table column: moved, not copied (the schema
  // stays).
  std::vector<data::Column> given = rows.ReleaseColumns();
  std::vector<data::Column> columns;
  for (const data::Field& f : table.fields()) {
    int at = rows.schema().FieldIndex(f.name);
    if (at < 0) {
      columns.push_back(data::Column::Repeat(f.type, data::Value::Null(), n));
      continue;
    }
    data::Column& have = given[static_cast<size_t>(at)];
    if (*have.type() == *f.type) {
      columns.push_back(std::move(have));
      continue;
    }
    CDCLAKE_ASSIGN_OR_RETURN(data::Column cast, delta::UpcastColumn(have, f.type, f.name));
    columns.push_back(std::move(cast));
  }
  data::RecordBatch out(table, std::move(columns));
  out.set_num_rows(n);
  return out;
}

}  // namespace

Result<int64_t> AppendWithCheckpoint(io::FileSystem& fs, const std::string& table_root,
                                     data::RecordBatch rows, const AppendTableSpec& spec,
                                     const AppendCheckpoint& checkpoint) {
  CDCLAKE_ASSIGN_OR_RETURN(std::shared_ptr<const delta::Snapshot> snapshot,
                           PrepareTable(fs, table_root, rows.schema(), rows.num_rows() > 0, spec));
  // The flow's previous batch must be the table's: otherwise another writer of the flow
  // committed meanwhile and these rows, read from an older position, would be appended twice.
  // (A commit between this snapshot and ours is a conflict of the two txn actions.)
  const int64_t have = snapshot->TxnVersion(FlowAppId(checkpoint.flow)).value_or(0);
  if (have != checkpoint.batch - 1) {
    return Status::Conflict(table_root + ": another writer of flow " + checkpoint.flow +
                            " committed its batch " + std::to_string(have) +
                            " while this one read from the position after batch " +
                            std::to_string(checkpoint.batch - 1) +
                            "; these rows are not appended (they would be there twice): run "
                            "again");
  }
  delta::Transaction txn(fs, table_root, snapshot);
  if (rows.num_rows() > 0) {
    CDCLAKE_ASSIGN_OR_RETURN(data::RecordBatch laid_out,
                             AsTableRows(std::move(rows), snapshot->schema()));
    CDCLAKE_ASSIGN_OR_RETURN(std::vector<delta::Add> adds,
                             delta::WriteDataFiles(fs, *snapshot, laid_out));
    for (delta::Add& add : adds) txn.Add(std::move(add));
  }
  txn.Add(delta::Txn{FlowAppId(checkpoint.flow), checkpoint.batch, delta::NowMillis()});
  for (const auto& [app_id, version] : checkpoint.source_txns) {
    txn.Add(delta::Txn{app_id, version, delta::NowMillis()});
  }
  delta::CommitOptions options;
  options.operation = "STREAMING UPDATE";
  options.operation_parameters[kFlowParameter] = checkpoint.flow;
  options.operation_parameters[kPositionParameter] = json::Dump(checkpoint.position);
  options.operation_parameters["outputMode"] = "Append";
  options.operation_parameters["epochId"] = std::to_string(checkpoint.batch);
  if (auto domain = apply::FlowDomain(options.operation_parameters)) txn.Add(std::move(*domain));
  return txn.Commit(options);
}

}  // namespace cdclake::pipeline
