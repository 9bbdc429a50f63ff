// Times in the store: milliseconds since the Unix epoch, UTC, as every table keeps them
// (common/rfc3339.h writes and reads them as text).
// Thread-safety: a type and a clock read.
#pragma once

#include <cstdint>

namespace headgrader::store {

using TimeMs = std::int64_t;
TimeMs now_ms();

}  // namespace headgrader::store
