// Public API: one key of a cdclake target told whole (`cdclake explain`): its rows, its key-index
// state, the horizon and truncate that reach it, and its bronze events with what the engine did.
#pragma once

#include "pipeline/key_story.h"  // IWYU pragma: export
