// Public API: reading and writing Parquet files, and the in-memory data they hold.
#pragma once

#include "base/result.h"                 // IWYU pragma: export
#include "base/strings.h"                // IWYU pragma: export
#include "data/record_batch.h"           // IWYU pragma: export
#include "data/value_format.h"           // IWYU pragma: export
#include "io/local_file_system.h"        // IWYU pragma: export
#include "parquet/reader/file_reader.h"  // IWYU pragma: export
#include "parquet/writer/file_writer.h"  // IWYU pragma: export
