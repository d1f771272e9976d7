// Column chunk encoding: levels, dictionary or plain values, pages, statistics.
#include "parquet/writer/column_chunk_writer.h"

#include <algorithm>

#include "base/bytes.h"
#include "parquet/encoding/plain_boolean.h"
#include "parquet/encoding/rle_bit_packed_encoder.h"
#include "parquet/page_codec.h"
#include "parquet/physical_value.h"

namespace cdclake::parquet {

namespace {
// How many values a column's dictionary is given before it is judged (see Add).
constexpr int64_t kDictionaryProbeValues = 8192;
}  // namespace

using format::Encoding;
using format::PageType;

ColumnChunkWriter::ColumnChunkWriter(const SchemaNode& leaf, const WriterOptions& options)
    : leaf_(leaf),
      options_(options),
      width_(PhysicalWidth(leaf)),
      use_dictionary_(options.dictionary && PhysicalWidth(leaf) != -1),
      dictionary_(std::max(0, PhysicalWidth(leaf))),
      statistics_(leaf) {}

int64_t ColumnChunkWriter::PendingBytes() const {
  return static_cast<int64_t>(def_.size() + rep_.size()) / 4 +
         static_cast<int64_t>(indices_.size()) * 2 +
         static_cast<int64_t>(plain_.size() + booleans_.size() / 8);
}

Status ColumnChunkWriter::Add(const int16_t* def, const int16_t* rep, size_t num_levels,
                              const data::Column& values, const int64_t* indices,
                              size_t num_values) {
  if (leaf_.max_def > 0) def_.insert(def_.end(), def, def + num_levels);
  if (leaf_.max_rep > 0) rep_.insert(rep_.end(), rep, rep + num_levels);
  pending_levels_ += static_cast<int64_t>(num_levels);
  statistics_.AddNulls(static_cast<int64_t>(num_levels - num_values));
  statistics_.Update(values, indices, num_values);
  if (use_dictionary_) {
    const bool probing = dictionary_values_ < kDictionaryProbeValues;
    if (probing) {
      dictionary_values_ += static_cast<int64_t>(num_values);
      if (width_ > 0) {
        dictionary_plain_bytes_ += static_cast<int64_t>(num_values) * width_;
      } else {
        for (size_t i = 0; i < num_values; ++i) {
          dictionary_plain_bytes_ += 4 + static_cast<int64_t>(values.StringAt(indices[i]).size());
        }
      }
    }
    AppendDictionaryIndices(values, indices, num_values);
    // Mostly distinct values (ids, e-mail addresses, timestamps) make a dictionary about as large
    // as the values themselves, and hashing each is wasted: after the first values, such a
    // column goes PLAIN, as it would at the page limit anyway.
    const bool mostly_distinct =
        probing && dictionary_values_ >= kDictionaryProbeValues &&
        static_cast<int64_t>(dictionary_.encoded_bytes()) * 2 > dictionary_plain_bytes_;
    if (mostly_distinct ||
        static_cast<int64_t>(dictionary_.encoded_bytes()) > options_.dictionary_page_bytes) {
      CDCLAKE_RETURN_IF_ERROR(FallBackToPlain());
    }
  } else {
    AppendPlain(values, indices, num_values);
  }
  return Status::OK();
}

void ColumnChunkWriter::AppendDictionaryIndices(const data::Column& values, const int64_t* indices,
                                                size_t n) {
  size_t at = indices_.size();
  indices_.resize(at + n);
  uint32_t* out = indices_.data() + at;
  if (width_ > 0) {
    scratch_.clear();
    AppendPhysicalFixed(values, leaf_, indices, n, &scratch_);
    const char* p = scratch_.data();
    for (size_t i = 0; i < n; ++i)
      out[i] = dictionary_.Insert(std::string_view(p + i * width_, width_));
  } else {
    for (size_t i = 0; i < n; ++i) out[i] = dictionary_.Insert(values.StringAt(indices[i]));
  }
}

void ColumnChunkWriter::AppendPlain(const data::Column& values, const int64_t* indices, size_t n) {
  if (width_ > 0) {
    AppendPhysicalFixed(values, leaf_, indices, n, &plain_);
  } else if (width_ == 0) {
    for (size_t i = 0; i < n; ++i) {
      std::string_view s = values.StringAt(indices[i]);
      AppendLE<uint32_t>(&plain_, static_cast<uint32_t>(s.size()));
      plain_.append(s);
    }
  } else {
    const uint8_t* b = values.Data<uint8_t>();
    for (size_t i = 0; i < n; ++i) booleans_.push_back(b[indices[i]]);
  }
}

Status ColumnChunkWriter::FallBackToPlain() {
  CDCLAKE_RETURN_IF_ERROR(FlushPage());
  use_dictionary_ = false;
  return Status::OK();
}

Status ColumnChunkWriter::MaybeFlushPage() {
  if (PendingBytes() >= options_.page_bytes) return FlushPage();
  return Status::OK();
}

Status ColumnChunkWriter::AddPage(PageType type, const std::string& body, int32_t num_values,
                                  Encoding encoding) {
  CDCLAKE_ASSIGN_OR_RETURN(Codec codec, CodecFor(options_.compression));
  CDCLAKE_RETURN_IF_ERROR(Compress(codec, body, &compressed_, options_.compression_level));
  format::PageHeader header;
  header.type = type;
  header.uncompressed_page_size = static_cast<int32_t>(body.size());
  header.compressed_page_size = static_cast<int32_t>(compressed_.size());
  if (type == PageType::kDictionaryPage) {
    format::DictionaryPageHeader d;
    d.num_values = num_values;
    d.encoding = Encoding::kPlain;
    header.dictionary_page_header = d;
  } else {
    format::DataPageHeader d;
    d.num_values = num_values;
    d.encoding = encoding;
    d.definition_level_encoding = Encoding::kRle;
    d.repetition_level_encoding = Encoding::kRle;
    header.data_page_header = d;
  }
  std::string page;
  format::EncodePageHeader(header, &page);
  size_t header_size = page.size();
  page.reserve(header_size + compressed_.size());
  page += compressed_;
  if (type == PageType::kDictionaryPage) {
    dictionary_page_ = std::move(page);  // placed in front of the data pages by Finish()
  } else {
    pages_.push_back(std::move(page));
  }
  auto uncompressed = static_cast<int64_t>(header_size + body.size());
  buffered_uncompressed_ += uncompressed;
  total_uncompressed_ += uncompressed;
  return Status::OK();
}

Status ColumnChunkWriter::FlushPage() {
  if (pending_levels_ == 0) return Status::OK();
  std::string& body = body_;
  body.clear();
  auto append_levels = [&](const std::vector<int16_t>& levels, int16_t max_level) {
    RleBitPackedEncoder enc(RleBitPackedEncoder::BitWidth(static_cast<uint64_t>(max_level)));
    size_t i = 0;
    while (i < levels.size()) {
      size_t j = i + 1;
      while (j < levels.size() && levels[j] == levels[i]) ++j;
      enc.PutRepeated(static_cast<uint32_t>(levels[i]), j - i);
      i = j;
    }
    std::string encoded = enc.Finish();
    AppendLE<uint32_t>(&body, static_cast<uint32_t>(encoded.size()));
    body += encoded;
  };
  if (leaf_.max_rep > 0) append_levels(rep_, leaf_.max_rep);
  if (leaf_.max_def > 0) append_levels(def_, leaf_.max_def);
  Encoding encoding = Encoding::kPlain;
  if (use_dictionary_) {
    encoding = Encoding::kRleDictionary;
    int bit_width = std::max(
        1, RleBitPackedEncoder::BitWidth(dictionary_.size() > 0 ? dictionary_.size() - 1 : 0));
    body.push_back(static_cast<char>(bit_width));
    RleBitPackedEncoder enc(bit_width);
    for (uint32_t idx : indices_) enc.Put(idx);
    body += enc.Finish();
    ++dict_data_pages_;
  } else {
    if (width_ == -1) {
      EncodePlainBooleans(booleans_.data(), booleans_.size(), &body);
    } else {
      body += plain_;
    }
    ++plain_data_pages_;
  }
  if (pending_levels_ > INT32_MAX)
    return Status::InvalidArgument("a page holds more than 2^31 values");
  CDCLAKE_RETURN_IF_ERROR(
      AddPage(PageType::kDataPage, body, static_cast<int32_t>(pending_levels_), encoding));
  num_values_ += pending_levels_;
  pending_levels_ = 0;
  def_.clear();
  rep_.clear();
  indices_.clear();
  plain_.clear();
  booleans_.clear();
  return Status::OK();
}

Status ColumnChunkWriter::Seal() {
  if (sealed_) return Status::OK();
  CDCLAKE_RETURN_IF_ERROR(FlushPage());
  if (dict_data_pages_ > 0) {
    CDCLAKE_RETURN_IF_ERROR(AddPage(PageType::kDictionaryPage, dictionary_.plain(),
                                    static_cast<int32_t>(dictionary_.size()), Encoding::kPlain));
  }
  sealed_ = true;
  return Status::OK();
}

Result<format::ColumnChunk> ColumnChunkWriter::Finish(int64_t file_offset, io::OutputStream* out) {
  CDCLAKE_RETURN_IF_ERROR(Seal());
  format::ColumnMetaData meta;
  meta.type = *leaf_.element.type;
  meta.path_in_schema = leaf_.path;
  meta.codec = options_.compression;
  meta.num_values = num_values_;
  int64_t start = file_offset;
  int64_t compressed_total = 0;
  if (dict_data_pages_ > 0) {
    meta.dictionary_page_offset = file_offset;
    CDCLAKE_RETURN_IF_ERROR(out->Append(dictionary_page_));
    compressed_total += static_cast<int64_t>(dictionary_page_.size());
    file_offset += static_cast<int64_t>(dictionary_page_.size());
    meta.encoding_stats.push_back({PageType::kDictionaryPage, Encoding::kPlain, 1});
    meta.encoding_stats.push_back(
        {PageType::kDataPage, Encoding::kRleDictionary, dict_data_pages_});
  }
  if (plain_data_pages_ > 0) {
    meta.encoding_stats.push_back({PageType::kDataPage, Encoding::kPlain, plain_data_pages_});
  }
  meta.data_page_offset = file_offset;
  for (const std::string& page : pages_) {
    CDCLAKE_RETURN_IF_ERROR(out->Append(page));
    compressed_total += static_cast<int64_t>(page.size());
  }
  meta.encodings.push_back(Encoding::kPlain);
  meta.encodings.push_back(Encoding::kRle);
  if (dict_data_pages_ > 0) meta.encodings.push_back(Encoding::kRleDictionary);
  meta.total_compressed_size = compressed_total;
  meta.total_uncompressed_size = total_uncompressed_;
  meta.statistics = statistics_.Finish(options_.max_statistics_bytes);

  format::ColumnChunk chunk;
  chunk.file_offset = start;
  chunk.meta_data = std::move(meta);

  // Reset for the next row group.
  pages_.clear();
  dictionary_page_.clear();
  dictionary_.Clear();
  use_dictionary_ = options_.dictionary && width_ != -1;
  dictionary_values_ = 0;
  dictionary_plain_bytes_ = 0;
  statistics_ = StatisticsCollector(leaf_);
  buffered_uncompressed_ = 0;
  total_uncompressed_ = 0;
  num_values_ = 0;
  dict_data_pages_ = 0;
  plain_data_pages_ = 0;
  sealed_ = false;
  return chunk;
}

}  // namespace cdclake::parquet
