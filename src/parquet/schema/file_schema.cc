// Mapping between Parquet schema elements and logical types, and level assignment.
#include "parquet/schema/file_schema.h"

#include "data/decimal.h"

namespace cdclake::parquet {

using data::DataType;
using data::TypePtr;
using format::ConvertedType;
using format::FieldRepetitionType;
using format::LogicalType;
using format::SchemaElement;
using format::Type;

namespace {

constexpr int kMaxDepth = 64;

bool HasConverted(const SchemaElement& e, ConvertedType t) {
  return e.converted_type.has_value() && *e.converted_type == t;
}
bool HasLogical(const SchemaElement& e, LogicalType::Kind k) {
  return e.logical_type.has_value() && e.logical_type->kind == k;
}

Status Bad(const SchemaElement& e, const std::string& why) {
  return Status::Corrupt("schema element '" + e.name + "': " + why);
}

Result<TypePtr> DecimalType(const SchemaElement& e) {
  int precision = 0, scale = 0;
  if (HasLogical(e, LogicalType::Kind::kDecimal)) {
    precision = e.logical_type->decimal_precision;
    scale = e.logical_type->decimal_scale;
  } else {
    precision = e.precision.value_or(0);
    scale = e.scale.value_or(0);
  }
  if (precision < 1 || scale < 0 || scale > precision) {
    return Bad(e, "decimal precision " + std::to_string(precision) + " and scale " +
                      std::to_string(scale) + " are invalid");
  }
  if (precision > 38) {
    return Status::NotSupported("schema element '" + e.name + "': decimal precision " +
                                std::to_string(precision) + " exceeds 38");
  }
  return DataType::Decimal(precision, scale);
}

// The logical type a primitive element reads as.
Result<TypePtr> LeafType(const SchemaElement& e) {
  bool is_decimal =
      HasLogical(e, LogicalType::Kind::kDecimal) || HasConverted(e, ConvertedType::kDecimal);
  Type physical = *e.type;
  switch (physical) {
    case Type::kBoolean:
      return DataType::Boolean();
    case Type::kInt32: {
      if (is_decimal) return DecimalType(e);
      if (HasLogical(e, LogicalType::Kind::kDate) || HasConverted(e, ConvertedType::kDate))
        return DataType::Date();
      int width = 32;
      bool is_signed = true;
      if (HasLogical(e, LogicalType::Kind::kInteger)) {
        width = static_cast<int>(static_cast<uint8_t>(e.logical_type->bit_width));
        is_signed = e.logical_type->is_signed;
      } else if (e.converted_type.has_value()) {
        switch (*e.converted_type) {
          case ConvertedType::kInt8:
            width = 8;
            break;
          case ConvertedType::kInt16:
            width = 16;
            break;
          case ConvertedType::kUint8:
            width = 8, is_signed = false;
            break;
          case ConvertedType::kUint16:
            width = 16, is_signed = false;
            break;
          case ConvertedType::kUint32:
            width = 32, is_signed = false;
            break;
          default:
            break;
        }
      }
      if (width == 8) return is_signed ? DataType::Int8() : DataType::Int16();
      if (width == 16) return is_signed ? DataType::Int16() : DataType::Int32();
      return is_signed ? DataType::Int32() : DataType::Int64();
    }
    case Type::kInt64: {
      if (is_decimal) return DecimalType(e);
      if (HasLogical(e, LogicalType::Kind::kTimestamp)) {
        return e.logical_type->is_adjusted_to_utc ? DataType::Timestamp()
                                                  : DataType::TimestampNtz();
      }
      if (HasConverted(e, ConvertedType::kTimestampMicros) ||
          HasConverted(e, ConvertedType::kTimestampMillis)) {
        return DataType::Timestamp();
      }
      if ((HasLogical(e, LogicalType::Kind::kInteger) && !e.logical_type->is_signed) ||
          HasConverted(e, ConvertedType::kUint64)) {
        return DataType::Decimal(20, 0);
      }
      return DataType::Int64();
    }
    case Type::kInt96:
      return DataType::Timestamp();
    case Type::kFloat:
      return DataType::Float();
    case Type::kDouble:
      return DataType::Double();
    case Type::kByteArray:
      if (is_decimal) return DecimalType(e);
      if (HasLogical(e, LogicalType::Kind::kString) || HasLogical(e, LogicalType::Kind::kEnum) ||
          HasLogical(e, LogicalType::Kind::kJson) || HasConverted(e, ConvertedType::kUtf8) ||
          HasConverted(e, ConvertedType::kEnum) || HasConverted(e, ConvertedType::kJson)) {
        return DataType::String();
      }
      return DataType::Binary();
    case Type::kFixedLenByteArray:
      if (e.type_length.value_or(-1) < 0) return Bad(e, "FIXED_LEN_BYTE_ARRAY without a length");
      if (is_decimal) {
        CDCLAKE_ASSIGN_OR_RETURN(TypePtr t, DecimalType(e));
        if (*e.type_length < 1 || *e.type_length > 16) {
          return Status::NotSupported("schema element '" + e.name + "': decimal stored in " +
                                      std::to_string(*e.type_length) + " bytes");
        }
        return t;
      }
      return DataType::Binary();
  }
  return Bad(e, "unknown physical type");
}

bool IsGroup(const SchemaElement& e) {
  return e.num_children.has_value() && !e.type.has_value();
}

class Parser {
 public:
  explicit Parser(const std::vector<SchemaElement>& elements) : elements_(elements) {}

  Result<SchemaNode> Parse(size_t* i, int16_t parent_def, int16_t parent_rep,
                           std::vector<std::string> path, bool force_required, int depth) {
    if (depth > kMaxDepth) return Status::Corrupt("schema nests deeper than 64 levels");
    if (*i >= elements_.size())
      return Status::Corrupt("schema ends before all children were listed");
    const SchemaElement& e = elements_[*i];
    FieldRepetitionType repetition = e.repetition_type.value_or(FieldRepetitionType::kOptional);
    if (force_required) repetition = FieldRepetitionType::kRequired;

    if (repetition == FieldRepetitionType::kRepeated) {
      // A bare repeated field: a list of required elements, the field itself being the element.
      SchemaNode node;
      node.kind = SchemaNode::Kind::kList;
      node.name = e.name;
      node.nullable = false;
      node.def_level = parent_def;
      node.repeated_def_level = static_cast<int16_t>(parent_def + 1);
      node.repeated_rep_level = static_cast<int16_t>(parent_rep + 1);
      CDCLAKE_ASSIGN_OR_RETURN(SchemaNode element,
                               Parse(i, node.repeated_def_level, node.repeated_rep_level, path,
                                     /*force_required=*/true, depth + 1));
      node.type = DataType::List(element.type, false);
      node.children.push_back(std::move(element));
      return node;
    }

    bool optional = repetition == FieldRepetitionType::kOptional;
    auto def = static_cast<int16_t>(parent_def + (optional ? 1 : 0));
    path.push_back(e.name);
    SchemaNode node;
    node.name = e.name;
    node.nullable = optional;
    node.def_level = def;
    ++*i;

    if (!IsGroup(e)) {
      if (!e.type.has_value()) return Bad(e, "neither a group nor a physical type");
      node.kind = SchemaNode::Kind::kPrimitive;
      CDCLAKE_ASSIGN_OR_RETURN(node.type, LeafType(e));
      node.element = e;
      node.max_def = def;
      node.max_rep = parent_rep;
      node.path = std::move(path);
      return node;
    }

    int32_t n = *e.num_children;
    if (n < 0 || static_cast<size_t>(n) > elements_.size() - *i) {
      return Bad(e, "num_children " + std::to_string(n) + " exceeds the elements that follow");
    }
    bool is_list = HasConverted(e, ConvertedType::kList) || HasLogical(e, LogicalType::Kind::kList);
    bool is_map = HasConverted(e, ConvertedType::kMap) ||
                  HasConverted(e, ConvertedType::kMapKeyValue) ||
                  HasLogical(e, LogicalType::Kind::kMap);
    if ((is_list || is_map) && n == 1 &&
        elements_[*i].repetition_type.value_or(FieldRepetitionType::kOptional) ==
            FieldRepetitionType::kRepeated) {
      const SchemaElement& r = elements_[*i];
      node.repeated_def_level = static_cast<int16_t>(def + 1);
      node.repeated_rep_level = static_cast<int16_t>(parent_rep + 1);
      if (is_map && IsGroup(r) && *r.num_children == 2) {
        node.kind = SchemaNode::Kind::kMap;
        path.push_back(r.name);
        ++*i;
        CDCLAKE_ASSIGN_OR_RETURN(SchemaNode key,
                                 Parse(i, node.repeated_def_level, node.repeated_rep_level, path,
                                       /*force_required=*/true, depth + 1));
        CDCLAKE_ASSIGN_OR_RETURN(
            SchemaNode value,
            Parse(i, node.repeated_def_level, node.repeated_rep_level, path, false, depth + 1));
        node.type = DataType::Map(key.type, value.type, value.nullable);
        node.children.push_back(std::move(key));
        node.children.push_back(std::move(value));
        return node;
      }
      if (is_list) {
        node.kind = SchemaNode::Kind::kList;
        bool two_level =
            !IsGroup(r) || *r.num_children != 1 || r.name == "array" || r.name == e.name + "_tuple";
        SchemaNode element;
        if (two_level) {
          CDCLAKE_ASSIGN_OR_RETURN(element,
                                   Parse(i, node.repeated_def_level, node.repeated_rep_level, path,
                                         /*force_required=*/true, depth + 1));
        } else {
          path.push_back(r.name);
          ++*i;
          CDCLAKE_ASSIGN_OR_RETURN(element, Parse(i, node.repeated_def_level,
                                                  node.repeated_rep_level, path, false, depth + 1));
        }
        node.type = DataType::List(element.type, element.nullable);
        node.children.push_back(std::move(element));
        return node;
      }
    }
    if (is_list || is_map) {
      return Status::NotSupported("schema element '" + e.name + "': unusual " +
                                  (is_list ? "LIST" : "MAP") + " layout");
    }
    node.kind = SchemaNode::Kind::kStruct;
    std::vector<data::Field> fields;
    for (int32_t c = 0; c < n; ++c) {
      CDCLAKE_ASSIGN_OR_RETURN(SchemaNode child, Parse(i, def, parent_rep, path, false, depth + 1));
      for (const data::Field& f : fields) {
        if (f.name == child.name) return Bad(e, "two members are named '" + child.name + "'");
      }
      fields.push_back(data::Field{child.name, child.type, child.nullable});
      node.children.push_back(std::move(child));
    }
    node.type = DataType::Struct(std::move(fields));
    return node;
  }

 private:
  const std::vector<SchemaElement>& elements_;
};

void EmitElements(const data::Field& field, FieldRepetitionType repetition,
                  std::vector<SchemaElement>* out) {
  SchemaElement e;
  e.name = field.name;
  e.repetition_type = repetition;
  const DataType& t = *field.type;
  auto set_logical = [&](LogicalType::Kind kind) {
    LogicalType lt;
    lt.kind = kind;
    e.logical_type = lt;
  };
  switch (t.id()) {
    case data::TypeId::kBoolean:
      e.type = Type::kBoolean;
      break;
    case data::TypeId::kInt8:
    case data::TypeId::kInt16: {
      e.type = Type::kInt32;
      LogicalType lt;
      lt.kind = LogicalType::Kind::kInteger;
      lt.bit_width = t.id() == data::TypeId::kInt8 ? 8 : 16;
      lt.is_signed = true;
      e.logical_type = lt;
      e.converted_type =
          t.id() == data::TypeId::kInt8 ? ConvertedType::kInt8 : ConvertedType::kInt16;
      break;
    }
    case data::TypeId::kInt32:
      e.type = Type::kInt32;
      break;
    case data::TypeId::kInt64:
      e.type = Type::kInt64;
      break;
    case data::TypeId::kFloat:
      e.type = Type::kFloat;
      break;
    case data::TypeId::kDouble:
      e.type = Type::kDouble;
      break;
    case data::TypeId::kDecimal: {
      if (t.precision() <= 9) {
        e.type = Type::kInt32;
      } else if (t.precision() <= 18) {
        e.type = Type::kInt64;
      } else {
        e.type = Type::kFixedLenByteArray;
        e.type_length = data::DecimalByteWidth(t.precision());
      }
      LogicalType lt;
      lt.kind = LogicalType::Kind::kDecimal;
      lt.decimal_precision = t.precision();
      lt.decimal_scale = t.scale();
      e.logical_type = lt;
      e.converted_type = ConvertedType::kDecimal;
      e.precision = t.precision();
      e.scale = t.scale();
      break;
    }
    case data::TypeId::kString:
      e.type = Type::kByteArray;
      set_logical(LogicalType::Kind::kString);
      e.converted_type = ConvertedType::kUtf8;
      break;
    case data::TypeId::kBinary:
      e.type = Type::kByteArray;
      break;
    case data::TypeId::kDate:
      e.type = Type::kInt32;
      set_logical(LogicalType::Kind::kDate);
      e.converted_type = ConvertedType::kDate;
      break;
    case data::TypeId::kTimestamp:
    case data::TypeId::kTimestampNtz: {
      e.type = Type::kInt64;
      LogicalType lt;
      lt.kind = LogicalType::Kind::kTimestamp;
      lt.unit = format::TimeUnit::kMicros;
      lt.is_adjusted_to_utc = t.id() == data::TypeId::kTimestamp;
      e.logical_type = lt;
      if (lt.is_adjusted_to_utc) e.converted_type = ConvertedType::kTimestampMicros;
      break;
    }
    case data::TypeId::kStruct:
      e.num_children = static_cast<int32_t>(t.fields().size());
      out->push_back(e);
      for (const data::Field& f : t.fields()) {
        EmitElements(
            f, f.nullable ? FieldRepetitionType::kOptional : FieldRepetitionType::kRequired, out);
      }
      return;
    case data::TypeId::kList: {
      e.num_children = 1;
      set_logical(LogicalType::Kind::kList);
      e.converted_type = ConvertedType::kList;
      out->push_back(e);
      SchemaElement r;
      r.name = "list";
      r.repetition_type = FieldRepetitionType::kRepeated;
      r.num_children = 1;
      out->push_back(r);
      const data::Field& el = t.fields()[0];
      EmitElements(data::Field{"element", el.type, el.nullable},
                   el.nullable ? FieldRepetitionType::kOptional : FieldRepetitionType::kRequired,
                   out);
      return;
    }
    case data::TypeId::kMap: {
      e.num_children = 1;
      set_logical(LogicalType::Kind::kMap);
      e.converted_type = ConvertedType::kMap;
      out->push_back(e);
      SchemaElement r;
      r.name = "key_value";
      r.repetition_type = FieldRepetitionType::kRepeated;
      r.num_children = 2;
      out->push_back(r);
      const data::Field& k = t.fields()[0];
      const data::Field& v = t.fields()[1];
      EmitElements(data::Field{"key", k.type, false}, FieldRepetitionType::kRequired, out);
      EmitElements(data::Field{"value", v.type, v.nullable},
                   v.nullable ? FieldRepetitionType::kOptional : FieldRepetitionType::kRequired,
                   out);
      return;
    }
  }
  out->push_back(e);
}

void IndexNode(const SchemaNode& node, std::vector<const SchemaNode*>* leaves) {
  if (node.kind == SchemaNode::Kind::kPrimitive) {
    leaves->push_back(&node);
    return;
  }
  for (const SchemaNode& c : node.children) IndexNode(c, leaves);
}

void AssignLeafIndexes(std::vector<SchemaNode>* nodes, int* next) {
  for (SchemaNode& n : *nodes) {
    if (n.kind == SchemaNode::Kind::kPrimitive) {
      n.leaf_index = (*next)++;
    } else {
      AssignLeafIndexes(&n.children, next);
    }
  }
}

}  // namespace

const SchemaNode& FirstLeaf(const SchemaNode& node) {
  const SchemaNode* n = &node;
  while (n->kind != SchemaNode::Kind::kPrimitive) n = &n->children.front();
  return *n;
}

FileSchema& FileSchema::operator=(const FileSchema& other) {
  if (this == &other) return *this;
  elements_ = other.elements_;
  fields_ = other.fields_;
  schema_ = other.schema_;
  IndexLeaves();
  return *this;
}

void FileSchema::IndexLeaves() {
  leaves_.clear();
  for (const SchemaNode& f : fields_) IndexNode(f, &leaves_);
}

Result<FileSchema> FileSchema::FromParquet(const std::vector<SchemaElement>& elements) {
  if (elements.empty()) return Status::Corrupt("the schema has no root element");
  const SchemaElement& root = elements[0];
  if (!IsGroup(root)) return Status::Corrupt("the schema root is not a group");
  FileSchema out;
  out.elements_ = elements;
  Parser parser(elements);
  size_t i = 1;
  std::vector<data::Field> fields;
  int32_t n = *root.num_children;
  if (n < 0 || static_cast<size_t>(n) > elements.size() - 1) {
    return Status::Corrupt("the schema root lists " + std::to_string(n) + " children but " +
                           std::to_string(elements.size() - 1) + " elements follow");
  }
  for (int32_t c = 0; c < n; ++c) {
    CDCLAKE_ASSIGN_OR_RETURN(SchemaNode node, parser.Parse(&i, 0, 0, {}, false, 0));
    for (const data::Field& f : fields) {
      if (f.name == node.name)
        return Status::Corrupt("the schema has two columns named '" + node.name + "'");
    }
    fields.push_back(data::Field{node.name, node.type, node.nullable});
    out.fields_.push_back(std::move(node));
  }
  if (i != elements.size()) {
    return Status::Corrupt("the schema has " + std::to_string(elements.size() - i) +
                           " elements outside the root's children");
  }
  int next = 0;
  AssignLeafIndexes(&out.fields_, &next);
  out.schema_ = data::Schema(std::move(fields));
  out.IndexLeaves();
  return out;
}

Result<FileSchema> FileSchema::FromLogical(const data::Schema& schema) {
  std::vector<SchemaElement> elements;
  SchemaElement root;
  root.name = "schema";
  root.num_children = static_cast<int32_t>(schema.num_fields());
  elements.push_back(root);
  for (const data::Field& f : schema.fields()) {
    if (f.type == nullptr) return Status::InvalidArgument("field '" + f.name + "' has no type");
    if (f.type->id() == data::TypeId::kDecimal &&
        (f.type->precision() < 1 || f.type->precision() > 38)) {
      return Status::InvalidArgument("field '" + f.name + "': decimal precision must be 1..38");
    }
    EmitElements(f, f.nullable ? FieldRepetitionType::kOptional : FieldRepetitionType::kRequired,
                 &elements);
  }
  CDCLAKE_ASSIGN_OR_RETURN(FileSchema out, FromParquet(elements));
  if (!(out.schema_ == schema)) {
    return Status::Internal("the Parquet schema for " + schema.ToString() + " reads back as " +
                            out.schema_.ToString());
  }
  return out;
}

}  // namespace cdclake::parquet
