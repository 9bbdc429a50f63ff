// libFuzzer harness (b): a submission body through validation and grading.
#include <cstddef>
#include <cstdint>

#include "harnesses.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  headgrader::fuzz::submission(headgrader::fuzz::bundled_problems(HEADGRADER_PROBLEMS_DIR),
                               {reinterpret_cast<const char*>(data), size});
  return 0;
}
