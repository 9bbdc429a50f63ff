// The one place where anything thrown while routing (an allocation failure, a bug) becomes
// an answer, 500 internal_error, instead of ending the server: every route's work runs
// inside guarded(), on the io threads and off them (Routed::rest) alike.
#pragma once

#include <exception>

#include "error_response.h"
#include "router.h"

namespace headgrader::server {

template <class Work>
Routed guarded(const Request& request, Work&& work) {
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
