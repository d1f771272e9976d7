// Reading a key index without writing: a read-only base with the index log's later entries in
// an in-memory overlay.
#include "apply/index_peek.h"

#include <map>
#include <optional>
#include <utility>

#include "apply/index_log.h"
#include "io/local_file_system.h"

namespace cdclake::apply {
namespace {

// A KeyIndex that reads `base_` (may be null) under the entries written to it, keeping only
// those `keep_` selects (and metadata and file entries), in memory.
class OverlayIndex final : public KeyIndex {
 public:
  OverlayIndex(std::unique_ptr<KeyIndex> base, std::function<bool(std::string_view)> keep)
      : base_(std::move(base)), keep_(std::move(keep)) {}

  Result<std::optional<std::string>> Get(std::string_view key) override {
    if (auto it = overlay_.find(key); it != overlay_.end()) return it->second;
    if (!base_) return std::optional<std::string>();
    return base_->Get(key);
  }

  Status MultiGet(std::span<const std::string> keys,
                  std::vector<std::optional<std::string>>* out) override {
    out->clear();
    for (const std::string& key : keys) {
      CDCLAKE_ASSIGN_OR_RETURN(std::optional<std::string> value, Get(key));
      out->push_back(std::move(value));
    }
    return Status::OK();
  }

  // Only replaying the index log (CatchUp) writes here.
  Status Write(const IndexWriteBatch& batch) override {
    for (const auto& [key, value] : batch.puts) {
      if (Kept(key)) overlay_[key] = value;
    }
    for (const std::string& key : batch.deletes) {
      if (Kept(key)) overlay_[key] = std::nullopt;
    }
    return Status::OK();
  }

  Status Scan(std::string_view prefix,
              const std::function<bool(std::string_view, std::string_view)>& visit) override {
    std::map<std::string, std::string, std::less<>> merged;
    if (base_) {
      CDCLAKE_RETURN_IF_ERROR(base_->Scan(prefix, [&](std::string_view k, std::string_view v) {
        merged.emplace(std::string(k), std::string(v));
        return true;
      }));
    }
    for (auto it = overlay_.lower_bound(prefix);
         it != overlay_.end() && std::string_view(it->first).starts_with(prefix); ++it) {
      if (it->second) {
        merged[it->first] = *it->second;
      } else {
        merged.erase(it->first);
      }
    }
    for (const auto& [k, v] : merged) {
      if (!visit(k, v)) break;
    }
    return Status::OK();
  }

 private:
  bool Kept(std::string_view key) const {
    return key.starts_with("m:") || key.starts_with("F") || keep_(key);
  }

  std::unique_ptr<KeyIndex> base_;
  std::function<bool(std::string_view)> keep_;
  std::map<std::string, std::optional<std::string>, std::less<>> overlay_;
};

}  // namespace

std::string KeyStateEntry(std::string_view key) {
  std::string out(1, 'k');  // the applier's key-state entries (applier.cc, index_recovery.cc)
  out.append(key);
  return out;
}

Result<IndexPeek> PeekTableIndex(const io::FileSystem& fs, const std::string& table_root,
                                 int64_t table_version,
                                 const std::function<bool(std::string_view entry)>& keep) {
  IndexPeek peek;
  std::unique_ptr<KeyIndex> base;
  const bool local = dynamic_cast<const io::LocalFileSystem*>(&fs) != nullptr;
  const std::string dir = IndexDir(table_root);
  CDCLAKE_ASSIGN_OR_RETURN(bool has_dir, fs.Exists(dir));
  if (local && has_dir) {
    auto opened = OpenRocksKeyIndexReadOnly(dir);
    if (!opened.ok()) {
      peek.problem =
          "the key index " + dir + " cannot be opened (" + opened.status().message() + ")";
    } else {
      auto version = IndexVersion(**opened);
      if (!version.ok()) {
        peek.problem = "the key index " + dir + " is damaged (" + version.status().message() + ")";
      } else if (*version > table_version) {
        peek.problem = "the key index " + dir + " reflects version " + std::to_string(*version) +
                       ", after the table's latest " + std::to_string(table_version) +
                       " (the table was restored); the next run rebuilds it";
      } else {
        base = std::move(*opened);
        peek.from_disk = true;
        peek.disk_version = *version;
      }
    }
  } else if (local) {
    peek.problem = "the key index " + dir + " is missing (the next run rebuilds it)";
  }
  auto overlay = std::make_unique<OverlayIndex>(std::move(base), keep);
  Status caught_up = CatchUp(fs, table_root, table_version, *overlay);
  if (!caught_up.ok()) {
    return peek.problem.empty()
               ? caught_up
               : caught_up.WithContext(peek.problem + "; the index log cannot be replayed either");
  }
  peek.index = std::move(overlay);
  return peek;
}

}  // namespace cdclake::apply
