// `headgrader keys add|list|remove --keys FILE …` (API.md §7): makes, lists and removes the
// keys of the server's keys file. A new key is printed once on stdout; the file keeps only
// its SHA-256.
#pragma once

#include <string>
#include <vector>

namespace headgrader::cli {

// `args` after "keys". Exit status: 0 done, 1 the file could not be read or written, 2 the
// command is wrong (the reason on stderr).
int keys_command(const std::vector<std::string>& args);

}  // namespace headgrader::cli
