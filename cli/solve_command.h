// `headgrader solve FILE [--n-q N] [--seconds S] [--write]` (API.md §14; headgrader/solve.h):
// prints the answer; --write puts a found head into FILE as its reference, atomically.
// Exit 0: found, 1: not found, 2: the command or the file is wrong.
#pragma once

#include <string>
#include <vector>

namespace headgrader::cli {

int solve_command(const std::vector<std::string>& args);

}  // namespace headgrader::cli
