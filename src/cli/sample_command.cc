// `cdclake sample FILE.parquet`: writes a small file holding every type cdclake knows, to try
// the tool (the quick start uses it until pipelines exist).
#include <memory>
#include <string>

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

}  // namespace

Action AddSampleCommand(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  CLI::App* cmd =
      app.add_subcommand("sample", "Write a small Parquet file with every type, to try the tool");
  cmd->add_option("path", *path, "the file to write")->required();
  return [path]() -> int {
    Status s = parquet::WriteParquetFile(*io::LocalFileSystem::Instance(), *path, SampleBatch());
    if (!s.ok()) return Fail(s);
    return 0;
  };
}

}  // namespace cdclake::cli
