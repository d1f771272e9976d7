// Parsing of the `__$` metadata cells of SQL Server change-table exports: LSNs, the operation
// code, the update mask and the command id, each from its text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cdclake::sources::internal {

/// A binary(10) LSN as exported: exactly 20 hex digits, optionally after "0x" or "0X". Sets
/// `*out` to the digits in lower case (so that LSNs compare bytewise); false for anything
/// else (base64, other lengths, other characters).
bool NormalizeLsn(std::string_view text, std::string* out);

/// __$operation: "1" to "4" (any other text, or another number, is false).
bool ParseOperation(std::string_view text, int* out);

/// __$command_id: a decimal integer that fits an int (optional sign).
bool ParseCommandId(std::string_view text, int64_t* out);

/// __$update_mask (varbinary(128)): 1 to 128 bytes as hex digits, optionally after "0x" or
/// "0X". Sets `*out` to the bytes in order; false for anything else.
bool ParseUpdateMask(std::string_view text, std::vector<uint8_t>* out);

/// sys.fn_cdc_is_bit_set: whether the column of 1-based `ordinal` is set in `mask`. Ordinal 1
/// is the least significant bit of the last byte, ordinal 9 that of the byte before; bits past
/// the mask's first byte are clear.
bool IsUpdateMaskBitSet(const std::vector<uint8_t>& mask, int64_t ordinal);

}  // namespace cdclake::sources::internal
