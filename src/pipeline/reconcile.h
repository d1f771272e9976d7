// Reconcile: a Delta table compared with the PostgreSQL table it is fed from, row by row by key:
// which keys are missing, extra or different, with counts (the seeds' daily reconciliation of
// counts and checksums against the source, as a command).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "io/file_system.h"

namespace cdclake::pipeline {

struct ReconcileOptions {
  std::string connection;    // libpq conninfo of the source database
  std::string source_table;  // "schema.name" or "name"
  /// Key columns; empty: the source's primary key (or replica identity index).
  std::vector<std::string> keys;
  /// Columns compared; empty: every column both tables have.
  std::vector<std::string> columns;
  int64_t examples = 10;  // keys listed per kind of difference
  /// Compare at one point (see ReconcileWithPostgres); false: the table as it is now with the
  /// source as it is now.
  bool exact = true;
  /// Keys are summed into this many buckets by a hash of the key; only the keys of buckets
  /// whose counts or digests differ are held in memory (a second pass over both sides).
  int64_t buckets = 256;
};

struct ReconcileReport {
  std::string source;      // "host:port/db public.customers"
  std::string source_lsn;  // the source's WAL position when its rows were read (the point)
  /// When compared at one point: what the table side was ("LSN 0/1A2B: table version 12 (its
  /// position 0/19F0) and 3 changes after it read from slot s").
  std::string point;
  /// Otherwise why not: the table is not written from read_postgres directly, ...
  std::string not_exact;
  int64_t table_version = -1;
  std::vector<std::string> keys;
  std::vector<std::string> columns;  // compared, in the source's order
  int64_t source_rows = 0;
  int64_t table_rows = 0;  // current rows (SCD2: those with __END_AT NULL)
  int64_t matching = 0;
  int64_t missing = 0;            // keys in the source, not in the table
  int64_t extra = 0;              // keys in the table, not in the source (or there twice)
  int64_t changed = 0;            // keys in both with another value in some compared column
  int64_t buckets = 0;            // the key buckets summed
  int64_t differing_buckets = 0;  // those whose keys were compared one by one
  /// Up to ReconcileOptions::examples keys of each kind, "id=5" or "a=1, b=x", sorted.
  std::vector<std::string> missing_keys;
  std::vector<std::string> extra_keys;
  std::vector<std::string> changed_keys;

  bool equal() const { return missing == 0 && extra == 0 && changed == 0; }
};

/// Compares the Delta table at `table_root` with its PostgreSQL source by key: each row's
/// compared columns are converted as read_postgres converts them, then formatted and hashed on
/// both sides. Rows are held as one 64-bit hash per key, so the source's keys must fit in
/// memory only where they differ: each side is first summed by buckets of keys (count and
/// a sum of 64-bit row digests), and only the buckets that differ are compared key by key.
///
/// At one point (POSTGRES-SOURCE.md section 6), when the table is written by one flow from
/// read_postgres directly: the source is read in the snapshot of a temporary slot, consistent
/// with its LSN C; the table's latest version is at the position its flow recorded, L; the
/// changes of the table between L and C are read from the flow's slot (up to C exactly, never
/// confirmed, so the slot does not move) and laid over the table's rows. Changes the pipeline
/// has not read yet are then no differences, and a difference is one the pipeline will not
/// mend. The flow's slot must not be in use by a run then. Otherwise (a table fed from bronze,
/// `exact` false) the table as it is now is compared with the source as it is now, and
/// `not_exact` says why. kInvalidArgument when a key or compared column is missing from
/// either table.
Result<ReconcileReport> ReconcileWithPostgres(const io::FileSystem& fs,
                                              const std::string& table_root,
                                              const ReconcileOptions& options);

}  // namespace cdclake::pipeline
