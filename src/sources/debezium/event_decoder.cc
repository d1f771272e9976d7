// EventDecoder: record shapes (wrapper, pair, envelope, unwrapped), row images into cells,
// source block, sequence and table name.
#include "sources/debezium/event_decoder_internal.h"

#include <utility>

#include "base/strings.h"
#include "sources/files/change_batch_builder_internal.h"

namespace cdclake::sources::internal {

namespace {

using Outcome = EventDecoder::Outcome;

constexpr std::string_view kMetadataNames[] = {"_op", "_seq", "_source_ts_ms", "_source_table"};

bool IsMetadataName(std::string_view name) {
  if (name.empty() || name[0] != '_') return false;
  for (std::string_view m : kMetadataNames) {
    if (name == m) return true;
  }
  return false;
}

bool IsNumericText(std::string_view text) {
  bool digit = false;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      digit = true;
    } else if (c != '-' && c != '+' && c != '.' && c != 'e' && c != 'E') {
      return false;
    }
  }
  return digit;
}

// MongoDB Extended JSON wrappers of one scalar ({"$numberLong": "1004"}, {"$oid": "..."})
// become the scalar.
void UnwrapExtendedJson(JsonValue* value, ScratchArena* arena) {
  if (value->kind != JsonKind::kObject || value->text.find("\"$") == std::string_view::npos) {
    return;
  }
  JsonScanner scanner(value->text, arena);
  std::string_view name;
  std::string_view after;
  JsonValue inner;
  if (!scanner.EnterObject() || scanner.NextMember(&name) != JsonScanner::Step::kItem ||
      !scanner.ReadValue(&inner) || scanner.NextMember(&after) != JsonScanner::Step::kEnd ||
      inner.kind != JsonKind::kString) {
    return;
  }
  if (name == "$numberLong" || name == "$numberInt" || name == "$numberDecimal" ||
      name == "$numberDouble") {
    if (IsNumericText(inner.text)) {
      value->kind = JsonKind::kNumber;
      value->has_point = inner.text.find('.') != std::string_view::npos;
      value->has_exponent = inner.text.find_first_of("eE") != std::string_view::npos;
    } else {
      value->kind = JsonKind::kString;
    }
    value->text = inner.text;
  } else if (name == "$oid" || name == "$symbol") {
    value->kind = JsonKind::kString;
    value->text = inner.text;
  }
}

// A BEGIN/END record of the transaction topic: only its own members (an unwrapped row of a
// table with `id` and `status` columns is not one).
bool IsTransactionRecord(const EventDecoder::MemberList& members) {
  for (const auto& m : members) {
    if (m.name == "status") {
      if (m.value.text != "BEGIN" && m.value.text != "END") return false;
    } else if (m.name != "id" && m.name != "ts_ms" && m.name != "event_count" &&
               m.name != "data_collections") {
      return false;
    }
  }
  return true;
}

}  // namespace

EventDecoder::EventDecoder(const DebeziumOptions& options, Mode mode)
    : options_(options), mode_(mode) {
  if (options_.sequence_path.has_value()) {
    sequence_from_path_ = true;
    path_ = Split(*options_.sequence_path, '.');
    if (path_.size() == 2 && (path_[0] == "after" || path_[0] == "before")) {
      path_column_ = path_[1];
    }
    if (path_.size() == 2 && path_[0] == "source") {
      path_unwrapped_ = "__source_" + path_[1];
    } else if (path_.size() == 1) {
      path_unwrapped_ = path_[0];
    }
  }
}

void EventDecoder::AdoptObservations(EventDecoder&& observer) {
  observers_ = std::move(observer.observers_);
  path_spec_ = observer.path_observer_.Spec();
  observed_ = true;
  for (DebeziumColumn& column : columns_) SettleColumn(&column);
}

void EventDecoder::AdoptObservations(const EventDecoder& observer) {
  observers_ = observer.observers_;
  path_spec_ = observer.path_observer_.Spec();
  observed_ = true;
  for (DebeziumColumn& column : columns_) SettleColumn(&column);
}

void EventDecoder::SettleColumn(DebeziumColumn* column) const {
  const data::Field* field = FindSchemaField(options_.schema, column->key);
  auto observed = observers_.find(column->key);
  if (field != nullptr) {
    column->plain = ColumnSpec{field->type, CellEncoding::kPlain};
  } else if (observed != observers_.end()) {
    column->plain = observed->second.Spec();
  } else {
    column->plain = ColumnSpec{data::DataType::String(), CellEncoding::kPlain};
  }
  column->plain_from_options = field != nullptr;
  column->variable_scale_from_options =
      field != nullptr && field->type->id() == data::TypeId::kDecimal;
  if (column->variable_scale_from_options) {
    column->variable_scale_type = field->type;
  } else if (observed != observers_.end()) {
    column->variable_scale_type = observed->second.VariableScaleType();
  } else {
    column->variable_scale_type = data::DataType::Decimal(38, 0);
  }
}

EventDecoder::Outcome EventDecoder::Syntax(const JsonScanner& scanner, size_t text_size) {
  if (scanner.error_offset() >= text_size) return Outcome::kIncomplete;
  reason_ = "invalid JSON at byte " + std::to_string(scanner.error_offset() + 1) +
            " of the record: " + scanner.error();
  return Outcome::kSyntaxError;
}

EventDecoder::Outcome EventDecoder::Reject(std::string reason) {
  reason_ = std::move(reason);
  return Outcome::kRejected;
}

void EventDecoder::ResetRow() {
  for (int c : touched_) {
    cells_[static_cast<size_t>(c)].SetNull();
    seen_[static_cast<size_t>(c)] = 0;
    event_types_[static_cast<size_t>(c)] = nullptr;
  }
  touched_.clear();
  unchanged_.clear();
  for (std::string_view& text : nested_text_) text = std::string_view();
  walked_payload_ = std::string_view();
  op_ = std::string_view();
  source_.Clear();
  sequence_kind_ = SequenceKind::kNone;
  sequence_.null = true;
  path_cell_.SetNull();
  path_type_ = nullptr;
  has_source_ts_ms_ = false;
  source_table_ = std::string_view();
}

bool EventDecoder::WalkObject(std::string_view text, MemberList* members, JsonScanner* scanner,
                              bool nested, MemberList* payload_members) {
  members->clear();
  if (!scanner->EnterObject()) return false;
  std::string_view name;
  for (;;) {
    JsonScanner::Step step = scanner->NextMember(&name);
    if (step == JsonScanner::Step::kEnd) return true;
    if (step == JsonScanner::Step::kError) return false;
    if (name == "schema") {
      // JsonConverter repeats the same schema in every record: validated once, then skipped.
      Member& member = members->Add();
      member.name = name;
      if (scanner->SkipKnownValue(known_schema_)) {
        member.value = JsonValue();
        member.value.kind = JsonKind::kObject;
        member.value.text =
            text.substr(scanner->position() - known_schema_.size(), known_schema_.size());
        continue;
      }
      if (!scanner->ReadValue(&member.value)) return false;
      if (member.value.kind == JsonKind::kObject) known_schema_.assign(member.value.text);
      continue;
    }
    if (payload_members != nullptr && name == "payload" && scanner->PeekObject()) {
      // The envelope inside JsonConverter's wrapper, walked now so its bytes are read once.
      const size_t start = scanner->position();
      if (!WalkObject(text, payload_members, scanner, nested)) return false;
      scanner->ContinueOuter();
      Member& member = members->Add();
      member.name = name;
      member.value = JsonValue();
      member.value.kind = JsonKind::kObject;
      member.value.text = text.substr(start, scanner->position() - start);
      walked_payload_ = member.value.text;
      continue;
    }
    int slot = -1;
    if (nested) {
      if (name == "after") slot = 0;
      if (name == "before") slot = 1;
      if (name == "source") slot = 2;
    }
    if (slot >= 0 && scanner->PeekObject()) {
      // Row images and the source block are walked member by member right away, so their bytes
      // are read once.
      const size_t start = scanner->position();
      MemberList& inner = nested_[slot];
      inner.clear();
      scanner->EnterObject();
      std::string_view inner_name;
      for (;;) {
        JsonScanner::Step inner_step = scanner->NextMember(&inner_name);
        if (inner_step == JsonScanner::Step::kEnd) break;
        if (inner_step == JsonScanner::Step::kError) return false;
        Member& member = inner.Add();
        member.name = inner_name;
        if (!scanner->ReadValue(&member.value)) return false;
      }
      scanner->ContinueOuter();
      JsonValue value;
      value.kind = JsonKind::kObject;
      value.text = text.substr(start, scanner->position() - start);
      nested_text_[slot] = value.text;
      Member& member = members->Add();
      member.name = name;
      member.value = value;
      continue;
    }
    Member& member = members->Add();
    member.name = name;
    if (!scanner->ReadValue(&member.value)) return false;
  }
}

const EventDecoder::MemberList* EventDecoder::NestedMembers(const JsonValue& value) const {
  if (value.kind != JsonKind::kObject) return nullptr;
  for (int slot = 0; slot < 3; ++slot) {
    if (nested_text_[slot].data() == value.text.data() &&
        nested_text_[slot].size() == value.text.size()) {
      return &nested_[slot];
    }
  }
  return nullptr;
}

EventDecoder::Outcome EventDecoder::Decode(std::string_view text) {
  need_observations_ = false;
  Outcome outcome = DecodeValue(text);
  if (need_observations_) return Outcome::kNeedObservations;
  return outcome;
}

EventDecoder::Outcome EventDecoder::DecodeValue(std::string_view text) {
  arena_.Reset();
  ResetRow();
  reason_.clear();
  consumed_ = 0;
  JsonScanner scanner(text, &arena_);
  if (!scanner.PeekObject()) {
    JsonValue value;
    if (!scanner.ReadValue(&value)) return Syntax(scanner, text.size());
    consumed_ = scanner.position();
    if (value.kind == JsonKind::kNull) return Outcome::kTombstone;
    return Reject("not a JSON object");
  }
  if (!WalkObject(text, &members_[0], &scanner, true, &members_[1])) {
    return Syntax(scanner, text.size());
  }
  consumed_ = scanner.position();
  return Interpret(0, std::string_view(), nullptr);
}

EventDecoder::Outcome EventDecoder::Interpret(int level, std::string_view schema_text,
                                              const JsonValue* key) {
  const MemberList& members = members_[level];
  const JsonValue* op = nullptr;
  const JsonValue* payload = nullptr;
  const JsonValue* schema = nullptr;
  const JsonValue* key_member = nullptr;
  const JsonValue* value = nullptr;
  bool image = false;
  bool source = false;
  bool status = false;
  bool id = false;
  bool ddl = false;
  for (const Member& m : members) {
    std::string_view n = m.name;
    switch (n.size()) {
      case 2:
        if (n == "op") op = &m.value;
        if (n == "id") id = true;
        break;
      case 3:
        if (n == "key") key_member = &m.value;
        if (n == "ddl") ddl = true;
        break;
      case 5:
        if (n == "after") image = true;
        if (n == "value") value = &m.value;
        break;
      case 6:
        if (n == "before") image = true;
        if (n == "source") source = true;
        if (n == "schema") schema = &m.value;
        if (n == "status") status = m.value.kind == JsonKind::kString;
        break;
      case 7:
        if (n == "payload") payload = &m.value;
        break;
      case 12:
        if (n == "tableChanges") ddl = true;
        break;
      default:
        break;
    }
  }
  if (payload != nullptr && (schema != nullptr || members.size() == 1) && level < 2) {
    // JsonConverter's {"schema": ..., "payload": ...}; a null payload is a legacy tombstone.
    if (payload->kind == JsonKind::kNull) return Outcome::kTombstone;
    if (payload->kind != JsonKind::kObject) return Reject("payload is not an object");
    const bool walked = level == 0 && walked_payload_.data() == payload->text.data() &&
                        walked_payload_.size() == payload->text.size();
    if (!walked) {
      JsonScanner scanner(payload->text, &arena_);
      if (!WalkObject(payload->text, &members_[level + 1], &scanner, true)) {
        return Reject("payload is not valid JSON");
      }
    }
    std::string_view inner_schema =
        schema != nullptr && schema->kind == JsonKind::kObject ? schema->text : std::string_view();
    return Interpret(level + 1, inner_schema, key);
  }
  if (value != nullptr && key_member != nullptr && op == nullptr && level == 0) {
    // A Kafka record {"key": ..., "value": ...}: a null or empty value is a tombstone.
    const JsonValue* record_key = key_member->kind == JsonKind::kObject ? key_member : nullptr;
    std::string_view text;
    if (value->kind == JsonKind::kNull) return Outcome::kTombstone;
    if (value->kind == JsonKind::kString) {
      text = value->text;
      size_t i = 0;
      while (i < text.size() &&
             (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) {
        ++i;
      }
      if (i == text.size()) return Outcome::kTombstone;
      JsonScanner probe(text, &arena_);
      JsonValue parsed;
      if (!probe.ReadValue(&parsed) || !probe.AtEnd()) {
        return Reject(std::string("value is a string that is not valid JSON: ") + probe.error());
      }
      if (parsed.kind == JsonKind::kNull) return Outcome::kTombstone;
      if (parsed.kind != JsonKind::kObject) return Reject("value is not a JSON object");
    } else if (value->kind == JsonKind::kObject) {
      text = value->text;
    } else {
      return Reject("value is neither an object nor null");
    }
    JsonScanner scanner(text, &arena_);
    if (!WalkObject(text, &members_[1], &scanner, true)) return Reject("value is not valid JSON");
    return Interpret(1, std::string_view(), record_key);
  }
  // An envelope has an op and row images or a source block; a lone one-letter op too (a
  // truncate). Otherwise `op` is a column of an unwrapped row.
  if (op != nullptr &&
      (image || source || (op->kind == JsonKind::kString && op->text.size() == 1))) {
    return Envelope(members, schema_text, key);
  }
  if (status && id && IsTransactionRecord(members)) return Outcome::kTransaction;
  if (ddl && source) return Outcome::kSchemaChange;
  if (image && source) return Reject("a change event without op");
  return Unwrapped(members, schema_text);
}

const ConnectSchema* EventDecoder::SchemaFor(std::string_view text, int slot) {
  if (last_schema_[slot] != nullptr && text == last_schema_text_[slot]) return last_schema_[slot];
  auto it = schemas_.find(text);
  if (it == schemas_.end()) {
    Result<ConnectSchema> parsed = ConnectSchema::Parse(text);
    if (!parsed.ok()) {
      reason_ = "invalid Connect schema: " + parsed.status().message();
      return nullptr;
    }
    it = schemas_
             .emplace(std::string(text),
                      std::make_unique<const ConnectSchema>(std::move(parsed).value()))
             .first;
  }
  last_schema_text_[slot].assign(text);
  last_schema_[slot] = it->second.get();
  return last_schema_[slot];
}

bool EventDecoder::ReadSource(const JsonValue& source) {
  if (const MemberList* members = NestedMembers(source)) {
    for (const Member& m : *members) {
      SourceFields::Field f = SourceFields::FieldOf(m.name);
      if (f != SourceFields::kCount) source_.values[f] = m.value;
    }
    return true;
  }
  JsonScanner scanner(source.text, &arena_);
  if (!scanner.EnterObject()) return false;
  std::string_view name;
  JsonValue value;
  for (;;) {
    JsonScanner::Step step = scanner.NextMember(&name);
    if (step == JsonScanner::Step::kEnd) return true;
    if (step == JsonScanner::Step::kError || !scanner.ReadValue(&value)) return false;
    SourceFields::Field f = SourceFields::FieldOf(name);
    if (f != SourceFields::kCount) source_.values[f] = value;
  }
}

EventDecoder::Outcome EventDecoder::Envelope(const MemberList& members,
                                             std::string_view schema_text, const JsonValue* key) {
  const JsonValue* op = nullptr;
  const JsonValue* before = nullptr;
  const JsonValue* after = nullptr;
  const JsonValue* source = nullptr;
  for (const Member& m : members) {
    if (m.name == "op") {
      op = &m.value;
    } else if (m.name == "after") {
      after = &m.value;
    } else if (m.name == "before") {
      before = &m.value;
    } else if (m.name == "source") {
      source = &m.value;
    }
  }
  if (op->kind != JsonKind::kString) return Reject("op is not a string");
  const std::string_view code = op->text;
  if (code.size() != 1 || std::string_view("cudrtm").find(code[0]) == std::string_view::npos) {
    return Reject("unknown op '" + std::string(code) + "'");
  }
  if (code[0] == 'm') return Outcome::kMessage;
  op_ = code;
  if (source != nullptr && source->kind == JsonKind::kObject && !ReadSource(*source)) {
    return Reject("source is not valid JSON");
  }
  sequence_kind_ = EventSequence::GuessKind(source_);
  const ConnectSchema* schema = nullptr;
  if (!schema_text.empty() && mode_ == Mode::kDecode) {
    schema = SchemaFor(schema_text, 0);
    if (schema == nullptr) return Outcome::kRejected;
    if (!schema->envelope) schema = nullptr;  // e.g. MongoDB: images are JSON strings
  }
  auto present = [](const JsonValue* v) { return v != nullptr && v->kind != JsonKind::kNull; };
  switch (code[0]) {
    case 'c':
    case 'u':
    case 'r':
      if (!present(after)) return Reject("op '" + std::string(code) + "' has no after image");
      if (!Image(*after, schema != nullptr ? &schema->after : nullptr, false)) {
        return Outcome::kRejected;
      }
      break;
    case 'd':
      if (!present(before) && key == nullptr) {
        return Reject("op 'd' has neither a before image nor a key");
      }
      if (present(before) &&
          !Image(*before, schema != nullptr ? &schema->before : nullptr, false)) {
        return Outcome::kRejected;
      }
      if (key != nullptr && !Key(*key)) return Outcome::kRejected;
      break;
    default:  // 't': every column NULL
      break;
  }
  return Finish(&members, false);
}

EventDecoder::Outcome EventDecoder::Unwrapped(const MemberList& members,
                                              std::string_view schema_text) {
  if (members.empty()) return Reject("an empty object");
  const ConnectSchema* schema = nullptr;
  if (!schema_text.empty() && mode_ == Mode::kDecode) {
    schema = SchemaFor(schema_text, 0);
    if (schema == nullptr) return Outcome::kRejected;
    if (schema->envelope) schema = nullptr;
  }
  bool deleted = false;
  std::string_view op;
  size_t position = 0;
  for (const Member& m : members) {
    if (m.name.size() > 2 && m.name[0] == '_' && m.name[1] == '_') {
      // Fields the ExtractNewRecordState SMT adds (add.fields, default prefix "__").
      std::string_view meta = m.name.substr(2);
      if (meta == "op") {
        if (m.value.kind != JsonKind::kString) return Reject("__op is not a string");
        op = m.value.text;
      } else if (meta == "deleted") {
        deleted = (m.value.kind == JsonKind::kString && m.value.text == "true") ||
                  (m.value.kind == JsonKind::kBool && m.value.bool_value);
      } else if (StartsWith(meta, "source_")) {
        SourceFields::Field f = SourceFields::FieldOf(meta.substr(7));
        if (f != SourceFields::kCount) source_.values[f] = m.value;
      } else if (meta != "ts_ms") {  // __ts_ms is the connector's processing time
        SourceFields::Field f = SourceFields::FieldOf(meta);
        if (f != SourceFields::kCount) source_.values[f] = m.value;
      }
      continue;
    }
    if (!ImageMember(m.name, m.value, position++, schema != nullptr ? &schema->after : nullptr,
                     false)) {
      return Outcome::kRejected;
    }
  }
  if (deleted) {
    op_ = "d";
  } else if (!op.empty()) {
    if (op.size() != 1 || std::string_view("cudrtm").find(op[0]) == std::string_view::npos) {
      return Reject("unknown op '" + std::string(op) + "'");
    }
    if (op[0] == 'm') return Outcome::kMessage;
    op_ = op;
    if (op[0] == 't') {
      for (int c : touched_) cells_[static_cast<size_t>(c)].SetNull();
    }
  } else {
    op_ = "u";  // no operation given: an upsert
  }
  sequence_kind_ = EventSequence::GuessKind(source_);
  return Finish(&members, true);
}

EventDecoder::Outcome EventDecoder::Finish(const MemberList* members, bool unwrapped) {
  if (sequence_from_path_) {
    if (!SequenceFromPath(members, unwrapped)) return Outcome::kRejected;
  } else if (mode_ == Mode::kDecode) {
    std::string why;
    if (!sequence_.Read(sequence_kind_, source_, &arena_, &why)) return Reject(std::move(why));
  }
  if (mode_ == Mode::kObserve) return Outcome::kRow;
  const JsonValue& ts = source_[SourceFields::kTsMs];
  if ((ts.kind == JsonKind::kNumber || ts.kind == JsonKind::kString) &&
      ParseInteger(ts.text, &source_ts_ms_) == IntParse::kOk) {
    has_source_ts_ms_ = true;
  }
  ComposeTable();
  return Outcome::kRow;
}

bool EventDecoder::SequenceFromPath(const MemberList* members, bool unwrapped) {
  std::string_view column = path_column_;
  if (column.empty() && unwrapped && path_.size() == 1 && !StartsWith(path_[0], "__")) {
    column = path_[0];
  }
  if (!column.empty()) {
    if (mode_ == Mode::kObserve) return true;
    auto it = column_index_.find(column);
    if (it == column_index_.end() || seen_[static_cast<size_t>(it->second)] == 0) return true;
    const size_t c = static_cast<size_t>(it->second);
    path_cell_ = cells_[c];
    path_type_ = event_types_[c];
    return true;
  }
  // A value of the envelope (or a member of the unwrapped record).
  JsonValue value;
  if (unwrapped) {
    for (const Member& m : *members) {
      if (m.name == path_unwrapped_) value = m.value;
    }
  } else {
    for (const Member& m : *members) {
      if (m.name == path_[0]) value = m.value;
    }
    for (size_t i = 1; i < path_.size() && value.kind == JsonKind::kObject; ++i) {
      JsonScanner scanner(value.text, &arena_);
      JsonValue found;
      if (!scanner.EnterObject()) break;
      std::string_view name;
      JsonValue member;
      while (scanner.NextMember(&name) == JsonScanner::Step::kItem && scanner.ReadValue(&member)) {
        if (name == path_[i]) found = member;
      }
      value = found;
      if (i + 1 < path_.size() && value.kind != JsonKind::kObject) value = JsonValue();
    }
  }
  if (mode_ == Mode::kObserve) {
    path_observer_.Observe(value, &arena_);
    return true;
  }
  if (!observed_) return NeedObservations();
  path_type_ = &path_spec_.type;
  if (!DecodeCell(value, path_spec_, &arena_, &path_cell_, &error_)) {
    reason_ = "sequence " + error_.Describe(*options_.sequence_path);
    return false;
  }
  return true;
}

void EventDecoder::ComposeTable() {
  const JsonValue* parts[3] = {&source_[SourceFields::kDb], &source_[SourceFields::kSchema],
                               &source_[SourceFields::kTable]};
  if (!source_.has(SourceFields::kTable)) parts[2] = &source_[SourceFields::kCollection];
  bool same = true;
  for (int i = 0; i < 3; ++i) {
    std::string_view text = parts[i]->kind == JsonKind::kString ? parts[i]->text : "";
    if (text != last_table_parts_[i]) {
      same = false;
      last_table_parts_[i].assign(text);
    }
  }
  if (!same) {
    table_text_.clear();
    for (const std::string& part : last_table_parts_) {
      if (part.empty()) continue;
      if (!table_text_.empty()) table_text_.push_back('.');
      table_text_.append(part);
    }
  }
  source_table_ = table_text_;
}

bool EventDecoder::Image(const JsonValue& image, const std::vector<ConnectField>* fields,
                         bool from_key) {
  if (image.kind != JsonKind::kObject && image.kind != JsonKind::kString) {
    reason_ = "the row image is not an object";
    return false;
  }
  if (const MemberList* members = NestedMembers(image)) {
    for (size_t position = 0; position < members->size(); ++position) {
      const Member& m = (*members)[position];
      if (!ImageMember(m.name, m.value, position, fields, from_key)) return false;
    }
    return true;
  }
  // MongoDB gives images as strings of (Extended) JSON.
  const bool document = image.kind == JsonKind::kString;
  JsonScanner scanner(image.text, &arena_);
  if (!scanner.EnterObject()) {
    reason_ = "the row image is not a JSON object";
    return false;
  }
  std::string_view name;
  JsonValue value;
  for (size_t position = 0;; ++position) {
    JsonScanner::Step step = scanner.NextMember(&name);
    if (step == JsonScanner::Step::kEnd) break;
    if (step == JsonScanner::Step::kError || !scanner.ReadValue(&value)) {
      reason_ = std::string("the row image is not valid JSON: ") + scanner.error();
      return false;
    }
    if (document) UnwrapExtendedJson(&value, &arena_);
    if (!ImageMember(name, value, position, fields, from_key)) return false;
  }
  if (document && !scanner.AtEnd()) {
    reason_ = std::string("the row image is not valid JSON: ") + scanner.error();
    return false;
  }
  return true;
}

bool EventDecoder::Key(const JsonValue& key) {
  JsonScanner scanner(key.text, &arena_);
  if (!WalkObject(key.text, &key_members_, &scanner, false)) return true;  // validated before
  const JsonValue* payload = nullptr;
  const JsonValue* schema = nullptr;
  for (const Member& m : key_members_) {
    if (m.name == "payload") payload = &m.value;
    if (m.name == "schema") schema = &m.value;
  }
  JsonValue fields_object = key;
  const ConnectSchema* key_schema = nullptr;
  if (payload != nullptr && schema != nullptr) {
    if (payload->kind != JsonKind::kObject) return true;  // a null key: nothing to add
    fields_object = *payload;
    if (schema->kind == JsonKind::kObject && mode_ == Mode::kDecode) {
      key_schema = SchemaFor(schema->text, 1);
      if (key_schema != nullptr && key_schema->envelope) key_schema = nullptr;
    }
  }
  if (sequence_kind_ == SequenceKind::kMongo) {
    // {"id": "<document id as Extended JSON>"} names the document's _id.
    JsonScanner members(fields_object.text, &arena_);
    std::string_view name;
    JsonValue value;
    if (!members.EnterObject()) return true;
    while (members.NextMember(&name) == JsonScanner::Step::kItem && members.ReadValue(&value)) {
      if (name != "id") continue;
      if (value.kind == JsonKind::kString) {
        JsonScanner inner(value.text, &arena_);
        JsonValue parsed;
        if (inner.ReadValue(&parsed) && inner.AtEnd()) value = parsed;
        UnwrapExtendedJson(&value, &arena_);
      }
      return ImageMember("_id", value, 0, nullptr, true);
    }
    return true;
  }
  return Image(fields_object, key_schema != nullptr ? &key_schema->after : nullptr, true);
}

int EventDecoder::AddColumn(std::string_view name) {
  const data::Field* field = FindSchemaField(options_.schema, name);
  const std::string column_name = field != nullptr ? field->name : std::string(name);
  for (size_t c = 0; c < columns_.size(); ++c) {
    // Two spellings of one schema column share it.
    if (columns_[c].name == column_name) {
      column_index_.emplace(std::string(name), static_cast<int>(c));
      return static_cast<int>(c);
    }
  }
  DebeziumColumn column;
  column.key = std::string(name);
  column.name = column_name;
  SettleColumn(&column);
  const int index = static_cast<int>(columns_.size());
  columns_.push_back(std::move(column));
  column_index_.emplace(std::string(name), index);
  cells_.emplace_back();
  event_types_.push_back(nullptr);
  seen_.push_back(0);
  return index;
}

int EventDecoder::ColumnOf(std::string_view name, size_t position) {
  if (position < last_order_.size()) {
    int guess = last_order_[position];
    if (guess >= 0 && columns_[static_cast<size_t>(guess)].key == name) return guess;
  }
  auto it = column_index_.find(name);
  int column = it != column_index_.end() ? it->second : AddColumn(name);
  if (position >= last_order_.size()) last_order_.resize(position + 1, -1);
  last_order_[position] = column;
  return column;
}

bool EventDecoder::ImageMember(std::string_view name, JsonValue value, size_t position,
                               const std::vector<ConnectField>* fields, bool from_key) {
  if (IsMetadataName(name)) {
    reason_ = "column '" + std::string(name) + "' has the name of a metadata column";
    return false;
  }
  if (mode_ == Mode::kObserve) {
    // Images usually list their members in the same order: try the last image's first.
    if (position >= observer_order_.size()) observer_order_.resize(position + 1);
    auto& [guess_name, observer] = observer_order_[position];
    if (observer == nullptr || guess_name != name) {
      auto it = observers_.find(name);
      if (it == observers_.end())
        it = observers_.emplace(std::string(name), ColumnObserver()).first;
      guess_name = it->first;
      observer = &it->second;
    }
    observer->Observe(value, &arena_);
    return true;
  }
  const size_t c = static_cast<size_t>(ColumnOf(name, position));
  if (seen_[c] != 0) {
    if (from_key) return true;
    reason_ = "duplicate member '" + std::string(name) + "'";
    return false;
  }
  DebeziumColumn& column = columns_[c];
  const ConnectField* field =
      fields != nullptr ? ConnectSchema::Find(*fields, name, position) : nullptr;
  const ColumnSpec* spec = field != nullptr ? &field->spec : &column.plain;
  if (!observed_ && (spec->type == nullptr ? !column.variable_scale_from_options
                                           : spec == &column.plain && !column.plain_from_options)) {
    return NeedObservations();  // a type the first pass decides
  }
  ColumnSpec variable;
  if (spec->type == nullptr) {  // VariableScaleDecimal: the reader's choice of scale
    variable = ColumnSpec{column.variable_scale_type, CellEncoding::kVariableScaleDecimal};
    spec = &variable;
  }
  seen_[c] = 1;
  touched_.push_back(static_cast<int>(c));
  event_types_[c] = spec == &variable ? &column.variable_scale_type : &spec->type;
  if (IsUnavailablePlaceholder(value, &arena_)) {
    unchanged_.push_back(static_cast<int>(c));
    return true;
  }
  if (!DecodeCell(value, *spec, &arena_, &cells_[c], &error_)) {
    reason_ = error_.Describe(column.name);
    return false;
  }
  return true;
}

data::TypePtr EventDecoder::sequence_type() const {
  if (sequence_from_path_) return path_type_ != nullptr ? *path_type_ : nullptr;
  if (sequence_kind_ == SequenceKind::kNone || sequence_.null) return nullptr;
  return EventSequence::TypeOf(sequence_kind_);
}

void EventDecoder::AppendSequence(data::Column* column) const {
  if (sequence_from_path_) {
    AppendCell(path_cell_, column);
    return;
  }
  if (sequence_kind_ == SequenceKind::kNone) {
    column->AppendNull();
    return;
  }
  sequence_.AppendTo(sequence_kind_, column);
}

}  // namespace cdclake::sources::internal
