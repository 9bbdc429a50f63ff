// libFuzzer harness (a): raw HTTP request bytes through Beast's parser and the Router.
#include <cstddef>
#include <cstdint>

#include "harnesses.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const headgrader::server::Router* router =
      new headgrader::server::Router(headgrader::fuzz::bundled_problems(HEADGRADER_PROBLEMS_DIR));
  headgrader::fuzz::http_request(*router, {reinterpret_cast<const char*>(data), size});
  return 0;
}
