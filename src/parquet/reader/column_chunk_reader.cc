// Page decoding for one column chunk.
#include "parquet/reader/column_chunk_reader.h"

#include <algorithm>
#include <string>

#include "base/bytes.h"
#include "parquet/compression/codec.h"
#include "parquet/encoding/rle_bit_packed_decoder.h"
#include "parquet/page_codec.h"
#include "parquet/reader/value_decoder.h"

namespace cdclake::parquet {

using format::Encoding;
using format::PageType;

namespace {

Status DecodeLevels(std::string_view encoded, int16_t max_level, int64_t n,
                    std::vector<int16_t>* out, const char* which) {
  size_t at = out->size();
  out->resize(at + static_cast<size_t>(n));
  int bit_width = 0;
  while ((1 << bit_width) <= max_level) ++bit_width;
  RleBitPackedDecoder decoder(encoded, bit_width);
  CDCLAKE_ASSIGN_OR_RETURN(size_t got, decoder.GetBatch(out->data() + at, static_cast<size_t>(n)));
  if (got != static_cast<size_t>(n)) {
    return Status::Corrupt(std::string(which) + " levels: page has " + std::to_string(n) +
                           " values but only " + std::to_string(got) + " levels");
  }
  for (size_t i = at; i < out->size(); ++i) {
    if ((*out)[i] < 0 || (*out)[i] > max_level) {
      return Status::Corrupt(std::string(which) + " level " + std::to_string((*out)[i]) +
                             " exceeds the maximum " + std::to_string(max_level));
    }
  }
  return Status::OK();
}

int64_t CountPresent(const std::vector<int16_t>& def, size_t from, int16_t max_def) {
  int64_t n = 0;
  for (size_t i = from; i < def.size(); ++i) n += def[i] == max_def;
  return n;
}

}  // namespace

Status ReadColumnChunk(const SchemaNode& leaf, const format::ColumnMetaData& meta,
                       std::string_view chunk_bytes, LeafData* out) {
  CDCLAKE_ASSIGN_OR_RETURN(Codec codec, CodecFor(meta.codec));
  ValueDecoder decoder(leaf);
  out->values = data::Column(leaf.type);
  // Size the buffers once from the metadata, trusting it no further than the chunk's own bytes
  // could justify (a lying footer must not make us reserve memory the file cannot fill).
  auto expected = static_cast<int64_t>(
      std::min<uint64_t>(static_cast<uint64_t>(meta.num_values), chunk_bytes.size() * 8 + 4096));
  if (leaf.max_def > 0) out->def.reserve(static_cast<size_t>(expected));
  if (leaf.max_rep > 0) out->rep.reserve(static_cast<size_t>(expected));
  out->values.Reserve(expected);
  if (leaf.type->byte_width() == 0) {
    out->values.mutable_bytes().reserve(static_cast<size_t>(std::min<uint64_t>(
        static_cast<uint64_t>(std::max<int64_t>(meta.total_uncompressed_size, 0)),
        chunk_bytes.size() * 8 + 4096)));
  }
  size_t pos = 0;
  int64_t values_seen = 0;
  std::string page;
  while (values_seen < meta.num_values && pos < chunk_bytes.size()) {
    size_t header_size = 0;
    auto header_or = format::DecodePageHeader(chunk_bytes.substr(pos), &header_size);
    if (!header_or.ok()) {
      return header_or.status().WithContext("page header at chunk offset " + std::to_string(pos));
    }
    format::PageHeader header = std::move(header_or).value();
    pos += header_size;
    if (header.compressed_page_size < 0 || header.uncompressed_page_size < 0 ||
        static_cast<size_t>(header.compressed_page_size) > chunk_bytes.size() - pos) {
      return Status::Corrupt("page at chunk offset " + std::to_string(pos - header_size) +
                             " claims " + std::to_string(header.compressed_page_size) +
                             " bytes, the chunk has " + std::to_string(chunk_bytes.size() - pos) +
                             " left");
    }
    std::string_view body =
        chunk_bytes.substr(pos, static_cast<size_t>(header.compressed_page_size));
    pos += static_cast<size_t>(header.compressed_page_size);

    if (header.type == PageType::kDictionaryPage) {
      if (!header.dictionary_page_header)
        return Status::Corrupt("dictionary page without its header");
      CDCLAKE_RETURN_IF_ERROR(
          Decompress(codec, body, static_cast<size_t>(header.uncompressed_page_size), &page));
      CDCLAKE_RETURN_IF_ERROR(
          decoder.SetDictionary(page, header.dictionary_page_header->num_values));
      continue;
    }
    if (header.type == PageType::kDataPage) {
      if (!header.data_page_header) return Status::Corrupt("data page without its header");
      const format::DataPageHeader& h = *header.data_page_header;
      if (h.num_values < 0 || h.num_values > kMaxPageValues) {
        return Status::Corrupt("data page claims " + std::to_string(h.num_values) + " values");
      }
      CDCLAKE_RETURN_IF_ERROR(
          Decompress(codec, body, static_cast<size_t>(header.uncompressed_page_size), &page));
      ByteReader r(page);
      size_t def_from = out->def.size();
      if (leaf.max_rep > 0) {
        if (h.repetition_level_encoding != Encoding::kRle) {
          return Status::NotSupported(
              "repetition level encoding " +
              std::to_string(static_cast<int>(h.repetition_level_encoding)));
        }
        CDCLAKE_ASSIGN_OR_RETURN(std::string_view levels, ReadLengthPrefixedLevels(r));
        CDCLAKE_RETURN_IF_ERROR(
            DecodeLevels(levels, leaf.max_rep, h.num_values, &out->rep, "repetition"));
      }
      int64_t present = h.num_values;
      if (leaf.max_def > 0) {
        if (h.definition_level_encoding != Encoding::kRle) {
          return Status::NotSupported(
              "definition level encoding " +
              std::to_string(static_cast<int>(h.definition_level_encoding)));
        }
        CDCLAKE_ASSIGN_OR_RETURN(std::string_view levels, ReadLengthPrefixedLevels(r));
        CDCLAKE_RETURN_IF_ERROR(
            DecodeLevels(levels, leaf.max_def, h.num_values, &out->def, "definition"));
        present = CountPresent(out->def, def_from, leaf.max_def);
      }
      CDCLAKE_RETURN_IF_ERROR(
          decoder.Decode(h.encoding, page.substr(r.position()), present, &out->values));
      values_seen += h.num_values;
      out->num_levels += h.num_values;
      continue;
    }
    if (header.type == PageType::kDataPageV2) {
      if (!header.data_page_header_v2) return Status::Corrupt("data page v2 without its header");
      const format::DataPageHeaderV2& h = *header.data_page_header_v2;
      if (h.num_values < 0 || h.num_values > kMaxPageValues) {
        return Status::Corrupt("data page claims " + std::to_string(h.num_values) + " values");
      }
      if (h.repetition_levels_byte_length < 0 || h.definition_levels_byte_length < 0 ||
          static_cast<int64_t>(h.repetition_levels_byte_length) + h.definition_levels_byte_length >
              static_cast<int64_t>(body.size())) {
        return Status::Corrupt("data page v2 level lengths exceed the page");
      }
      std::string_view rep_bytes =
          body.substr(0, static_cast<size_t>(h.repetition_levels_byte_length));
      std::string_view def_bytes =
          body.substr(static_cast<size_t>(h.repetition_levels_byte_length),
                      static_cast<size_t>(h.definition_levels_byte_length));
      std::string_view values = body.substr(static_cast<size_t>(h.repetition_levels_byte_length) +
                                            static_cast<size_t>(h.definition_levels_byte_length));
      size_t def_from = out->def.size();
      if (leaf.max_rep > 0)
        CDCLAKE_RETURN_IF_ERROR(
            DecodeLevels(rep_bytes, leaf.max_rep, h.num_values, &out->rep, "repetition"));
      int64_t present = h.num_values;
      if (leaf.max_def > 0) {
        CDCLAKE_RETURN_IF_ERROR(
            DecodeLevels(def_bytes, leaf.max_def, h.num_values, &out->def, "definition"));
        present = CountPresent(out->def, def_from, leaf.max_def);
      }
      std::string_view value_bytes = values;
      if (h.is_compressed && codec != Codec::kUncompressed) {
        int64_t size = static_cast<int64_t>(header.uncompressed_page_size) -
                       h.repetition_levels_byte_length - h.definition_levels_byte_length;
        if (size < 0)
          return Status::Corrupt("data page v2 uncompressed size is smaller than its levels");
        CDCLAKE_RETURN_IF_ERROR(Decompress(codec, values, static_cast<size_t>(size), &page));
        value_bytes = page;
      }
      CDCLAKE_RETURN_IF_ERROR(decoder.Decode(h.encoding, value_bytes, present, &out->values));
      values_seen += h.num_values;
      out->num_levels += h.num_values;
      continue;
    }
    // Index pages and page types from the future carry nothing we read.
  }
  if (values_seen != meta.num_values) {
    return Status::Corrupt("column chunk has " + std::to_string(values_seen) +
                           " values, its metadata says " + std::to_string(meta.num_values));
  }
  SealDenseColumn(&out->values);
  return Status::OK();
}

}  // namespace cdclake::parquet
