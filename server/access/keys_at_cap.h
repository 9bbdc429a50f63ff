// The lms keys found at their attempt cap (API.md §8: 100 × N gradings a window in all), each
// with the time its window has room again. Until then the key is refused at once: counting its
// window reads up to 100 × N of its gradings from the store (docs/benchmarks-store.md,
// KeyWindow), and a key that goes on sending at its cap, as a runaway LMS does, would make
// every refusal pay for that again on an io thread.
//
// Holding a key until that time refuses nothing the store would allow: records are never
// deleted, a refused grading makes none, and one still in flight can only make the window's
// cap-th newest grading newer, so the window has no room before the time the count gave (on
// this server or on any other sharing the database). Only the time a refusal names may be
// earlier than a count made now would name, by gradings that were in flight.
// Thread-safety: any thread.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "submission_store.h"

namespace headgrader::server {

class KeysAtTheirCap {
 public:
  // When `key`'s window has room again, if that is after `now`.
  std::optional<store::TimeMs> refused_until(std::string_view key, store::TimeMs now) const;
  // `key` was counted at its cap; its window has room again at `until`. Keys whose time has
  // passed by `now` are forgotten.
  void hold(std::string_view key, store::TimeMs until, store::TimeMs now);

 private:
  mutable std::mutex mutex_;
  std::map<std::string, store::TimeMs, std::less<>> until_;  // key name → room again
};

}  // namespace headgrader::server
