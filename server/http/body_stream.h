// A response body made piece by piece, for answers too large to hold at once (the CSV export
// of every record, API.md §8): the session writes the response's head, then each piece as it
// comes, reading the next only once the previous one is written, so that a connection holds
// about one piece whatever the body's size and however slowly its client reads.
// Thread-safety: next() is called from one thread at a time, not necessarily the same one.
#pragma once

#include <optional>
#include <string>

#include "headgrader/result.h"

namespace headgrader::server {

class BodyStream {
 public:
  virtual ~BodyStream() = default;
  // The next piece of the body (never empty), nullopt at its end, or why it cannot go on.
  // It may take long (it reads the store): the session calls it off the io threads.
  virtual Result<std::optional<std::string>> next() = 0;
};

}  // namespace headgrader::server
