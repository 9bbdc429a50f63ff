// The JSON value of every answer, file and message the service reads or writes: nlohmann's,
// keeping keys in the order they were written (the contract's order). Here, apart from the
// engine's report, so that what only needs JSON (LTI, the store, the routes) compiles no
// matrix code.
// Thread-safety: a value type; nlohmann's rules.
#pragma once

#include <nlohmann/json.hpp>

namespace headgrader {

using Json = nlohmann::ordered_json;  // keeps the contract's key order

}  // namespace headgrader
