// Times as the contract writes them: RFC 3339 in UTC with milliseconds,
// "2026-12-01T09:48:34.123Z" (a record's `time`, the access log's, §9's `loaded_at`, a score's
// timestamp), and the reader of a query's `since`/`until` (any fraction, "Z" or an offset).
// Written by calendar arithmetic rather than gmtime_r, which takes glibc's time-zone lock on
// every call: the access log writes one per request on every thread.
// Thread-safety: pure functions.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace headgrader {

using UnixMs = std::int64_t;  // milliseconds since 1970-01-01T00:00:00Z

// Room for one time as written here (24 characters up to the year 9999).
using Rfc3339Text = std::array<char, 32>;

// `time` written into `text`, without allocating; the view is of `text`.
std::string_view write_rfc3339_ms(std::chrono::system_clock::time_point time, Rfc3339Text& text);
std::string rfc3339_millis(std::chrono::system_clock::time_point time);
std::string format_rfc3339_ms(UnixMs time);

// RFC 3339 (a date-time with "Z" or an offset, any fraction, read to the millisecond);
// nullopt when it is not one.
std::optional<UnixMs> parse_rfc3339(std::string_view text);

}  // namespace headgrader
