// The keys file as `headgrader keys` changes it beside a running server: changes at once keep
// every printed key (one lock around read, edit and rename), an existing file keeps its mode
// and owner, and a server that cannot read it on SIGHUP says so. And SIGHUP while the server
// is still starting: held, not fatal, and not lost.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "keys.h"
#include "server_harness.h"
#include "test_support.h"

namespace headgrader::server::keys_file_e2e {
namespace {

using namespace std::chrono_literals;
using namespace harness;
namespace fs = std::filesystem;

// The CLI under test: HEADGRADER_TEST_CLI_BIN runs another build's, e.g. the commit before a
// fix, to see its test fail (as HEADGRADER_TEST_SERVER_BIN does for the server).
std::string cli_bin() {
  const char* other = std::getenv("HEADGRADER_TEST_CLI_BIN");
  return other != nullptr && *other != '\0' ? other : HEADGRADER_CLI_BIN;
}

// `headgrader keys ARGS` started now; `finish` waits for it and returns its stdout.
struct KeysRun {
  FILE* pipe = nullptr;
  std::string finish(int* status) {
    std::string out;
    char buffer[4096];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) {
      out.append(buffer, n);
    }
    const int raw = ::pclose(pipe);
    *status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    if (out.ends_with('\n')) out.pop_back();
    return out;
  }
};

KeysRun start_keys(const std::string& args) {
  const std::string command = cli_bin() + " keys " + args + " 2>&1";
  return {::popen(command.c_str(), "r")};
}

std::string keys(const std::string& args, int* status) { return start_keys(args).finish(status); }

class KeysFolder {
 public:
  KeysFolder() {
    static int counter = 0;
    root_ = fs::temp_directory_path() /
            ("headgrader-keysfile-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  ~KeysFolder() {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }
  fs::path keys() const { return root_ / "keys.json"; }

 private:
  fs::path root_;
};

TEST(KeysFileUpdates, EightAddsAtOnceKeepEveryPrintedKeyInTheFile) {
  const KeysFolder folder;
  const std::string file = folder.keys().string();
  std::vector<KeysRun> runs;
  for (int i = 0; i < 8; ++i) {
    runs.push_back(
        start_keys("add --keys " + file + " --name lms-" + std::to_string(i) + " --role lms"));
  }
  std::vector<std::string> printed;
  for (KeysRun& run : runs) {
    int status = -1;
    const std::string out = run.finish(&status);
    EXPECT_EQ(status, 0) << out;
    printed.push_back(out);
  }
  const Result<KeyFile> read = KeyFile::read(folder.keys());
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read->entries().size(), 8u);
  const KeyRing ring(read->entries());
  for (const std::string& key : printed) {
    EXPECT_NE(ring.find(key), nullptr) << "printed but not in the file: " << key;
  }
}

TEST(KeysFileUpdates, AddAndRemoveKeepAnExistingFilesModeAndOwner) {
  const KeysFolder folder;
  const std::string file = folder.keys().string();
  int status = -1;
  keys("add --keys " + file + " --name canvas --role lms", &status);
  ASSERT_EQ(status, 0);
  struct stat made {};
  ASSERT_EQ(::stat(file.c_str(), &made), 0);
  EXPECT_EQ(made.st_mode & 07777, 0600u) << "a new keys file is the owner's alone";

  // The operator's choice: readable by the server's group and, as root, owned by the
  // server's user (nobody).
  const bool root = ::geteuid() == 0;
  const uid_t owner = root ? 65534 : made.st_uid;
  const gid_t group = root ? 65534 : made.st_gid;
  ASSERT_EQ(::chmod(file.c_str(), 0640), 0);
  if (root) {
    ASSERT_EQ(::chown(file.c_str(), owner, group), 0);
  }
  for (const std::string& change : {std::string("add --keys " + file + " --name ta --role staff"),
                                    std::string("remove --keys " + file + " --name canvas")}) {
    const std::string out = keys(change, &status);
    ASSERT_EQ(status, 0) << out;
    struct stat after {};
    ASSERT_EQ(::stat(file.c_str(), &after), 0);
    EXPECT_EQ(after.st_mode & 07777, 0640u) << "after keys " << change;
    EXPECT_EQ(after.st_uid, owner) << "after keys " << change;
    EXPECT_EQ(after.st_gid, group) << "after keys " << change;
  }
  EXPECT_EQ(keys("list --keys " + file, &status), "ta\tstaff");
}

TEST(KeysFileUpdates, AServerThatCannotReadTheKeysFileOnSighupSaysSoAndKeepsTheKeysItHad) {
  const KeysFolder folder;
  int status = -1;
  const std::string key =
      keys("add --keys " + folder.keys().string() + " --name lms --role lms", &status);
  ASSERT_EQ(status, 0);
  ServerProcess server({"--port", "0", "--address", "127.0.0.1", "--threads", "2", "--problems",
                        HEADGRADER_SOURCE_DIR "/problems", "--keys", folder.keys().string()});
  const std::uint16_t port = server.wait_listening();
  ASSERT_NE(port, 0);
  const std::string grade = "/v1/problems/consonant-anywhere/grade";
  ASSERT_EQ(call(port, "POST", grade, key, headgrader::testing::kHandoutSolution).result_int(),
            200);

  // A file the server cannot read (a folder in its place: unreadable even to root).
  fs::remove(folder.keys());
  fs::create_directory(folder.keys());
  server.signal(SIGHUP);
  const std::string log = server.stderr_text_when([](const std::string& text) {
    return text.find("the keys read before stay in use") != std::string::npos;
  });
  EXPECT_NE(log.find(folder.keys().string() + ": "), std::string::npos) << log;
  EXPECT_NE(log.find("the keys read before stay in use"), std::string::npos) << log;
  EXPECT_EQ(call(port, "POST", grade, key, headgrader::testing::kHandoutSolution).result_int(),
            200);
}

TEST(ServerStartUp, SighupsWhileStartingNeitherEndTheServerNorGetLost) {
  // A thousand problems: start-up (loading and proving each) takes long enough to be
  // signalled many times before the listening line.
  const KeysFolder folder;
  const fs::path problems = folder.keys().parent_path() / "problems";
  fs::create_directories(problems);
  std::ifstream in(fs::path(HEADGRADER_SOURCE_DIR "/problems/consonant-anywhere.json"));
  nlohmann::json problem = nlohmann::json::parse(in);
  constexpr int kCopies = 1000;
  for (int i = 0; i < kCopies; ++i) {
    const std::string id = "copy-" + std::to_string(i);
    problem["id"] = id;
    std::ofstream(problems / (id + ".json")) << problem.dump();
  }
  ServerProcess server(
      {"--port", "0", "--address", "127.0.0.1", "--threads", "2", "--problems", problems.string()});
  // Only once main() has blocked SIGHUP (a SIGHUP before main() ends any program; under a
  // sanitizer the loader's and runtime's start-up alone can take longer than any fixed wait):
  // the process's blocked mask, as /proc shows it, holds SIGHUP.
  const auto blocks_sighup = [](pid_t pid) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(status, line);) {
      if (line.rfind("SigBlk:", 0) != 0) continue;
      const unsigned long long mask = std::stoull(line.substr(7), nullptr, 16);
      return ((mask >> (SIGHUP - 1)) & 1ULL) != 0;
    }
    return false;
  };
  for (int waited = 0; !blocks_sighup(server.pid()) && waited < 10'000; ++waited) {
    std::this_thread::sleep_for(1ms);
  }
  std::atomic<bool> listening{false};
  std::atomic<int> sent{0};
  std::thread hangups([&] {
    while (!listening) {
      server.signal(SIGHUP);
      ++sent;
      std::this_thread::sleep_for(20ms);
    }
  });
  const std::uint16_t port = server.wait_listening();
  listening = true;
  hangups.join();
  ASSERT_NE(port, 0) << "the server did not start; " << sent << " SIGHUPs sent";
  EXPECT_GE(sent, 2) << "start-up was too quick to be signalled during it";
  EXPECT_EQ(call(port, "GET", "/healthz").result_int(), 200) << sent << " SIGHUPs sent";
  // The SIGHUPs held during start-up reload once it is serving.
  const std::string loaded = "problems: loaded " + std::to_string(kCopies) + " from ";
  const std::string log = server.stderr_text_when(
      [&](const std::string& text) { return text.find(loaded) != std::string::npos; }, 30s);
  EXPECT_NE(log.find(loaded), std::string::npos) << log;
}

}  // namespace
}  // namespace headgrader::server::keys_file_e2e
