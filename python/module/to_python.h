// Engine values and errors as Python objects, for the `cdclake` module.
#pragma once

#include <pybind11/pybind11.h>

#include <optional>
#include <string>

#include "cdclake/parquet.h"

namespace cdclake::python {

/// `text` as a Python str; bytes that are not UTF-8 (a source's bad value quoted in a
/// message) become U+FFFD instead of failing the conversion.
pybind11::str Text(const std::string& text);

/// Raises the Python exception a caller expects for `s`: FileNotFoundError for kNotFound,
/// ValueError for kInvalidArgument, IndexError for kOutOfRange, else RuntimeError; the
/// message is the one `cdclake` prints.
[[noreturn]] void Raise(const Status& s);

template <typename T>
T ValueOrRaise(Result<T> r) {
  if (!r.ok()) Raise(r.status());
  return std::move(r).value();
}

/// `batch` as {column: [values]} in its column order, or as a pandas DataFrame: when
/// `as_pandas` is true (ImportError without pandas), or unset and pandas imports.
pybind11::object BatchToPython(const data::RecordBatch& batch, std::optional<bool> as_pandas);

}  // namespace cdclake::python
