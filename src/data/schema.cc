// Schema lookups and printing.
#include "data/schema.h"

namespace cdclake::data {

int Schema::FieldIndex(std::string_view name) const {
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

std::string Schema::ToString() const {
  std::string out;
  for (const Field& f : fields_) {
    out += f.name + " " + f.type->ToString();
    if (!f.nullable) out += " not null";
    out += "\n";
  }
  return out;
}

}  // namespace cdclake::data
