// What the end-to-end tests of the course staff's routes (API.md §7 and §9,
// tests/server/{course_staff_keys,problem_editing,problem_validation}_e2e_test.cc) share: a
// folder of the test's own with copies of the bundled problems, the real CLI, a poll, and
// KeyedServer, the real server started on such a folder with keys made by `headgrader keys`.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "server_harness.h"

namespace headgrader::server::course_staff_testing {

using namespace harness;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

// A folder of its own for each test, with copies of the bundled problems.
class Workspace {
 public:
  Workspace() {
    static int counter = 0;
    root_ = fs::temp_directory_path() /
            ("headgrader-staff-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(root_);
    fs::create_directories(root_ / "problems");
    for (const char* id : {"consonant-anywhere", "consonant-proportion", "first-position"}) {
      fs::copy_file(fs::path(HEADGRADER_SOURCE_DIR "/problems") / (std::string(id) + ".json"),
                    root_ / "problems" / (std::string(id) + ".json"));
    }
  }
  ~Workspace() {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }
  fs::path problems() const { return root_ / "problems"; }
  fs::path keys() const { return root_ / "keys.json"; }
  fs::path root() const { return root_; }

 private:
  fs::path root_;
};

inline std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

inline void write_file(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// `headgrader ARGS`: its stdout, and its exit status in `status`.
inline std::string cli(const std::string& args, int* status = nullptr) {
  const std::string command = std::string(HEADGRADER_CLI_BIN) + " " + args + " 2>/dev/null";
  FILE* pipe = ::popen(command.c_str(), "r");
  std::string out;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  const int raw = ::pclose(pipe);
  if (status != nullptr) *status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  if (out.ends_with('\n')) out.pop_back();
  return out;
}

inline std::string new_key(const Workspace& w, const std::string& name, const std::string& role) {
  int status = -1;
  const std::string key =
      cli("keys add --keys " + w.keys().string() + " --name " + name + " --role " + role, &status);
  EXPECT_EQ(status, 0);
  return key;
}

// Polls `done` every 50 ms for up to `limit`.
template <class Done>
inline bool within(std::chrono::milliseconds limit, Done done) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (done()) return true;
    std::this_thread::sleep_for(50ms);
  }
  return done();
}

// A server started on a Workspace, with an lms key and a staff key, two io threads.
class KeyedServer : public ::testing::Test {
 protected:
  void SetUp() override {
    lms_ = new_key(w_, "canvas", "lms");
    staff_ = new_key(w_, "ta", "staff");
    server_.emplace(std::vector<std::string>{"--port", "0", "--address", "127.0.0.1", "--threads",
                                             "2", "--problems", w_.problems().string(), "--keys",
                                             w_.keys().string()});
    port_ = server_->wait_listening();
    ASSERT_NE(port_, 0);
  }

  Workspace w_;
  std::string lms_, staff_;
  std::optional<ServerProcess> server_;
  std::uint16_t port_ = 0;
};

}  // namespace headgrader::server::course_staff_testing
