// Random (version 4) UUIDs: the 16 bytes, and their 8-4-4-4-12 text form. Used for data,
// deletion vector and change-data file names and table ids.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"

namespace cdclake {

/// 16 random bytes shaped as an RFC 4122 version-4 UUID. Fresh entropy on every call (a
/// generator seeded once would repeat itself in forked processes). kIoError when the system
/// has no random source.
Result<std::string> NewUuidBytes();
/// Lower-case 8-4-4-4-12 hex of 16 bytes, most significant first.
std::string UuidText(std::string_view bytes);
/// UuidText(NewUuidBytes()).
Result<std::string> NewUuid();

}  // namespace cdclake
