// Record shredding.
#include "parquet/writer/shredder.h"

#include <string>

namespace cdclake::parquet {

namespace {

using Kind = SchemaNode::Kind;

// Walks one leaf's path. `chain[k]` is the node at depth k and `child_at[k]` the index of
// chain[k+1] among chain[k]'s children.
class LeafShredder {
 public:
  LeafShredder(std::vector<const SchemaNode*> chain, std::vector<size_t> child_at,
               ShreddedLeaf* out)
      : chain_(std::move(chain)), child_at_(std::move(child_at)), out_(out) {}

  Status Visit(size_t k, const data::Column& col, int64_t slot, int16_t rep) {
    const SchemaNode& node = *chain_[k];
    if (col.IsNull(slot)) {
      if (!node.nullable) {
        return Status::InvalidArgument("column '" + node.name +
                                       "' is not nullable but holds a null");
      }
      Emit(static_cast<int16_t>(node.def_level - 1), rep);
      return Status::OK();
    }
    switch (node.kind) {
      case Kind::kPrimitive:
        out_->values = &col;
        out_->indices.push_back(slot);
        Emit(node.def_level, rep);
        return Status::OK();
      case Kind::kStruct:
        return Visit(k + 1, col.child(child_at_[k]), slot, rep);
      case Kind::kList:
      case Kind::kMap: {
        int64_t begin = col.offsets()[slot];
        int64_t end = col.offsets()[slot + 1];
        if (begin == end) {
          Emit(node.def_level, rep);
          return Status::OK();
        }
        const data::Column& child = col.child(child_at_[k]);
        for (int64_t e = begin; e < end; ++e) {
          CDCLAKE_RETURN_IF_ERROR(
              Visit(k + 1, child, e, e == begin ? rep : node.repeated_rep_level));
        }
        return Status::OK();
      }
    }
    return Status::OK();
  }

 private:
  void Emit(int16_t def, int16_t rep) {
    out_->def.push_back(def);
    out_->rep.push_back(rep);
  }

  std::vector<const SchemaNode*> chain_;
  std::vector<size_t> child_at_;
  ShreddedLeaf* out_;
};

void CollectChains(
    const SchemaNode& node, std::vector<const SchemaNode*>* chain, std::vector<size_t>* child_at,
    std::vector<std::pair<std::vector<const SchemaNode*>, std::vector<size_t>>>* out) {
  chain->push_back(&node);
  if (node.kind == Kind::kPrimitive) {
    out->emplace_back(*chain, *child_at);
  } else {
    for (size_t i = 0; i < node.children.size(); ++i) {
      child_at->push_back(i);
      CollectChains(node.children[i], chain, child_at, out);
      child_at->pop_back();
    }
  }
  chain->pop_back();
}

// The common case: a top-level primitive column.
Status ShredFlat(const SchemaNode& field, const data::Column& column, int64_t begin, int64_t end,
                 ShreddedLeaf* leaf) {
  leaf->values = &column;
  size_t n = static_cast<size_t>(end - begin);
  leaf->indices.reserve(n);
  if (!column.has_nulls()) {
    for (int64_t i = begin; i < end; ++i) leaf->indices.push_back(i);
    if (field.nullable) leaf->def.assign(n, 1);
    return Status::OK();
  }
  if (!field.nullable) {
    return Status::InvalidArgument("column '" + field.name + "' is not nullable but holds a null");
  }
  leaf->def.resize(n);
  for (int64_t i = begin; i < end; ++i) {
    bool valid = column.IsValid(i);
    leaf->def[static_cast<size_t>(i - begin)] = valid ? 1 : 0;
    if (valid) leaf->indices.push_back(i);
  }
  return Status::OK();
}

}  // namespace

Status Shred(const SchemaNode& field, const data::Column& column, int64_t begin, int64_t end,
             std::vector<ShreddedLeaf>* out) {
  out->clear();
  if (field.kind == Kind::kPrimitive) {
    out->emplace_back();
    return ShredFlat(field, column, begin, end, &out->back());
  }
  std::vector<std::pair<std::vector<const SchemaNode*>, std::vector<size_t>>> chains;
  std::vector<const SchemaNode*> chain;
  std::vector<size_t> child_at;
  CollectChains(field, &chain, &child_at, &chains);
  out->resize(chains.size());
  for (size_t l = 0; l < chains.size(); ++l) {
    ShreddedLeaf& leaf = (*out)[l];
    // The leaf's own column, found by following the chain (valid even when no value is seen).
    const data::Column* c = &column;
    for (size_t k = 0; k + 1 < chains[l].first.size(); ++k) c = &c->child(chains[l].second[k]);
    leaf.values = c;
    LeafShredder shredder(chains[l].first, chains[l].second, &leaf);
    for (int64_t row = begin; row < end; ++row) {
      CDCLAKE_RETURN_IF_ERROR(shredder.Visit(0, column, row, 0));
    }
  }
  return Status::OK();
}

}  // namespace cdclake::parquet
