// libFuzzer harness (a): raw HTTP request bytes through Beast's parser and the Router.
#include <cstddef>
#include <cstdint>

#include "harnesses.h"
#include "problem_catalog.h"
#include "service.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace server = headgrader::server;
  // The server's parts without --keys, --lti or a store, built once and never freed.
  static auto* catalog =
      new server::ProblemCatalog(headgrader::fuzz::bundled_problems(HEADGRADER_PROBLEMS_DIR));
  static auto* service = new server::Service{catalog};
  static const auto* router = new server::Router(*service);
  headgrader::fuzz::http_request(*router, {reinterpret_cast<const char*>(data), size});
  return 0;
}
