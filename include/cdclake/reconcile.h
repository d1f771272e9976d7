// Public API: a Delta table compared with the PostgreSQL table it is fed from (`cdclake
// reconcile`).
#pragma once

#include "pipeline/reconcile.h"  // IWYU pragma: export
