// Replays every input a fuzzer has crashed, hung or aborted on (tests/data/fuzz-regressions/
// <harness>/, one file each, kept after the fix) and the fuzzers' seed corpora (fuzz/corpus/)
// through the same harness bodies (fuzz/harnesses.h), so that a regression fails the normal
// suite and, under the sanitizers, the ASan build. Each input must also finish in time.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "harnesses.h"
#include "part1_router.h"

namespace headgrader::fuzz {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

const fs::path kRoot = HEADGRADER_SOURCE_DIR;

std::vector<fs::path> inputs_of(const std::string& harness) {
  std::vector<fs::path> files;
  for (const fs::path& dir :
       {kRoot / "tests/data/fuzz-regressions" / harness, kRoot / "fuzz/corpus" / harness}) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      if (entry.is_regular_file() && entry.path().filename() != "README.md") {
        files.push_back(entry.path());
      }
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

template <typename Harness>
void replay(const std::string& harness, Harness run) {
  const std::vector<fs::path> files = inputs_of(harness);
  EXPECT_FALSE(files.empty()) << "no seeds for " << harness;
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.string());
    const std::string bytes = read_bytes(file);
    const auto started = std::chrono::steady_clock::now();
    run(bytes);
    EXPECT_LT(std::chrono::steady_clock::now() - started, 5s) << "the fuzzers' limit is 5 s";
  }
}

const ProblemSet& problems() { return bundled_problems(HEADGRADER_SOURCE_DIR "/problems"); }

TEST(FuzzRegressions, HttpRequestInputs) {
  const testing::Part1Router part1(problems());
  replay("http_request", [&](std::string_view bytes) { http_request(part1.router(), bytes); });
}

TEST(FuzzRegressions, SubmissionInputs) {
  replay("submission", [](std::string_view bytes) { submission(problems(), bytes); });
}

TEST(FuzzRegressions, ProblemFileInputs) {
  replay("problem_file", [](std::string_view bytes) { problem_file(bytes); });
}

}  // namespace
}  // namespace headgrader::fuzz
