// How a limit is written in a message, built from its constant (headgrader/limits.h) so that
// changing the constant changes every message that states it: never retype "1 MiB" or "1e6".
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>

namespace headgrader {

// The shortest text that reads back as `x`, as a person writes a limit: 1e6 → "1e6",
// 1024 → "1024", 0.5 → "0.5", 1e-7 → "1e-7" (plain digits when they are no longer).
std::string number_text(double x);

// A size in the largest binary unit it is a whole number of: 1048576 → "1 MiB",
// 16384 → "16 KiB", 1000 → "1000 bytes", 1 → "1 byte".
std::string bytes_text(std::uint64_t bytes);

}  // namespace headgrader
