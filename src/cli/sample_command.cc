// `cdclake sample FILE.parquet`: writes a small file holding every type cdclake knows, and
// `cdclake sample --delta DIR`: a small Delta table with a few versions (appends, a row deleted
// through a deletion vector, a new column), to try the tool (the quick start uses them until
// pipelines exist).
#include <memory>
#include <string>

#include "cdclake/delta_write.h"
#include "cli/commands.h"

namespace cdclake::cli {

namespace {

data::RecordBatch SampleBatch() {
  using data::DataType;
  using data::Value;
  data::Schema schema({
      {"id", DataType::Int64(), false},
      {"active", DataType::Boolean()},
      {"tiny", DataType::Int8()},
      {"small", DataType::Int16()},
      {"qty", DataType::Int32()},
      {"ratio", DataType::Float()},
      {"score", DataType::Double()},
      {"price", DataType::Decimal(10, 2)},
      {"big", DataType::Decimal(38, 6)},
      {"name", DataType::String()},
      {"blob", DataType::Binary()},
      {"born", DataType::Date()},
      {"updated_at", DataType::Timestamp()},
      {"local_time", DataType::TimestampNtz()},
      {"address", DataType::Struct({{"city", DataType::String()}, {"zip", DataType::Int32()}})},
      {"tags", DataType::List(DataType::String())},
      {"attrs", DataType::Map(DataType::String(), DataType::Int64())},
  });
  data::RecordBatch batch(schema);
  batch.AppendRow({Value::Int(1), Value::Bool(true), Value::Int(-8), Value::Int(300),
                   Value::Int(42), Value::Double(1.5f), Value::Double(0.1), Value::Decimal(1230),
                   Value::Decimal(-123456789), Value::Bytes("Ada, \"the first\""),
                   Value::Bytes(std::string("\x00\xff", 2)), Value::Int(19723),
                   Value::Int(1700000000123456), Value::Int(1700000000000000),
                   Value::Nested({Value::Bytes("Zürich"), Value::Int(8001)}),
                   Value::Nested({Value::Bytes("a"), Value::Bytes("")}),
                   Value::Nested({Value::Nested({Value::Bytes("k"), Value::Int(7)})})});
  batch.AppendRow({Value::Int(2), Value::Bool(false), Value::Null(), Value::Null(), Value::Null(),
                   Value::Null(), Value::Null(), Value::Null(), Value::Null(), Value::Bytes(""),
                   Value::Null(), Value::Null(), Value::Null(), Value::Null(), Value::Null(),
                   Value::Nested({}), Value::Null()});
  batch.AppendRow({Value::Int(3), Value::Null(), Value::Int(127), Value::Int(-32768),
                   Value::Int(-2147483647 - 1), Value::Double(-0.0f), Value::Double(1e300),
                   Value::Decimal(-5), Value::Decimal(1), Value::Null(), Value::Bytes(""),
                   Value::Int(-1), Value::Int(-1), Value::Int(0),
                   Value::Nested({Value::Null(), Value::Int(0)}), Value::Nested({Value::Null()}),
                   Value::Nested({})});
  return batch;
}

Status WriteSampleTable(const std::string& root) {
  using data::DataType;
  using data::Value;
  auto& fs = *io::LocalFileSystem::Instance();
  delta::TableSpec spec;
  spec.schema = data::Schema({{"id", DataType::Int64(), false},
                              {"name", DataType::String()},
                              {"amount", DataType::Decimal(10, 2)},
                              {"day", DataType::Date()}});
  spec.partition_columns = {"day"};
  spec.properties = {{"delta.enableDeletionVectors", "true"}};
  spec.name = "sample";
  CDCLAKE_ASSIGN_OR_RETURN(auto created, delta::CreateTable(fs, root, spec));
  (void)created;
  data::RecordBatch first(spec.schema);
  first.AppendRow({Value::Int(1), Value::Bytes("Ada"), Value::Decimal(1250), Value::Int(19723)});
  first.AppendRow({Value::Int(2), Value::Bytes("Grace"), Value::Decimal(-300), Value::Int(19723)});
  first.AppendRow({Value::Int(3), Value::Null(), Value::Decimal(99999), Value::Int(19724)});
  CDCLAKE_RETURN_IF_ERROR(delta::AppendRows(fs, root, first).status());
  data::RecordBatch second(spec.schema);
  second.AppendRow({Value::Int(4), Value::Bytes("Edsger"), Value::Null(), Value::Null()});
  CDCLAKE_RETURN_IF_ERROR(delta::AppendRows(fs, root, second).status());
  // Delete id 2 (row 1 of its file) through a deletion vector.
  CDCLAKE_ASSIGN_OR_RETURN(auto snapshot, delta::Snapshot::Load(fs, root));
  std::map<std::string, std::vector<int64_t>> rows;
  for (const delta::Add& add : snapshot->files()) {
    auto batch = delta::ReadDataFile(fs, *snapshot, add);
    if (!batch.ok()) return batch.status();
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      if (batch->column(0).ValueAt<int64_t>(r) == 2) rows[add.path].push_back(r);
    }
  }
  CDCLAKE_ASSIGN_OR_RETURN(std::vector<delta::Action> actions,
                           delta::DeleteRows(fs, *snapshot, rows));
  delta::Transaction txn(fs, root, snapshot);
  for (delta::Action& a : actions) txn.Add(std::move(a));
  delta::CommitOptions options;
  options.operation = "DELETE";
  options.operation_parameters = {{"predicate", "[\"(id = 2)\"]"}};
  CDCLAKE_RETURN_IF_ERROR(txn.Commit(options).status());
  // A column appears: older rows read it as NULL.
  data::Schema wider({{"id", DataType::Int64(), false},
                      {"name", DataType::String()},
                      {"amount", DataType::Decimal(10, 2)},
                      {"day", DataType::Date()},
                      {"city", DataType::String()}});
  CDCLAKE_RETURN_IF_ERROR(delta::EvolveSchema(fs, root, wider).status());
  data::RecordBatch third(wider);
  third.AppendRow({Value::Int(5), Value::Bytes("Barbara"), Value::Decimal(4200), Value::Int(19724),
                   Value::Bytes("Oslo")});
  return delta::AppendRows(fs, root, third).status();
}

}  // namespace

Action AddSampleCommand(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  auto delta_table = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("sample",
                                     "Write a small Parquet file with every type, or with --delta "
                                     "a small Delta table, to try the tool");
  cmd->add_option("path", *path, "the file (or, with --delta, the table folder) to write")
      ->required();
  cmd->add_flag("--delta", *delta_table, "write a Delta table with a few versions instead");
  return [path, delta_table]() -> int {
    Status s = *delta_table ? WriteSampleTable(*path)
                            : parquet::WriteParquetFile(*io::LocalFileSystem::Instance(), *path,
                                                        SampleBatch());
    if (!s.ok()) return Fail(s);
    return 0;
  };
}

}  // namespace cdclake::cli
