// Tests that invalid flow definitions are rejected before anything runs, with a message that
// says what to change, and the target schema a valid one implies.
#include "apply/flow_definition.h"

#include <gtest/gtest.h>

namespace cdclake::apply {
namespace {

using data::DataType;

data::Schema Source() {
  return data::Schema({{"id", DataType::Int32(), true},
                       {"name", DataType::String(), true},
                       {"tags", DataType::List(DataType::String()), true},
                       {"op", DataType::String(), true},
                       {"seq", DataType::Int64(), true},
                       {"ts", DataType::Timestamp(), true}});
}

FlowDefinition Valid() {
  FlowDefinition flow;
  flow.target = "/tmp/t";
  flow.keys = {"id"};
  flow.sequence_by = {"seq"};
  flow.columns = ColumnSelection::Except({"op", "seq"});
  return flow;
}

// The rejection message for `flow`, which must contain every one of `parts`.
void ExpectRejected(const FlowDefinition& flow, std::initializer_list<const char*> parts) {
  Status s = ValidateFlow(flow, Source());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  for (const char* part : parts) {
    EXPECT_NE(s.message().find(part), std::string::npos) << s.message() << " lacks " << part;
  }
}

TEST(FlowDefinition, ValidFlowPassesAndImpliesTheTargetSchema) {
  FlowDefinition flow = Valid();
  ASSERT_TRUE(ValidateFlow(flow, Source()).ok());
  data::Schema target = TargetSchema(flow, Source());
  ASSERT_EQ(target.num_fields(), 4u);
  EXPECT_EQ(target.field(0).name, "id");
  EXPECT_EQ(target.field(3).name, "ts");
  flow.scd_type = ScdType::kType2;
  flow.sequence_by = {"seq", "ts"};
  flow.sequence_is_struct = true;
  target = TargetSchema(flow, Source());
  ASSERT_EQ(target.num_fields(), 6u);
  EXPECT_EQ(target.field(4).name, "__START_AT");
  EXPECT_EQ(target.field(4).type->id(), data::TypeId::kStruct);
  EXPECT_EQ(target.field(5).name, "__END_AT");
}

TEST(FlowDefinition, RejectsTruncateWithScd2) {
  FlowDefinition flow = Valid();
  flow.scd_type = ScdType::kType2;
  flow.truncate_when =
      data::Expr::Compare(data::CompareOp::kEq, data::Expr::Column({"op"}),
                          data::Expr::Literal(data::Value::Bytes("T"), DataType::String()));
  ExpectRejected(flow, {"TRUNCATE", "SCD TYPE 2", "remove it"});
}

TEST(FlowDefinition, RejectsTrackHistoryWithScd1) {
  FlowDefinition flow = Valid();
  flow.track_history = ColumnSelection::Only({"name"});
  ExpectRejected(flow, {"TRACK HISTORY", "SCD TYPE 2"});
}

TEST(FlowDefinition, RejectsMissingColumnsNamingThem) {
  FlowDefinition flow = Valid();
  flow.keys = {"user_id"};
  ExpectRejected(flow, {"KEYS", "'user_id'", "source columns"});
  flow = Valid();
  flow.sequence_by = {"lsn"};
  ExpectRejected(flow, {"SEQUENCE BY", "'lsn'"});
  flow = Valid();
  flow.columns = ColumnSelection::Only({"id", "city"});
  ExpectRejected(flow, {"COLUMNS", "'city'"});
  flow = Valid();
  flow.scd_type = ScdType::kType2;
  flow.track_history = ColumnSelection::Only({"city"});
  ExpectRejected(flow, {"TRACK HISTORY ON", "'city'"});
  flow = Valid();
  flow.ignore_null_updates = ColumnSelection::Only({"city"});
  ExpectRejected(flow, {"IGNORE NULL UPDATES ON", "'city'"});
  flow = Valid();
  flow.delete_when =
      data::Expr::Compare(data::CompareOp::kEq, data::Expr::Column({"operation"}),
                          data::Expr::Literal(data::Value::Bytes("D"), DataType::String()));
  ExpectRejected(flow, {"APPLY AS DELETE WHEN", "operation"});
}

// A misspelled column in an EXCEPT list would otherwise let the column it meant into the target.
TEST(FlowDefinition, RejectsMisspelledExceptListsNamingTheClosestColumn) {
  FlowDefinition flow = Valid();
  flow.columns = ColumnSelection::Except({"op", "sqe"});
  ExpectRejected(flow, {"COLUMNS * EXCEPT", "'sqe'", "did you mean 'seq'?", "source columns"});
  flow = Valid();
  flow.scd_type = ScdType::kType2;
  flow.track_history = ColumnSelection::Except({"nmae"});
  ExpectRejected(flow, {"TRACK HISTORY ON * EXCEPT", "'nmae'", "did you mean 'name'?"});
  flow = Valid();
  flow.ignore_null_updates = ColumnSelection::Except({"zzz"});
  ExpectRejected(flow, {"IGNORE NULL UPDATES * EXCEPT", "'zzz'"});
  // Hidden columns of file sources count as present; with the lists unchecked nothing fails.
  flow = Valid();
  flow.columns = ColumnSelection::Except({"op", "seq", "_metadata"});
  EXPECT_TRUE(ValidateFlow(flow, Source()).ok());
  flow.columns = ColumnSelection::Except({"op", "sqe"});
  EXPECT_TRUE(ValidateFlow(flow, Source(), /*check_column_lists=*/false).ok());
}

TEST(FlowDefinition, RejectsUnorderableSequenceAndDroppedKeys) {
  FlowDefinition flow = Valid();
  flow.sequence_by = {"tags"};
  ExpectRejected(flow, {"'tags'", "no order", "integer"});
  flow = Valid();
  flow.columns = ColumnSelection::Except({"id", "op"});
  ExpectRejected(flow, {"key column 'id'", "COLUMNS"});
  flow = Valid();
  flow.keys = {};
  ExpectRejected(flow, {"no KEYS"});
  flow = Valid();
  flow.keys = {"id", "id"};
  ExpectRejected(flow, {"twice"});
}

}  // namespace
}  // namespace cdclake::apply
