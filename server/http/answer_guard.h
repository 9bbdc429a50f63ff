// The one place where anything thrown while routing (an allocation failure, a bug) becomes
// an answer, 500 internal_error, instead of ending the server: every route's work runs
// inside guarded(), on the io threads and off them (Routed::rest) alike.
#pragma once

#include <exception>
#include <optional>

#include "error_response.h"

namespace headgrader::server {

// What `work` gives (a Routed, router.h), or the 500 answer if it throws. The type is
// work's, so that this header needs nothing of the router that uses it.
template <class Work>
auto guarded(const Request& request, Work&& work) -> decltype(work()) {
  try {
    return work();
  } catch (const std::exception&) {
    return {
        error_answer(request, {ErrorCode::kInternalError,
                               "the server failed to answer this request; please report it", ""}),
        "", std::nullopt};
  }
}

}  // namespace headgrader::server
