// What every command does with a command line it cannot run: says what is wrong, then how it
// is used, on stderr, and exits 2 (1 is for a command that ran and failed).
#pragma once

#include <iostream>
#include <string_view>

namespace headgrader::cli {

inline int usage_error(std::string_view what, std::string_view usage) {
  std::cerr << what << "\n" << usage;
  return 2;
}

}  // namespace headgrader::cli
