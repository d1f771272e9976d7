// The compression codec for a column chunk's codec field.
#pragma once

#include "base/result.h"
#include "parquet/compression/codec.h"
#include "parquet/format/parquet_types.h"

namespace cdclake::parquet {

/// kNotSupported("compression codec LZO") for codecs cdclake does not read.
Result<Codec> CodecFor(format::CompressionCodec codec);

}  // namespace cdclake::parquet
