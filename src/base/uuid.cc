// Random UUIDs.
#include "base/uuid.h"

#include <cstdint>
#include <exception>
#include <random>

#include "base/bytes.h"

namespace cdclake {

Result<std::string> NewUuidBytes() {
  try {
    std::random_device device;
    std::string bytes(16, '\0');
    for (size_t i = 0; i < bytes.size(); i += 4) {
      const uint32_t word = device();
      for (size_t j = 0; j < 4; ++j) bytes[i + j] = static_cast<char>(word >> (8 * j));
    }
    bytes[6] = static_cast<char>((static_cast<uint8_t>(bytes[6]) & 0x0F) | 0x40);  // version 4
    bytes[8] = static_cast<char>((static_cast<uint8_t>(bytes[8]) & 0x3F) | 0x80);  // RFC variant
    return bytes;
  } catch (const std::exception& e) {
    return Status::IoError(std::string("no random source for a UUID: ") + e.what());
  }
}

std::string UuidText(std::string_view bytes) {
  const std::string hex = HexEncode(bytes);
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
         hex.substr(16, 4) + "-" + hex.substr(20, 12);
}

Result<std::string> NewUuid() {
  CDCLAKE_ASSIGN_OR_RETURN(std::string bytes, NewUuidBytes());
  return UuidText(bytes);
}

}  // namespace cdclake
