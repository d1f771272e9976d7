// JSON parsing with errors as values.
#include "json/json.h"

#include <map>

namespace cdclake::json {

Result<Json> Parse(std::string_view text) {
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const Json::parse_error& e) {
    return Status::Corrupt("invalid JSON at byte " + std::to_string(e.byte) + ": " + e.what());
  } catch (const std::exception& e) {
    return Status::Corrupt(std::string("invalid JSON: ") + e.what());
  }
}

std::string Dump(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

namespace {

const Json* Find(const Json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

Status Missing(std::string_view key) {
  return Status::Corrupt("missing field '" + std::string(key) + "'");
}
Status WrongType(std::string_view key, const char* want, const Json& got) {
  return Status::Corrupt("field '" + std::string(key) + "' should be " + want + ", is " +
                         got.type_name());
}

}  // namespace

Result<std::optional<std::string>> OptString(const Json& object, std::string_view key) {
  const Json* v = Find(object, key);
  if (v == nullptr) return std::optional<std::string>();
  if (!v->is_string()) return WrongType(key, "a string", *v);
  return std::optional<std::string>(v->get<std::string>());
}

Result<std::optional<int64_t>> OptInt(const Json& object, std::string_view key) {
  const Json* v = Find(object, key);
  if (v == nullptr) return std::optional<int64_t>();
  if (v->is_number_integer()) return std::optional<int64_t>(v->get<int64_t>());
  if (v->is_number_unsigned() && v->get<uint64_t>() <= static_cast<uint64_t>(INT64_MAX)) {
    return std::optional<int64_t>(static_cast<int64_t>(v->get<uint64_t>()));
  }
  return WrongType(key, "an integer", *v);
}

Result<std::optional<bool>> OptBool(const Json& object, std::string_view key) {
  const Json* v = Find(object, key);
  if (v == nullptr) return std::optional<bool>();
  if (!v->is_boolean()) return WrongType(key, "a boolean", *v);
  return std::optional<bool>(v->get<bool>());
}

Result<std::string> GetString(const Json& object, std::string_view key) {
  CDCLAKE_ASSIGN_OR_RETURN(auto v, OptString(object, key));
  if (!v) return Missing(key);
  return *v;
}

Result<int64_t> GetInt(const Json& object, std::string_view key) {
  CDCLAKE_ASSIGN_OR_RETURN(auto v, OptInt(object, key));
  if (!v) return Missing(key);
  return *v;
}

Result<bool> GetBool(const Json& object, std::string_view key) {
  CDCLAKE_ASSIGN_OR_RETURN(auto v, OptBool(object, key));
  if (!v) return Missing(key);
  return *v;
}

Result<std::optional<std::map<std::string, std::optional<std::string>>>> OptStringMap(
    const Json& object, std::string_view key) {
  using Map = std::map<std::string, std::optional<std::string>>;
  const Json* v = Find(object, key);
  if (v == nullptr) return std::optional<Map>();
  if (!v->is_object()) return WrongType(key, "an object", *v);
  Map out;
  for (auto it = v->begin(); it != v->end(); ++it) {
    if (it->is_null()) {
      out[it.key()] = std::nullopt;
    } else if (it->is_string()) {
      out[it.key()] = it->get<std::string>();
    } else {
      out[it.key()] = it->dump();  // numbers or booleans written bare by some writers
    }
  }
  return std::optional<Map>(std::move(out));
}

}  // namespace cdclake::json
