// The attempt limit of --rate-limit N/PERIOD (API.md §8): at most `count` gradings per
// (student, problem) in any `period`. Parsed with the flags (options.h), applied where a
// grading is checked against the record (grade_record.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace headgrader::server {

struct RateLimit {
  std::int64_t count = 0;
  std::chrono::milliseconds period{0};
  std::string text;  // as given, e.g. "30/1h", for messages
};

}  // namespace headgrader::server
