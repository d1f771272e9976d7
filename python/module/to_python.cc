// Values of every Delta type as Python objects, record batches as columns or DataFrames.
#include "to_python.h"

#include <utility>

namespace py = pybind11;

namespace cdclake::python {

namespace {

// Python's datetime keeps years 1 to 9999: 0001-01-01 and 9999-12-31 in days since the epoch.
constexpr int64_t kFirstDay = -719162;
constexpr int64_t kLastDay = 2932896;
constexpr int64_t kMicrosPerDay = 86'400'000'000;

// The objects of Python's datetime and decimal modules the conversions use, looked up once
// per batch.
struct PyTypes {
  py::module_ datetime_module = py::module_::import("datetime");
  py::object timedelta = datetime_module.attr("timedelta");
  py::object utc = datetime_module.attr("timezone").attr("utc");
  py::object decimal = py::module_::import("decimal").attr("Decimal");
  py::object epoch_day = datetime_module.attr("date")(1970, 1, 1);
  py::object epoch_utc = datetime_module.attr("datetime")(1970, 1, 1, 0, 0, 0, 0, utc);
  py::object epoch_naive = datetime_module.attr("datetime")(1970, 1, 1);
};

int64_t FloorDiv(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0);
}

py::object ToPython(const data::Value& v, const data::DataType& type, const PyTypes& t) {
  using data::TypeId;
  if (v.is_null()) return py::none();
  switch (type.id()) {
    case TypeId::kBoolean:
      return py::bool_(v.bool_value());
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
      return py::int_(v.int_value());
    case TypeId::kFloat:
    case TypeId::kDouble:
      return py::float_(v.double_value());
    case TypeId::kDecimal:
      return t.decimal(data::FormatValueText(v, type));
    case TypeId::kString:
      return Text(v.bytes());
    case TypeId::kBinary:
      return py::bytes(v.bytes());
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz: {
      const bool date = type.id() == TypeId::kDate;
      const int64_t day = date ? v.int_value() : FloorDiv(v.int_value(), kMicrosPerDay);
      // Outside Python's years: the text `cdclake show` prints.
      if (day < kFirstDay || day > kLastDay) return Text(data::FormatValueText(v, type));
      if (date) return t.epoch_day + t.timedelta(py::arg("days") = v.int_value());
      const py::object& epoch = type.id() == TypeId::kTimestamp ? t.epoch_utc : t.epoch_naive;
      return epoch + t.timedelta(py::arg("microseconds") = v.int_value());
    }
    case TypeId::kStruct: {
      py::dict out;
      const auto& children = v.children();
      for (size_t i = 0; i < type.fields().size(); ++i) {
        const data::Field& f = type.fields()[i];
        out[Text(f.name)] = i < children.size() ? ToPython(children[i], *f.type, t) : py::none();
      }
      return out;
    }
    case TypeId::kList: {
      py::list out;
      for (const data::Value& e : v.children()) out.append(ToPython(e, *type.fields()[0].type, t));
      return out;
    }
    case TypeId::kMap: {
      const data::DataType& key_type = *type.fields()[0].type;
      const data::DataType& value_type = *type.fields()[1].type;
      // A dict needs hashable keys: a map keyed by structs, arrays or maps is a list of
      // (key, value) pairs instead.
      py::dict dict;
      py::list pairs;
      for (const data::Value& entry : v.children()) {
        const auto& kv = entry.children();
        py::object key = ToPython(kv[0], key_type, t);
        py::object value = kv.size() > 1 ? ToPython(kv[1], value_type, t) : py::none();
        if (key_type.is_nested()) {
          pairs.append(py::make_tuple(key, value));
        } else {
          dict[key] = value;
        }
      }
      if (key_type.is_nested()) return pairs;
      return dict;
    }
  }
  return py::none();
}

// The pandas dtype of a column: nullable integers and booleans, so a null stays a null rather
// than turning the column into floats; float64 for floating point (a null is NaN, as pandas
// reads Parquet: pandas 1.5's nullable Float64 would turn NaN into a null); else object.
const char* PandasDtype(const data::DataType& type) {
  switch (type.id()) {
    case data::TypeId::kBoolean:
      return "boolean";
    case data::TypeId::kInt8:
      return "Int8";
    case data::TypeId::kInt16:
      return "Int16";
    case data::TypeId::kInt32:
      return "Int32";
    case data::TypeId::kInt64:
      return "Int64";
    case data::TypeId::kFloat:
      return "float32";
    case data::TypeId::kDouble:
      return "float64";
    default:
      return "object";
  }
}

}  // namespace

py::str Text(const std::string& text) {
  return py::reinterpret_steal<py::str>(
      PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "replace"));
}

void Raise(const Status& s) {
  PyObject* type = PyExc_RuntimeError;
  switch (s.code()) {
    case StatusCode::kNotFound:
      type = PyExc_FileNotFoundError;
      break;
    case StatusCode::kInvalidArgument:
      type = PyExc_ValueError;
      break;
    case StatusCode::kOutOfRange:
      type = PyExc_IndexError;
      break;
    default:
      break;
  }
  PyErr_SetObject(type, Text(s.ToString()).ptr());
  throw py::error_already_set();
}

py::object BatchToPython(const data::RecordBatch& batch, std::optional<bool> as_pandas) {
  py::object pandas = py::none();
  if (as_pandas.value_or(true)) {
    try {
      pandas = py::module_::import("pandas");
    } catch (py::error_already_set& e) {
      if (as_pandas.value_or(false)) throw;  // asked for, and not installed
    }
  }
  const PyTypes types;
  py::dict columns;
  const data::Schema& schema = batch.schema();
  for (size_t c = 0; c < schema.num_fields(); ++c) {
    const data::Field& field = schema.field(c);
    const data::Column& column = batch.column(c);
    py::list values(batch.num_rows());
    for (int64_t r = 0; r < batch.num_rows(); ++r) {
      values[static_cast<size_t>(r)] = ToPython(column.GetValue(r), *field.type, types);
    }
    if (pandas.is_none()) {
      columns[Text(field.name)] = std::move(values);
    } else {
      columns[Text(field.name)] =
          pandas.attr("Series")(values, py::arg("dtype") = PandasDtype(*field.type));
    }
  }
  if (pandas.is_none()) return columns;
  return pandas.attr("DataFrame")(columns);
}

}  // namespace cdclake::python
