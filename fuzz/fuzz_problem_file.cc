// libFuzzer harness (c): a problem file's text through loading and validation.
#include <cstddef>
#include <cstdint>

#include "harnesses.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  headgrader::fuzz::problem_file({reinterpret_cast<const char*>(data), size});
  return 0;
}
