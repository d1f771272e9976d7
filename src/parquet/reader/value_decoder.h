// ValueDecoder: appends the values of data pages, in any encoding this reader knows, to a dense
// column of the leaf's logical type (converting INT96, millisecond and nanosecond timestamps,
// unsigned integers and decimals of every physical layout).
#pragma once

#include <cstdint>
#include <string_view>

#include "base/result.h"
#include "data/column.h"
#include "parquet/format/parquet_types.h"
#include "parquet/schema/file_schema.h"

namespace cdclake::parquet {

class ValueDecoder {
 public:
  explicit ValueDecoder(const SchemaNode& leaf);

  /// Decodes a dictionary page body (PLAIN) holding `n` values.
  Status SetDictionary(std::string_view body, int64_t n);
  /// Appends `n` non-null values from a data page's value section.
  Status Decode(format::Encoding encoding, std::string_view data, int64_t n, data::Column* out);

 private:
  Status DecodePlain(std::string_view data, int64_t n, data::Column* out);
  Status DecodeDictionary(std::string_view data, int64_t n, data::Column* out);
  Status AppendFixed(const uint8_t* data, int64_t n, int width, data::Column* out);
  Status AppendByteArray(std::string_view v, data::Column* out);
  Status Truncated(const char* what) const;

  const SchemaNode& leaf_;
  format::Type physical_;
  int width_;
  bool has_dictionary_ = false;
  data::Column dictionary_;
};

/// Finishes a dense column built by ValueDecoder: sets its length from its buffers.
void SealDenseColumn(data::Column* column);

}  // namespace cdclake::parquet
