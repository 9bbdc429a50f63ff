// What the operations tests share (API.md §17; tests/*_e2e_test.cc of readiness, request ids,
// logs, metrics and backups): a folder of the test's own and keys made by the real CLI.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "test_support.h"

namespace headgrader::testing {

// An empty folder of this test process's own (removed when the process ends).
inline std::filesystem::path empty_folder(const std::string& name) {
  const std::filesystem::path dir = private_temp_path(name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// `headgrader keys add --keys FILE --name NAME --role ROLE`: the key it prints, else "".
inline std::string add_key(const std::filesystem::path& file, const std::string& name,
                           const std::string& role) {
  const std::string command = std::string(HEADGRADER_CLI_BIN) + " keys add --keys " +
                              file.string() + " --name " + name + " --role " + role +
                              " 2>/dev/null";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return "";
  std::string out;
  char buffer[256];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  ::pclose(pipe);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

}  // namespace headgrader::testing
