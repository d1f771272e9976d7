// Record assembly from definition and repetition levels.
#include "parquet/reader/assembler.h"

#include <cstring>
#include <string>
#include <unordered_map>

namespace cdclake::parquet {

namespace {

using Kind = SchemaNode::Kind;

// A slot of a node: the range of entries (level pairs) of one leaf that belong to it.
struct Item {
  int64_t begin;
  int64_t end;
};

class Assembler {
 public:
  Assembler(const SchemaNode& field, std::vector<LeafData*> leaves) {
    std::vector<const SchemaNode*> all;
    Collect(field, &all);
    for (size_t i = 0; i < all.size() && i < leaves.size(); ++i) data_[all[i]] = leaves[i];
  }

  Result<data::Column> Build(std::vector<const SchemaNode*>* chain) {
    const SchemaNode& node = *chain->back();
    const SchemaNode& leaf = FirstLeaf(node);
    LeafData& ld = *data_.at(&leaf);
    CDCLAKE_ASSIGN_OR_RETURN(std::vector<Item> items, ItemsFor(*chain, leaf, ld));
    data::Column out(node.type);
    const int16_t* def = ld.def.empty() ? nullptr : ld.def.data();
    auto def_at = [&](int64_t e) -> int16_t { return def ? def[e] : leaf.max_def; };
    std::vector<uint8_t> validity(items.size());
    for (size_t i = 0; i < items.size(); ++i)
      validity[i] = def_at(items[i].begin) >= node.def_level;

    switch (node.kind) {
      case Kind::kPrimitive: {
        int64_t cursor = 0;
        for (size_t i = 0; i < items.size(); ++i) {
          if (def_at(items[i].begin) == leaf.max_def) {
            if (cursor >= ld.values.length())
              return Status::Corrupt("column '" + leaf.name + "' has fewer values than levels say");
            out.AppendFrom(ld.values, cursor++);
          } else {
            out.AppendNull();
          }
        }
        return out;
      }
      case Kind::kStruct: {
        for (size_t c = 0; c < node.children.size(); ++c) {
          chain->push_back(&node.children[c]);
          auto child = Build(chain);
          chain->pop_back();
          if (!child.ok()) return child.status();
          if (child->length() != static_cast<int64_t>(items.size())) {
            return Status::Corrupt("struct '" + node.name + "': member '" + node.children[c].name +
                                   "' has " + std::to_string(child->length()) +
                                   " slots, expected " + std::to_string(items.size()));
          }
          out.mutable_child(c) = std::move(child).value();
        }
        out.SetLengthAndValidity(static_cast<int64_t>(items.size()), std::move(validity));
        return out;
      }
      case Kind::kList:
      case Kind::kMap: {
        const int16_t* rep = ld.rep.empty() ? nullptr : ld.rep.data();
        auto& offsets = out.mutable_offsets();
        int64_t total = 0;
        for (const Item& it : items) {
          if (def_at(it.begin) >= node.repeated_def_level) {
            int64_t count = 1;
            for (int64_t e = it.begin + 1; e < it.end; ++e)
              count += rep[e] == node.repeated_rep_level;
            total += count;
          }
          offsets.push_back(total);
        }
        for (size_t c = 0; c < node.children.size(); ++c) {
          chain->push_back(&node.children[c]);
          auto child = Build(chain);
          chain->pop_back();
          if (!child.ok()) return child.status();
          if (child->length() != total) {
            return Status::Corrupt("'" + node.name + "' has " + std::to_string(total) +
                                   " elements but its child has " +
                                   std::to_string(child->length()));
          }
          out.mutable_child(c) = std::move(child).value();
        }
        out.SetLengthAndValidity(static_cast<int64_t>(items.size()), std::move(validity));
        return out;
      }
    }
    return Status::Internal("unknown node kind");
  }

 private:
  static void Collect(const SchemaNode& n, std::vector<const SchemaNode*>* out) {
    if (n.kind == Kind::kPrimitive) {
      out->push_back(&n);
      return;
    }
    for (const SchemaNode& c : n.children) Collect(c, out);
  }

  // The items of chain.back() in the entries of `leaf`, found by walking down from the rows.
  static Result<std::vector<Item>> ItemsFor(const std::vector<const SchemaNode*>& chain,
                                            const SchemaNode& leaf, const LeafData& ld) {
    int64_t n = ld.num_levels;
    const int16_t* def = ld.def.empty() ? nullptr : ld.def.data();
    const int16_t* rep = ld.rep.empty() ? nullptr : ld.rep.data();
    std::vector<Item> items;
    if (rep == nullptr) {
      items.reserve(static_cast<size_t>(n));
      for (int64_t e = 0; e < n; ++e) items.push_back({e, e + 1});
    } else {
      if (n > 0 && rep[0] != 0)
        return Status::Corrupt("column '" + leaf.name +
                               "' does not start a row at its first value");
      for (int64_t e = 0; e < n; ++e) {
        if (rep[e] == 0) {
          if (!items.empty()) items.back().end = e;
          items.push_back({e, n});
        }
      }
    }
    for (size_t k = 0; k + 1 < chain.size(); ++k) {
      const SchemaNode& node = *chain[k];
      if (node.kind != Kind::kList && node.kind != Kind::kMap) continue;
      std::vector<Item> next;
      for (const Item& it : items) {
        int16_t d = def ? def[it.begin] : leaf.max_def;
        if (d < node.repeated_def_level) continue;
        int64_t start = it.begin;
        for (int64_t e = it.begin + 1; e < it.end; ++e) {
          if (rep[e] == node.repeated_rep_level) {
            next.push_back({start, e});
            start = e;
          }
        }
        next.push_back({start, it.end});
      }
      items.swap(next);
    }
    return items;
  }

  std::unordered_map<const SchemaNode*, LeafData*> data_;
};

// Flat top-level primitive: scatter the dense values by definition level.
Result<data::Column> AssembleFlat(const SchemaNode& field, LeafData* ld, int64_t num_rows) {
  if (ld->num_levels != num_rows) {
    return Status::Corrupt("column '" + field.name + "' has " + std::to_string(ld->num_levels) +
                           " values, the row group " + std::to_string(num_rows) + " rows");
  }
  if (ld->def.empty() || ld->values.length() == num_rows) {
    if (ld->values.length() != num_rows) {
      return Status::Corrupt("column '" + field.name + "' is required but has " +
                             std::to_string(ld->values.length()) + " values for " +
                             std::to_string(num_rows) + " rows");
    }
    return std::move(ld->values);
  }
  const data::Column& dense = ld->values;
  data::Column out(field.type);
  std::vector<uint8_t> validity(static_cast<size_t>(num_rows));
  int64_t present = 0;
  for (int64_t i = 0; i < num_rows; ++i) {
    validity[i] = ld->def[i] == field.max_def;
    present += validity[i];
  }
  if (present != dense.length()) {
    return Status::Corrupt("column '" + field.name + "' has " + std::to_string(dense.length()) +
                           " values but " + std::to_string(present) + " non-null slots");
  }
  int width = field.type->byte_width();
  if (width > 0) {
    auto& values = out.mutable_values();
    values.assign(static_cast<size_t>(num_rows) * width, 0);
    const uint8_t* src = dense.values().data();
    int64_t k = 0;
    for (int64_t i = 0; i < num_rows; ++i) {
      if (validity[i])
        std::memcpy(values.data() + i * width, src + (k++) * width, static_cast<size_t>(width));
    }
  } else {
    auto& offsets = out.mutable_offsets();
    offsets.reserve(static_cast<size_t>(num_rows) + 1);
    out.mutable_bytes() = dense.bytes();
    int64_t k = 0;
    for (int64_t i = 0; i < num_rows; ++i) {
      if (validity[i]) ++k;
      offsets.push_back(dense.offsets()[k]);
    }
  }
  out.SetLengthAndValidity(num_rows, std::move(validity));
  return out;
}

}  // namespace

Result<data::Column> AssembleColumn(const SchemaNode& field, std::vector<LeafData*> leaves,
                                    int64_t num_rows) {
  if (field.kind == Kind::kPrimitive) return AssembleFlat(field, leaves.at(0), num_rows);
  Assembler assembler(field, std::move(leaves));
  std::vector<const SchemaNode*> chain{&field};
  CDCLAKE_ASSIGN_OR_RETURN(data::Column column, assembler.Build(&chain));
  if (column.length() != num_rows) {
    return Status::Corrupt("column '" + field.name + "' assembles to " +
                           std::to_string(column.length()) + " rows, the row group has " +
                           std::to_string(num_rows));
  }
  return column;
}

}  // namespace cdclake::parquet
