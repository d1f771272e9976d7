// FileMetadata: Databricks' hidden `_metadata` column of file sources (the path, name, size and
// modification time of the file each row came from), added where a query reads it.
#pragma once

#include "base/result.h"
#include "change/change_batch.h"
#include "data/data_type.h"
#include "data/schema.h"
#include "io/file_system.h"
#include "sql/pipeline_ast.h"

namespace cdclake::pipeline {

inline constexpr char kFileMetadataColumn[] = "_metadata";

/// STRUCT<file_path STRING, file_name STRING, file_size BIGINT, file_modification_time
/// TIMESTAMP>.
data::TypePtr FileMetadataType();

/// Whether `query` names `_metadata` (the column or a field of it, bare or qualified by the
/// query's alias, in its list or its WHERE); `*` does not: the column is hidden.
bool ReadsFileMetadata(const sql::SelectQuery& query);

/// Whether `schema` has a column named `_metadata` in any case (a file's own, which wins).
bool HasColumnNamedMetadata(const data::Schema& schema);

/// `batch` with a `_metadata` column: each row's file (its position's), its name, and the size
/// and modification time the file has when this is called (each file looked at once). NULL for a
/// row without a file. REQUIRES: `batch` has no column of that name.
Result<change::ChangeBatch> AddFileMetadata(const io::FileSystem& fs, change::ChangeBatch batch);

}  // namespace cdclake::pipeline
