// Public API: `cdclake serve` — pipelines run continuously behind a read-only monitoring page,
// Prometheus metrics and health endpoints.
#pragma once

#include "server/serve.h"  // IWYU pragma: export
