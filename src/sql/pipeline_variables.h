// PipelineVariables: ${name} substitution in pipeline text before it is tokenized, from the
// variables a pipeline run is configured with.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "base/result.h"

namespace cdclake::sql {

/// Replaces every `${name}` in `text` with `variables[name]`, in code and inside 'strings',
/// "strings" and `identifiers`, but not inside -- and /* */ comments. Names are matched exactly
/// (case-sensitive) and may contain letters, digits, '_', '.' and '-'. Substituted text is not
/// scanned again. kInvalidArgument (formatted as SyntaxError, at the '$') for an undefined name,
/// an empty `${}` or a `${` without its '}'.
Result<std::string> SubstituteVariables(std::string_view text,
                                        const std::map<std::string, std::string>& variables);

}  // namespace cdclake::sql
