// Single-use values of LTI (API.md §11: a login's state, an id_token's nonce), kept by the
// store so that a value used on one server is refused on every other.
// Thread-safety: every method may be called from any thread at once.
#pragma once

#include <string_view>

#include "common/result.h"
#include "store_time.h"

namespace headgrader::store {

class SingleUseValues {
 public:
  virtual ~SingleUseValues() = default;

  // True the first time `value` is used while unexpired; it is then kept until `expires`.
  virtual Result<bool> use_once(std::string_view value, TimeMs expires, TimeMs now) = 0;
  // Keeps `value` until `expires`, for one take_once().
  virtual Result<bool> put_once(std::string_view value, TimeMs expires) = 0;
  // True when `value` was put and has not expired or been taken; it is gone afterwards.
  virtual Result<bool> take_once(std::string_view value, TimeMs now) = 0;
};

}  // namespace headgrader::store
