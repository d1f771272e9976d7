// Z85: the ZeroMQ base-85 text encoding (rfc.zeromq.org/spec/32) that Delta uses for inline
// deletion vectors and the UUIDs of deletion vector files (PROTOCOL.md §Deletion Vectors).
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"

namespace cdclake::delta {

/// Decodes Z85 text: every 5 characters become 4 bytes (a big-endian 32-bit group). kCorrupt
/// when the length is not a multiple of 5, for a character outside the alphabet (naming its
/// offset), or for a group whose value does not fit in 32 bits.
Result<std::string> Z85Decode(std::string_view text);

/// Encodes bytes as Z85 text, 5 characters per 4 bytes.
/// REQUIRES: bytes.size() % 4 == 0 (pad first; Delta keeps the unpadded size beside the text).
std::string Z85Encode(std::string_view bytes);

}  // namespace cdclake::delta
