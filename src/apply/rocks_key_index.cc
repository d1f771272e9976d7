// RocksKeyIndex: the KeyIndex in a RocksDB database in a local folder, tuned for bounded memory
// (block cache, bloom filters, index and filter blocks charged to the cache, a memory map of the
// table files only while they are small). Synced batches.
#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/iterator.h>
#include <rocksdb/options.h>
#include <rocksdb/slice.h>
#include <rocksdb/sst_file_reader.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/table.h>
#include <rocksdb/table_properties.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <cstdarg>

#include "apply/key_index.h"

namespace cdclake::apply {
namespace {

constexpr size_t kWriteBufferBytes = size_t{64} << 20;
constexpr int kMaxOpenFiles = 512;
constexpr int kBloomBitsPerKey = 10;
constexpr size_t kBlockBytes = 1024;
constexpr int kCacheShardBits = 2;  // 4 block-cache shards (MakeOptions says why)
// MultiGet hands RocksDB this many keys at a time, so that the blocks pinned for one call's
// values stay a small part of the cache.
constexpr size_t kMultiGetChunk = 1024;
// A write of this many entries or more (a load, a snapshot) goes in as one sorted table file
// ingested into the database, not through the memtable: no memtable inserts, no flushes, and
// into an empty index no compaction later (docs/apply.md, "The key index and its durable form").
constexpr size_t kIngestFrom = 200000;
// The first write of an opened index goes in so from this many entries: a process that applies
// one batch and exits would otherwise insert it into the memtable and flush it at close. Later
// writes of a long run go through the memtable, which gathers many batches per table file.
constexpr size_t kIngestFirstFrom = 16384;
constexpr const char* kIngestFile = "cdclake-ingest.sst";

// Our Status for a failed RocksDB call: "rocksdb <what> <path>: <rocksdb message>".
Status FromRocks(const rocksdb::Status& s, std::string_view what, const std::string& path) {
  std::string msg = "rocksdb ";
  msg += what;
  msg += ' ';
  msg += path;
  msg += ": ";
  msg += s.ToString();
  if (s.IsCorruption()) return Status::Corrupt(std::move(msg));
  if (s.IsInvalidArgument()) return Status::InvalidArgument(std::move(msg));
  if (s.IsNotSupported()) return Status::NotSupported(std::move(msg));
  if (s.IsNotFound()) return Status::NotFound(std::move(msg));
  // RocksDB's LOCK is held: another process has the index open (a concurrent run).
  if (s.IsIOError() && s.ToString().find("lock file") != std::string::npos) {
    return Status::Conflict(std::move(msg) +
                            " (another cdclake process is writing this table; wait for it)");
  }
  return Status::IoError(std::move(msg));
}

rocksdb::Slice ToSlice(std::string_view s) {
  return rocksdb::Slice(s.data(), s.size());
}
std::string_view ToView(const rocksdb::Slice& s) {
  return std::string_view(s.data(), s.size());
}

// The smallest key greater than every key starting with `prefix`, or "" when there is none
// (the prefix is empty or all 0xff bytes).
std::string PrefixEnd(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty()) {
    auto last = static_cast<unsigned char>(end.back());
    if (last != 0xff) {
      end.back() = static_cast<char>(last + 1);
      return end;
    }
    end.pop_back();
  }
  return end;
}

// The index in the folder `path` as the map budget counts it: the bytes of its entries
// uncompressed (keys and values, as each table file's properties record them), alike for
// compressed and uncompressed files; 0 when the folder does not exist yet. The files are opened
// only while their sizes on disk are within the budget (an entry takes at least as many bytes
// uncompressed); past it, or when a file cannot be read, the result is past the budget too.
int64_t IndexDataBytes(const std::string& path, int64_t map_budget_bytes) {
  rocksdb::Env* env = rocksdb::Env::Default();
  if (env->FileExists(path).IsNotFound()) return 0;
  std::vector<rocksdb::Env::FileAttributes> listed;
  if (!env->GetChildrenFileAttributes(path, &listed).ok()) return map_budget_bytes + 1;
  // The index's table files; an ingest file a crash left is not one (the next ingest removes it).
  std::vector<rocksdb::Env::FileAttributes> files;
  for (rocksdb::Env::FileAttributes& file : listed) {
    if (file.name.ends_with(".sst") && file.name != kIngestFile) files.push_back(std::move(file));
  }
  int64_t on_disk = 0;
  for (const rocksdb::Env::FileAttributes& file : files) {
    on_disk += static_cast<int64_t>(file.size_bytes);
  }
  const int64_t past_budget = std::max(on_disk, map_budget_bytes + 1);
  if (on_disk > map_budget_bytes) return past_budget;
  int64_t data = 0;
  const rocksdb::Options defaults;
  for (const rocksdb::Env::FileAttributes& file : files) {
    rocksdb::SstFileReader reader(defaults);
    if (!reader.Open(path + "/" + file.name).ok()) return past_budget;
    const std::shared_ptr<const rocksdb::TableProperties> props = reader.GetTableProperties();
    if (props == nullptr) return past_budget;
    data += static_cast<int64_t>(props->raw_key_size + props->raw_value_size);
  }
  return data;
}

// Table files are written without compression while the index stays within the map budget
// (they are then read through the memory map, where an uncompressed block is used in place),
// with LZ4 beyond it. `data_bytes` as IndexDataBytes counts.
// A budget of 0 or less: never mapped, always compressed.
bool WithinMapBudget(int64_t data_bytes, int64_t map_budget_bytes) {
  return map_budget_bytes > 0 && data_bytes <= map_budget_bytes;
}
rocksdb::CompressionType CompressionFor(int64_t data_bytes, int64_t map_budget_bytes) {
  return WithinMapBudget(data_bytes, map_budget_bytes) ? rocksdb::kNoCompression
                                                       : rocksdb::kLZ4Compression;
}

// RocksDB's LOG file gets warnings and errors only. Its own level setting does not cover the
// header (version, every option, the files found) that each open writes, tens of kilobytes.
class WarningsOnlyLogger final : public rocksdb::LoggerWrapper {
 public:
  explicit WarningsOnlyLogger(std::shared_ptr<rocksdb::Logger> file)
      : rocksdb::LoggerWrapper(file.get()), file_(std::move(file)) {}

  void LogHeader(const char* /*format*/, va_list /*ap*/) override {}
  void Logv(const char* /*format*/, va_list /*ap*/) override {}  // unlevelled means info
  void Logv(const rocksdb::InfoLogLevel level, const char* format, va_list ap) override {
    if (level >= rocksdb::InfoLogLevel::WARN_LEVEL &&
        level != rocksdb::InfoLogLevel::HEADER_LEVEL) {
      rocksdb::LoggerWrapper::Logv(level, format, ap);
    }
  }

 private:
  std::shared_ptr<rocksdb::Logger> file_;
};

// A logger that drops everything: a read-only open must not write (or rotate) the LOG file of
// the process that has the index open for writing.
class NullLogger final : public rocksdb::Logger {
 public:
  using rocksdb::Logger::Logv;
  void Logv(const char* /*format*/, va_list /*ap*/) override {}
};

Result<rocksdb::Options> MakeOptions(const std::string& path, int64_t cache_bytes,
                                     int64_t table_bytes, int64_t map_budget_bytes,
                                     bool read_only = false) {
  rocksdb::Options options;
  options.create_if_missing = !read_only;
  options.write_buffer_size = kWriteBufferBytes;
  options.max_write_buffer_number = 2;
  options.max_open_files = kMaxOpenFiles;
  options.level_compaction_dynamic_level_bytes = true;
  // A bloom filter over the memtable's keys: most look-ups are for keys that are not in it,
  // and searching its skip list is their largest cost otherwise.
  options.memtable_prefix_bloom_size_ratio = 0.05;
  options.memtable_whole_key_filtering = true;
  // An index within the map budget is read through a memory map of its table files: a
  // MultiGet then finds its keys in the page cache's pages, with no block read, decompressed and
  // put into the block cache per look-up (1M keys: MultiGet 178-234 → 72-103 ms). Each page
  // touched is a page fault, though, and the mapped pages count in the RSS: at 2M keys the map
  // lost (459-561 against 241-316 ms), at 10M by far, hence the budget (docs/apply.md, "The key
  // index and its durable form"). Beyond it blocks are read into the bounded block cache and
  // files are compressed. An index that outgrows the budget while open writes LZ4 from then on
  // (RocksKeyIndex::Grew) and stays mapped until it is opened again.
  const bool mapped = WithinMapBudget(table_bytes, map_budget_bytes);
  options.allow_mmap_reads = mapped;
  options.compression = CompressionFor(table_bytes, map_budget_bytes);
  // Compactions run at idle CPU priority, flushes at low. A process that applies one batch and
  // exits rarely finishes a compaction of earlier processes' files before its close cancels it,
  // and at normal priority that work took a core from the batch: at 10M rows a batch replay took
  // 1.14 of the wall time (paired, docs/apply.md "Compaction of the key index"). A long-running
  // `cdclake run` gets them done while it waits; a starved one stalls writes and so gets CPU.
  if (!read_only) {
    (void)options.env->LowerThreadPoolCPUPriority(rocksdb::Env::LOW, rocksdb::CpuPriority::kIdle);
    (void)options.env->LowerThreadPoolCPUPriority(rocksdb::Env::HIGH, rocksdb::CpuPriority::kLow);
  }
  // Cold start (one process per batch is the common schedule): opening reads each table
  // file's properties and size unless told not to; the key index needs neither (measured:
  // docs/apply.md, "Opening and closing the key index").
  options.skip_stats_update_on_db_open = true;
  options.skip_checking_sst_file_sizes_on_db_open = true;
  // With the write-ahead log the memtable is not flushed when the process ends nor when the
  // next one opens (the log is replayed into memory, at most a write buffer's worth): a
  // process writes a table file when its memtable is full, not one per process.
  options.avoid_flush_during_recovery = true;
  options.avoid_flush_during_shutdown = true;
  // Only warnings and errors go to the LOG file, and old LOG files are not kept.
  options.info_log_level = rocksdb::InfoLogLevel::WARN_LEVEL;
  options.keep_log_file_num = 1;
  options.max_log_file_size = size_t{1} << 20;
  options.stats_dump_period_sec = 0;
  options.stats_persist_period_sec = 0;
  if (read_only) {
    options.info_log = std::make_shared<NullLogger>();
    // Every table file is opened now: a compaction of the writing process that deletes one
    // later leaves it readable here.
    options.max_open_files = -1;
  } else {
    std::shared_ptr<rocksdb::Logger> file;
    rocksdb::Status s = rocksdb::CreateLoggerFromOptions(path, options, &file);
    if (!s.ok()) return FromRocks(s, "open log of", path);
    options.info_log = std::make_shared<WarningsOnlyLogger>(std::move(file));
  }

  rocksdb::BlockBasedTableOptions table;
  // Four shards, not RocksDB's default of one per 512 KiB (64 for 256 MiB): a table file's
  // filter block is loaded whole into one shard's high-priority half, and one of a few MB (a
  // table file of 2M keys holds a 2.7 MB filter) did not fit a 4 MB shard, so it was read and
  // checksummed again for every 32 keys of a MultiGet. At 50M keys that was half a batch
  // (docs/apply.md, "The key index and its durable form").
  table.block_cache = rocksdb::NewLRUCache(static_cast<size_t>(cache_bytes), kCacheShardBits);
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(kBloomBitsPerKey));
  table.cache_index_and_filter_blocks = true;
  table.cache_index_and_filter_blocks_with_high_priority = true;
  table.pin_l0_filter_and_index_blocks_in_cache = true;
  table.optimize_filters_for_memory = true;
  // Point look-ups find their key in a data block through a small hash table, not a search.
  table.data_block_index_type = rocksdb::BlockBasedTableOptions::kDataBlockBinaryAndHash;
  // 1 KiB data blocks, not RocksDB's 4 KiB: a look-up reads, decompresses and caches one block
  // for one entry of ~60 bytes. A 100,000-event batch into 10M keys: MultiGet 587-611 → 273-292
  // ms, the process 1.87-1.97 → 1.56-1.64 s, peak RSS 366 → 260 MB, for an index of 334 MB
  // instead of 313 (3 runs each; docs/apply.md, "The key index and its durable form").
  table.block_size = kBlockBytes;
  // RocksDB keeps in its block cache only the blocks it owns, and a block used in place in the
  // map is not: without pinning, the index and filter blocks of every table file outside level
  // 0 were read and checksummed again for each 32-key step of a MultiGet (a review measured
  // 1,613 reads of each, 3.1 GB, for 100,000 keys in a 1M-key index; RocksDB issue 9367).
  // Pinned, they are read once per open; within the budget they are a few MB.
  if (mapped) {
    table.metadata_cache_options.unpartitioned_pinning = rocksdb::PinningTier::kAll;
  }
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  return options;
}

class RocksKeyIndex final : public KeyIndex {
 public:
  RocksKeyIndex(std::string path, std::unique_ptr<rocksdb::DB> db, bool write_ahead_log,
                int64_t table_bytes, int64_t map_budget_bytes, bool read_only = false)
      : path_(std::move(path)),
        db_(std::move(db)),
        write_ahead_log_(write_ahead_log),
        table_bytes_(table_bytes),
        map_budget_bytes_(map_budget_bytes),
        read_only_(read_only) {}

  ~RocksKeyIndex() override {
    // With the write-ahead log every write is synced there and the next open replays it, so
    // the memtable stays unflushed (no table file, no compaction waited for at exit). Without
    // the log the memtable goes to a table file now; a failed flush loses nothing the caller
    // cannot redo (it catches the index up from the index log), so there is no one to tell.
    if (!write_ahead_log_ && !read_only_) (void)db_->Flush(rocksdb::FlushOptions());
    (void)db_->Close();
  }

  bool SupportsConcurrentReads() const override { return true; }

  Result<std::optional<std::string>> Get(std::string_view key) override {
    std::string value;
    rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), ToSlice(key), &value);
    if (s.IsNotFound()) return std::optional<std::string>();
    if (!s.ok()) return FromRocks(s, "get in", path_);
    return std::optional<std::string>(std::move(value));
  }

  Status MultiGet(std::span<const std::string> keys,
                  std::vector<std::optional<std::string>>* out) override {
    out->clear();
    out->resize(keys.size());
    const size_t chunk = std::min(keys.size(), kMultiGetChunk);
    std::vector<rocksdb::Slice> slices(chunk);
    std::vector<rocksdb::PinnableSlice> values(chunk);
    std::vector<rocksdb::Status> statuses(chunk);
    rocksdb::ReadOptions read;
    for (size_t begin = 0; begin < keys.size(); begin += chunk) {
      const size_t n = std::min(chunk, keys.size() - begin);
      for (size_t i = 0; i < n; ++i) slices[i] = ToSlice(keys[begin + i]);
      db_->MultiGet(read, db_->DefaultColumnFamily(), n, slices.data(), values.data(),
                    statuses.data());
      for (size_t i = 0; i < n; ++i) {
        if (statuses[i].ok()) {
          (*out)[begin + i] = values[i].ToString();
        } else if (!statuses[i].IsNotFound()) {
          return FromRocks(statuses[i], "multiget in", path_);
        }
        values[i].Reset();
      }
    }
    return Status::OK();
  }

  Status Write(const IndexWriteBatch& batch) override {
    if (read_only_) return Status::NotSupported("key index " + path_ + " is open read only");
    if (batch.empty()) return Status::OK();
    // Entries go in in key order, which makes the memtable's inserts far cheaper than random
    // order. The sort is stable (a key's last put still wins) and deletes still follow puts.
    std::vector<uint32_t> order(batch.puts.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return batch.puts[a].first < batch.puts[b].first;
    });
    std::vector<const std::string*> deletes;
    deletes.reserve(batch.deletes.size());
    for (const std::string& key : batch.deletes) deletes.push_back(&key);
    std::sort(deletes.begin(), deletes.end(),
              [](const std::string* a, const std::string* b) { return *a < *b; });
    // Without the write-ahead log a write is not durable until flushed anyway, so an ingested
    // file (synced, atomic) promises as much.
    const size_t entries = order.size() + deletes.size();
    const bool first = !wrote_;
    wrote_ = true;
    if (!write_ahead_log_ && (entries >= kIngestFrom || (first && entries >= kIngestFirstFrom))) {
      return Ingest(batch, order, deletes);
    }
    rocksdb::WriteBatch wb;
    for (uint32_t i : order) {
      rocksdb::Status s = wb.Put(ToSlice(batch.puts[i].first), ToSlice(batch.puts[i].second));
      if (!s.ok()) return FromRocks(s, "batch put for", path_);
    }
    for (const std::string* key : deletes) {
      rocksdb::Status s = wb.Delete(ToSlice(*key));
      if (!s.ok()) return FromRocks(s, "batch delete for", path_);
    }
    rocksdb::WriteOptions options;
    options.sync = write_ahead_log_;
    options.disableWAL = !write_ahead_log_;
    rocksdb::Status s = db_->Write(options, &wb);
    if (!s.ok()) return FromRocks(s, "write to", path_);
    return Grew(EntryBytes(batch, order, deletes));
  }

  Status Scan(std::string_view prefix,
              const std::function<bool(std::string_view, std::string_view)>& visit) override {
    rocksdb::ReadOptions read;
    // Scans see one snapshot (the iterator's) and do not push the hot blocks out of the cache.
    read.fill_cache = false;
    const std::string end = PrefixEnd(prefix);
    rocksdb::Slice end_slice(end);
    if (!end.empty()) read.iterate_upper_bound = &end_slice;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(read));
    for (it->Seek(ToSlice(prefix)); it->Valid(); it->Next()) {
      std::string_view key = ToView(it->key());
      if (!key.starts_with(prefix)) break;
      if (!visit(key, ToView(it->value()))) break;
    }
    if (!it->status().ok()) return FromRocks(it->status(), "scan of", path_);
    return Status::OK();
  }

 private:
  // Write's large case: the puts (in `order`, a key's last one winning) and the deletes (sorted;
  // a key both put and deleted ends absent), merged into one table file in key order.
  Status Ingest(const IndexWriteBatch& batch, const std::vector<uint32_t>& order,
                const std::vector<const std::string*>& deletes) {
    const std::string file = path_ + "/" + kIngestFile;
    rocksdb::Env* env = db_->GetEnv();
    if (env->FileExists(file).ok()) (void)env->DeleteFile(file);  // left by a crash
    // Compressed when the index it joins would outgrow the map budget (a load of many keys).
    const int64_t entry_bytes = EntryBytes(batch, order, deletes);
    rocksdb::Options options = db_->GetOptions();  // outlives the writer
    options.compression = CompressionFor(table_bytes_ + entry_bytes, map_budget_bytes_);
    rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), options);
    rocksdb::Status s = writer.Open(file);
    if (!s.ok()) return FromRocks(s, "ingest file open in", path_);
    size_t p = 0;
    size_t d = 0;
    while (s.ok() && (p < order.size() || d < deletes.size())) {
      // The last of a run of equal puts.
      if (p < order.size()) {
        while (p + 1 < order.size() &&
               batch.puts[order[p + 1]].first == batch.puts[order[p]].first) {
          ++p;
        }
      }
      const std::string* put_key = p < order.size() ? &batch.puts[order[p]].first : nullptr;
      const std::string* delete_key = d < deletes.size() ? deletes[d] : nullptr;
      if (delete_key != nullptr && (put_key == nullptr || *delete_key <= *put_key)) {
        if (put_key != nullptr && *delete_key == *put_key) ++p;
        s = writer.Delete(ToSlice(*delete_key));
        while (d < deletes.size() && *deletes[d] == *delete_key) ++d;
      } else {
        s = writer.Put(ToSlice(*put_key), ToSlice(batch.puts[order[p]].second));
        ++p;
      }
    }
    if (s.ok()) s = writer.Finish();
    if (s.ok()) {
      rocksdb::IngestExternalFileOptions ingest;
      ingest.move_files = true;
      s = db_->IngestExternalFile({file}, ingest);
    }
    if (env->FileExists(file).ok()) (void)env->DeleteFile(file);
    if (!s.ok()) return FromRocks(s, "ingest into", path_);
    return Grew(entry_bytes);
  }

  // A write's entries as IndexDataBytes counts them: keys and values, each key with RocksDB's
  // 8 bytes of sequence number and type (deletes count too: the index never shrinks here).
  static int64_t EntryBytes(const IndexWriteBatch& batch, const std::vector<uint32_t>& order,
                            const std::vector<const std::string*>& deletes) {
    int64_t bytes = 8 * static_cast<int64_t>(order.size() + deletes.size());
    for (uint32_t i : order) {
      bytes += static_cast<int64_t>(batch.puts[i].first.size() + batch.puts[i].second.size());
    }
    for (const std::string* key : deletes) bytes += static_cast<int64_t>(key->size());
    return bytes;
  }

  // After a write of `bytes`: an index that has just outgrown the map budget writes its later
  // table files (flushes, compactions) with LZ4, as one opened past it does. (The map of the
  // files stays until the next open.)
  Status Grew(int64_t bytes) {
    const bool was_within = WithinMapBudget(table_bytes_, map_budget_bytes_);
    table_bytes_ += bytes;
    if (!was_within || WithinMapBudget(table_bytes_, map_budget_bytes_)) return Status::OK();
    rocksdb::Status s = db_->SetOptions({{"compression", "kLZ4Compression"}});
    if (!s.ok()) return FromRocks(s, "set compression of", path_);
    return Status::OK();
  }

  std::string path_;
  std::unique_ptr<rocksdb::DB> db_;
  bool write_ahead_log_ = true;
  int64_t table_bytes_ = 0;       // IndexDataBytes at open
  int64_t map_budget_bytes_ = 0;  // OpenRocksKeyIndex's
  bool read_only_ = false;        // OpenRocksKeyIndexReadOnly
  bool wrote_ = false;            // a write came before (kIngestFirstFrom)
};

}  // namespace

Result<std::unique_ptr<KeyIndex>> OpenRocksKeyIndex(const std::string& path, int64_t cache_bytes,
                                                    bool write_ahead_log,
                                                    int64_t map_budget_bytes) {
  if (path.empty()) return Status::InvalidArgument("rocksdb key index: empty path");
  if (cache_bytes <= 0) {
    return Status::InvalidArgument("rocksdb key index " + path + ": cache_bytes must be > 0");
  }
  const int64_t table_bytes = IndexDataBytes(path, map_budget_bytes);
  CDCLAKE_ASSIGN_OR_RETURN(rocksdb::Options options,
                           MakeOptions(path, cache_bytes, table_bytes, map_budget_bytes));
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(options, path, &raw);
  if (!s.ok()) {
    delete raw;
    return FromRocks(s, "open", path);
  }
  return std::unique_ptr<KeyIndex>(std::make_unique<RocksKeyIndex>(
      path, std::unique_ptr<rocksdb::DB>(raw), write_ahead_log, table_bytes, map_budget_bytes));
}

Result<std::unique_ptr<KeyIndex>> OpenRocksKeyIndexReadOnly(const std::string& path,
                                                            int64_t cache_bytes,
                                                            int64_t map_budget_bytes) {
  if (path.empty()) return Status::InvalidArgument("rocksdb key index: empty path");
  if (cache_bytes <= 0) {
    return Status::InvalidArgument("rocksdb key index " + path + ": cache_bytes must be > 0");
  }
  const int64_t table_bytes = IndexDataBytes(path, map_budget_bytes);
  CDCLAKE_ASSIGN_OR_RETURN(
      rocksdb::Options options,
      MakeOptions(path, cache_bytes, table_bytes, map_budget_bytes, /*read_only=*/true));
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::OpenForReadOnly(options, path, &raw);
  if (!s.ok()) {
    delete raw;
    return FromRocks(s, "open (read only)", path);
  }
  return std::unique_ptr<KeyIndex>(
      std::make_unique<RocksKeyIndex>(path, std::unique_ptr<rocksdb::DB>(raw),
                                      /*write_ahead_log=*/false, table_bytes, map_budget_bytes,
                                      /*read_only=*/true));
}

Status DestroyRocksKeyIndex(const std::string& path) {
  if (path.empty()) return Status::InvalidArgument("rocksdb key index: empty path");
  rocksdb::Status s = rocksdb::DestroyDB(path, rocksdb::Options());
  if (!s.ok()) return FromRocks(s, "destroy", path);
  return Status::OK();
}

}  // namespace cdclake::apply
