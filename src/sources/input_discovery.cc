// Input discovery: glob matching part by part, and a walk of the folders a pattern reaches.
#include "sources/input_discovery.h"

#include <algorithm>
#include <set>

namespace cdclake::sources {

namespace {

constexpr size_t kNone = std::string_view::npos;

bool IsGlobChar(char c) {
  return c == '*' || c == '?' || c == '[';
}

std::vector<std::string_view> SplitParts(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t slash = path.find('/', start);
    parts.push_back(path.substr(start, slash == kNone ? kNone : slash - start));
    if (slash == kNone) break;
    start = slash + 1;
  }
  return parts;
}

// The index of the ']' closing the bracket expression opened at p[open], or kNone.
size_t BracketClose(std::string_view p, size_t open) {
  size_t j = open + 1;
  if (j < p.size() && (p[j] == '!' || p[j] == '^')) ++j;
  if (j < p.size() && p[j] == ']') ++j;  // a ']' first is a member
  return p.find(']', j);
}

// Whether `c` is in the set `body` (a bracket expression without its brackets).
bool InBracket(std::string_view body, char c) {
  bool negate = !body.empty() && (body[0] == '!' || body[0] == '^');
  if (negate) body.remove_prefix(1);
  bool found = false;
  for (size_t k = 0; k < body.size() && !found; ++k) {
    if (k + 2 < body.size() && body[k + 1] == '-') {
      auto lo = static_cast<unsigned char>(body[k]);
      auto hi = static_cast<unsigned char>(body[k + 2]);
      auto uc = static_cast<unsigned char>(c);
      found = lo <= uc && uc <= hi;
      k += 2;
    } else {
      found = body[k] == c;
    }
  }
  return found != negate;
}

// One part (no '/') against one name: `*` with backtracking to the last star.
bool MatchPart(std::string_view p, std::string_view s) {
  size_t pi = 0, si = 0, star_p = kNone, star_s = 0;
  while (si < s.size()) {
    bool stepped = false;
    if (pi < p.size()) {
      char pc = p[pi];
      if (pc == '*') {
        star_p = ++pi;
        star_s = si;
        continue;
      }
      size_t close = pc == '[' ? BracketClose(p, pi) : kNone;
      if (close != kNone) {
        if (InBracket(p.substr(pi + 1, close - pi - 1), s[si])) {
          pi = close + 1;
          ++si;
          stepped = true;
        }
      } else if (pc == '?' || pc == s[si]) {
        ++pi;
        ++si;
        stepped = true;
      }
    }
    if (stepped) continue;
    if (star_p == kNone) return false;
    pi = star_p;
    si = ++star_s;
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

bool MatchParts(const std::vector<std::string_view>& p, size_t i,
                const std::vector<std::string_view>& s, size_t j) {
  if (i == p.size()) return j == s.size();
  if (p[i] == "**") {
    for (size_t k = j; k <= s.size(); ++k) {
      if (MatchParts(p, i + 1, s, k)) return true;
    }
    return false;
  }
  return j < s.size() && MatchPart(p[i], s[j]) && MatchParts(p, i + 1, s, j + 1);
}

std::string_view BaseName(std::string_view path) {
  size_t slash = path.find_last_of('/');
  return slash == kNone ? path : path.substr(slash + 1);
}

// Walks the folders below `dir` (named `prefix` in results; "" for the current folder) for the
// glob parts from `i` on.
class GlobWalk {
 public:
  GlobWalk(const io::FileSystem& fs, std::vector<std::string_view> parts)
      : fs_(fs), parts_(std::move(parts)) {}

  Status Walk(const std::string& prefix, size_t i) {
    auto listed = fs_.List(prefix.empty() ? "." : prefix);
    if (!listed.ok()) {
      // A folder that is not there (yet) holds nothing.
      return listed.status().code() == StatusCode::kNotFound ? Status::OK() : listed.status();
    }
    const std::string_view part = parts_[i];
    const bool last = i + 1 == parts_.size();
    if (part == "**") {
      if (last) {
        // Files at any depth.
        for (const io::FileInfo& e : *listed) {
          std::string_view name = BaseName(e.path);
          if (IsHiddenName(name)) continue;
          std::string child = Child(prefix, name);
          if (e.is_directory) {
            CDCLAKE_RETURN_IF_ERROR(Walk(child, i));
          } else {
            found_.insert(std::move(child));
          }
        }
        return Status::OK();
      }
      CDCLAKE_RETURN_IF_ERROR(Walk(prefix, i + 1));  // no folder at all
      for (const io::FileInfo& e : *listed) {
        std::string_view name = BaseName(e.path);
        if (e.is_directory && !IsHiddenName(name)) {
          CDCLAKE_RETURN_IF_ERROR(Walk(Child(prefix, name), i));
        }
      }
      return Status::OK();
    }
    for (const io::FileInfo& e : *listed) {
      std::string_view name = BaseName(e.path);
      if (IsHiddenName(name) && !IsHiddenName(part)) continue;
      if (!MatchPart(part, name)) continue;
      if (last) {
        if (!e.is_directory) found_.insert(Child(prefix, name));
      } else if (e.is_directory) {
        CDCLAKE_RETURN_IF_ERROR(Walk(Child(prefix, name), i + 1));
      }
    }
    return Status::OK();
  }

  std::vector<std::string> Files() const { return {found_.begin(), found_.end()}; }

 private:
  static std::string Child(const std::string& prefix, std::string_view name) {
    return prefix.empty() ? std::string(name) : io::JoinPath(prefix, name);
  }

  const io::FileSystem& fs_;
  std::vector<std::string_view> parts_;
  std::set<std::string> found_;  // std::string orders bytewise (unsigned)
};

}  // namespace

bool HasGlob(std::string_view pattern) {
  return std::any_of(pattern.begin(), pattern.end(), IsGlobChar);
}

bool GlobMatch(std::string_view pattern, std::string_view path) {
  return MatchParts(SplitParts(pattern), 0, SplitParts(path), 0);
}

bool IsHiddenName(std::string_view name) {
  return !name.empty() && (name[0] == '_' || name[0] == '.');
}

Result<InputListing> DiscoverInputs(const io::FileSystem& fs, const std::string& pattern,
                                    bool require_match) {
  InputListing listing;
  if (pattern.empty()) return Status::InvalidArgument("an input pattern is empty");
  if (!HasGlob(pattern)) {
    auto info = fs.Stat(pattern);
    if (!info.ok()) {
      if (info.status().code() == StatusCode::kNotFound) {
        return Status::NotFound(pattern + ": no such file or folder");
      }
      return info.status();
    }
    if (!info->is_directory) {
      listing.files.push_back(pattern);
      listing.named_file = true;
      return listing;
    }
    CDCLAKE_ASSIGN_OR_RETURN(std::vector<io::FileInfo> entries, fs.List(pattern));
    for (const io::FileInfo& e : entries) {
      std::string_view name = BaseName(e.path);
      if (!e.is_directory && !IsHiddenName(name))
        listing.files.push_back(io::JoinPath(pattern, name));
    }
    std::sort(listing.files.begin(), listing.files.end());
    if (listing.files.empty() && require_match) {
      return Status::NotFound(pattern + ": the folder holds no files");
    }
    return listing;
  }
  // The folder before the first part with a glob character is where the walk starts.
  std::vector<std::string_view> parts = SplitParts(pattern);
  size_t first_glob = 0;
  while (!HasGlob(parts[first_glob])) ++first_glob;
  std::string base;
  for (size_t i = 0; i < first_glob; ++i) {
    base += (i == 0 ? "" : "/") + std::string(parts[i]);
  }
  if (base.empty() && pattern[0] == '/') base = "/";
  std::vector<std::string_view> rest;
  for (size_t i = first_glob; i < parts.size(); ++i) {
    if (!parts[i].empty()) rest.push_back(parts[i]);
  }
  GlobWalk walk(fs, rest);
  CDCLAKE_RETURN_IF_ERROR(walk.Walk(base, 0));
  listing.files = walk.Files();
  if (listing.files.empty() && require_match) {
    return Status::NotFound(pattern + ": no file matches");
  }
  return listing;
}

}  // namespace cdclake::sources
