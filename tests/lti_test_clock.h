// The LTI tests' clock: every check that depends on time (expiry, issued-at, leases, back-off)
// is given its instant, so that the tests are exact and never wait. kNow is a fixed instant
// (2030-03-17); at(s) is the instant s seconds after the Unix epoch.
#pragma once

#include <chrono>

#include "once_set.h"

namespace headgrader::lti {

inline constexpr long long kNow = 1'900'000'000;

inline Clock::time_point at(long long unix) {
  return Clock::time_point{std::chrono::seconds(unix)};
}

}  // namespace headgrader::lti
