// EventDecoder: one Debezium record (an envelope with or without its Connect schema, a
// key/value pair, a Kafka tombstone, a transaction or schema-change record, or an unwrapped
// row) into the cells of one change row, or the reason it is not one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "data/column.h"
#include "data/data_type.h"
#include "sources/debezium/cell_decoder_internal.h"
#include "sources/debezium/column_observer_internal.h"
#include "sources/debezium/connect_schema_internal.h"
#include "sources/debezium/debezium_reader.h"
#include "sources/debezium/event_sequence_internal.h"
#include "sources/files/cell_conversion_internal.h"
#include "sources/files/json_scanner_internal.h"
#include "sources/files/scratch_arena_internal.h"

namespace cdclake::sources::internal {

/// A table column as the decoder knows it.
struct DebeziumColumn {
  std::string key;   // the member name in the records
  std::string name;  // the column name (DebeziumOptions::schema's spelling when it names it)
  /// Type and encoding for events without a `schema` part (DebeziumOptions::schema, else the
  /// first pass's inference, else STRING).
  ColumnSpec plain;
  /// The DECIMAL type VariableScaleDecimal values take (options, else the first pass).
  data::TypePtr variable_scale_type;
  /// Whether DebeziumOptions::schema gives `plain` (`variable_scale_type`): no need of the
  /// first pass for it.
  bool plain_from_options = false;
  bool variable_scale_from_options = false;
  /// The type of the column's last decoded value (nullptr before one); a new batch starts with it.
  data::TypePtr latest;
};

class EventDecoder {
 public:
  /// A member of a JSON object as read.
  struct Member {
    std::string_view name;
    JsonValue value;
  };
  /// Members of one object; the slots are kept between records so adding is cheap.
  class MemberList {
   public:
    Member& Add() {
      if (count_ == slots_.size()) [[unlikely]]
        Grow();
      return slots_[count_++];
    }
    void clear() { count_ = 0; }
    size_t size() const { return count_; }
    bool empty() const { return count_ == 0; }
    const Member& operator[](size_t i) const { return slots_[i]; }
    const Member* begin() const { return slots_.data(); }
    const Member* end() const { return slots_.data() + count_; }

   private:
    // Out of line so that Add, called for every member read, inlines.
    [[gnu::noinline]] void Grow() { slots_.resize(slots_.size() * 2 + 8); }

    std::vector<Member> slots_;
    size_t count_ = 0;
  };

  enum class Outcome : uint8_t {
    kRow,           // a change row: see the accessors below
    kTombstone,     // a Kafka tombstone (null value)
    kMessage,       // op "m"
    kTransaction,   // a BEGIN/END record of the transaction topic
    kSchemaChange,  // a schema-change record
    kRejected,      // valid JSON that is not a usable record: reason()
    kIncomplete,    // the text ended inside the value: give the whole value
    kSyntaxError,   // invalid JSON: reason()
    /// kDecode: the record needs a type only the first pass over the whole file can give (a
    /// column no schema types): AdoptObservations, then decode the record again.
    kNeedObservations,
  };
  /// kObserve only feeds the first pass's type inference (no cells, no rejections of values).
  enum class Mode : uint8_t { kObserve, kDecode };

  EventDecoder(const DebeziumOptions& options, Mode mode);

  /// Decodes the JSON value at the start of `text` (the rest of `text` is not looked at).
  Outcome Decode(std::string_view text);
  /// Bytes of `text` the value took (after kRow, kTombstone, kMessage, kTransaction,
  /// kSchemaChange, kRejected).
  size_t consumed() const { return consumed_; }
  const std::string& reason() const { return reason_; }

  /// kObserve: hands the inference over to a kDecode decoder (whose columns so far take it).
  void AdoptObservations(EventDecoder&& observer);
  /// The same, copying (one first pass shared by the readers of a file's two halves).
  void AdoptObservations(const EventDecoder& observer);
  /// Whether AdoptObservations was called.
  bool observed() const { return observed_; }

  // --- the row after kRow ---
  std::deque<DebeziumColumn>& columns() { return columns_; }
  /// Cells of every column; untouched columns hold NULL.
  const std::vector<StagedCell>& cells() const { return cells_; }
  /// Columns this event gave a value (or placeholder), with the type it was decoded to.
  const std::vector<int>& touched() const { return touched_; }
  const data::TypePtr& event_type(size_t column) const { return *event_types_[column]; }
  /// Columns holding the unchanged-value placeholder (their cells are NULL).
  const std::vector<int>& unchanged() const { return unchanged_; }
  std::string_view op() const { return op_; }
  /// The `_seq` type this row needs; nullptr when its `_seq` is NULL of any type.
  data::TypePtr sequence_type() const;
  void AppendSequence(data::Column* column) const;
  bool has_source_ts_ms() const { return has_source_ts_ms_; }
  int64_t source_ts_ms() const { return source_ts_ms_; }
  /// db.schema.table (the parts the source names); empty when none.
  std::string_view source_table() const { return source_table_; }

 private:
  struct KeyHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  using NameIndex = std::unordered_map<std::string, int, KeyHash, std::equal_to<>>;
  Outcome DecodeValue(std::string_view text);
  Outcome Syntax(const JsonScanner& scanner, size_t text_size);
  // kDecode before AdoptObservations: notes that the record needs the first pass; false.
  bool NeedObservations() {
    need_observations_ = true;
    return false;
  }
  // A column's plain and VariableScaleDecimal types from the options or the observations.
  void SettleColumn(DebeziumColumn* column) const;
  Outcome Reject(std::string reason);
  // Reads the members of the object `scanner` is at (over `text`). With `nested`, the members
  // of after, before and source objects are read into nested_ on the way; with
  // `payload_members`, those of a `payload` object into it (walked_payload_ names its text). A
  // `schema` object with the text of the last one read is skipped without scanning it again.
  bool WalkObject(std::string_view text, MemberList* members, JsonScanner* scanner, bool nested,
                  MemberList* payload_members = nullptr);
  // The members WalkObject read for `value`, if it is one of the nested objects it read.
  const MemberList* NestedMembers(const JsonValue& value) const;
  Outcome Interpret(int level, std::string_view schema_text, const JsonValue* key);
  Outcome Envelope(const MemberList& members, std::string_view schema_text, const JsonValue* key);
  Outcome Unwrapped(const MemberList& members, std::string_view schema_text);
  // Shared tail of both forms: sequence, source time and table.
  Outcome Finish(const MemberList* members, bool unwrapped);
  // The parsed schema for `text` (cached; `slot` 0 for values, 1 for keys); nullptr with
  // reason_ set when it does not parse.
  const ConnectSchema* SchemaFor(std::string_view text, int slot);
  // Walks a row image (an object, or a string holding one) into cells. `fields` types it when
  // not null. `from_key`: members already given by the image are left alone.
  bool Image(const JsonValue& image, const std::vector<ConnectField>* fields, bool from_key);
  // One member of a row image.
  bool ImageMember(std::string_view name, JsonValue value, size_t position,
                   const std::vector<ConnectField>* fields, bool from_key);
  bool Key(const JsonValue& key);
  int ColumnOf(std::string_view name, size_t position);
  int AddColumn(std::string_view name);
  void ResetRow();
  bool ReadSource(const JsonValue& source);
  bool SequenceFromPath(const MemberList* members, bool unwrapped);
  void ComposeTable();

  const DebeziumOptions& options_;
  Mode mode_;
  ScratchArena arena_;
  std::vector<std::string> path_;  // options.sequence_path split at dots
  std::string path_column_;        // the row column the path names (after.X, before.X), or ""
  std::string path_unwrapped_;     // the member of an unwrapped record it names
  MemberList key_members_;

  // Connect schemas seen, by text.
  // Never evicted: types of the current record point into them.
  std::string last_schema_text_[2];
  const ConnectSchema* last_schema_[2] = {nullptr, nullptr};
  std::unordered_map<std::string, std::unique_ptr<const ConnectSchema>, KeyHash, std::equal_to<>>
      schemas_;

  // Columns in order of first appearance (a deque: the decoder keeps pointers into it).
  std::deque<DebeziumColumn> columns_;
  NameIndex column_index_;
  std::vector<int> last_order_;  // column of each member position in the previous image

  // The first pass's inference (kObserve fills it; kDecode reads it).
  std::unordered_map<std::string, ColumnObserver, KeyHash, std::equal_to<>> observers_;
  // The observer of each member position in the last image (name views into observers_).
  std::vector<std::pair<std::string_view, ColumnObserver*>> observer_order_;
  ColumnObserver path_observer_;
  ColumnSpec path_spec_{data::DataType::String(), CellEncoding::kPlain};
  bool observed_ = false;
  bool need_observations_ = false;

  // The current record.
  MemberList members_[3];
  MemberList nested_[3];             // after, before, source
  std::string_view nested_text_[3];  // the text each was read from
  std::string_view walked_payload_;  // the payload object whose members members_[1] holds
  std::string known_schema_;         // the text of the last `schema` object read (validated)
  std::vector<StagedCell> cells_;
  std::vector<const data::TypePtr*> event_types_;
  std::vector<uint8_t> seen_;
  std::vector<int> touched_;
  std::vector<int> unchanged_;
  std::string_view op_;
  SourceFields source_;
  SequenceKind sequence_kind_ = SequenceKind::kNone;
  bool sequence_from_path_ = false;
  EventSequence sequence_;
  StagedCell path_cell_;
  const data::TypePtr* path_type_ = nullptr;
  bool has_source_ts_ms_ = false;
  int64_t source_ts_ms_ = 0;
  std::string_view source_table_;
  std::string table_text_;  // storage of source_table_
  std::string last_table_parts_[3];
  ConversionError error_;
  std::string reason_;
  size_t consumed_ = 0;
};

}  // namespace cdclake::sources::internal
