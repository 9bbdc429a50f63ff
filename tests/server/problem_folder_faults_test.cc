// Problem folder faults for the server binary (and the loader where tests/engine/problem_*_test.cc
// do not cover them): an unreadable file, a symlink loop, a dangling symlink, a FIFO and a
// device named *.json, a non-JSON file, an oversized file, a missing folder, and a folder of
// 1000 problems. Each is a clear error and a non-zero exit, or a clean start; never a crash
// or a hang (every wait is bounded).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <variant>

#include "headgrader/limits.h"
#include "headgrader/problem.h"
#include "headgrader/report.h"
#include "server_harness.h"

namespace headgrader::server {
namespace {

namespace fs = std::filesystem;
using namespace harness;

class Folder {
 public:
  Folder() {
    std::string pattern = (fs::temp_directory_path() / "headgrader-faults-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed";
    path_ = pattern;
  }
  ~Folder() {
    std::error_code ec;
    fs::permissions(path_ / "locked.json", fs::perms::owner_all, ec);
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name, std::ios::binary) << text;
  }
  // A copy of a bundled problem, so that the folder is otherwise valid.
  void add_bundled(const std::string& id) const {
    fs::copy_file(HEADGRADER_SOURCE_DIR "/problems/" + id + ".json", path_ / (id + ".json"));
  }

 private:
  fs::path path_;
};

// Starts the server on `dir`; expects it to exit non-zero within 10 s, printing `needle` on
// stderr, and never to listen.
void expect_refuses_to_start(const std::string& dir, const std::string& needle) {
  ServerProcess server({"--port", "0", "--address", "127.0.0.1", "--problems", dir});
  const ExitStatus status = server.wait(10s);
  ASSERT_TRUE(status.exited) << "the server did not exit within 10 s";
  EXPECT_NE(status.code, 0);
  const std::string err = server.stderr_text();
  EXPECT_NE(err.find(needle), std::string::npos) << err;
  EXPECT_NE(err.find("not starting"), std::string::npos) << err;
  EXPECT_EQ(server.read_line(100ms), "");
}

TEST(ProblemFolderFaults, UnreadableFile) {
  if (geteuid() == 0) GTEST_SKIP() << "root reads files whatever their permissions";
  Folder dir;
  dir.add_bundled("consonant-anywhere");
  dir.write("locked.json", "{}");
  fs::permissions(dir.path() / "locked.json", fs::perms::none);
  expect_refuses_to_start(dir.path().string(), dir.file("locked.json") + ": cannot be read");
}

TEST(ProblemFolderFaults, SymlinkLoop) {
  Folder dir;
  dir.add_bundled("consonant-anywhere");
  fs::create_symlink("loop.json", dir.path() / "loop.json");
  expect_refuses_to_start(
      dir.path().string(),
      dir.file("loop.json") + ": cannot be read: Too many levels of symbolic links");
}

TEST(ProblemFolderFaults, DanglingSymlink) {
  Folder dir;
  dir.add_bundled("consonant-anywhere");
  fs::create_symlink("nowhere.txt", dir.path() / "gone.json");
  expect_refuses_to_start(dir.path().string(), dir.file("gone.json") + ": ");
}

TEST(ProblemFolderFaults, FifoIsNotOpenedAndWaitedOn) {
  Folder dir;
  dir.add_bundled("consonant-anywhere");
  ASSERT_EQ(mkfifo(dir.file("pipe.json").c_str(), 0644), 0);
  expect_refuses_to_start(dir.path().string(), dir.file("pipe.json") + ": is not a regular file");
}

TEST(ProblemFolderFaults, EndlessDeviceIsNotRead) {
  Folder dir;
  dir.add_bundled("consonant-anywhere");
  fs::create_symlink("/dev/zero", dir.path() / "zero.json");
  expect_refuses_to_start(dir.path().string(), dir.file("zero.json") + ": is not a regular file");
}

TEST(ProblemFolderFaults, NonJsonFile) {
  Folder dir;
  dir.add_bundled("consonant-anywhere");
  dir.write("notes.json", "These are my notes.\n");
  expect_refuses_to_start(dir.path().string(),
                          dir.file("notes.json") + ": the file is not valid JSON");
}

TEST(ProblemFolderFaults, FileOverTheSizeLimit) {
  Folder dir;
  dir.add_bundled("consonant-anywhere");
  dir.write("big.json", std::string(limits::kMaxProblemFileBytes + 1, ' '));
  expect_refuses_to_start(dir.path().string(), dir.file("big.json") + ": ");
}

TEST(ProblemFolderFaults, MissingFolder) {
  Folder dir;
  expect_refuses_to_start(dir.file("no-such-folder"), "no-such-folder");
}

TEST(ProblemFolderFaults, EmptyFolder) {
  Folder dir;
  ServerProcess server(
      {"--port", "0", "--address", "127.0.0.1", "--problems", dir.path().string()});
  const ExitStatus status = server.wait(10s);
  if (!status.exited) {
    // An empty folder may be served (no problems); it must then answer.
    const std::uint16_t port = server.wait_listening();
    ASSERT_NE(port, 0);
    EXPECT_EQ(Client(port).send(http::verb::get, "/healthz").result(), http::status::ok);
  } else {
    EXPECT_NE(status.code, 0);
    EXPECT_FALSE(server.stderr_text().empty());
  }
}

TEST(ProblemFolderFaults, ThousandProblemsAreServed) {
  Folder dir;
  Json problem = Json::parse(R"({
    "title": "Has a consonant occurred?", "statement": "s", "alphabet": "ab",
    "classes": {"vowel": "a", "consonant": "b"}, "W_E": [[1, 0], [0, 1]],
    "submit": ["W_q", "W_k", "W_V"], "expected": "any(consonant) ? [0, 1] : [1, 0]",
    "tolerance": 0.1, "strings": {"max_length": 3},
    "reference": {"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]}})");
  for (int n = 0; n < 1000; ++n) {
    const std::string id = "p" + std::to_string(1000 + n).substr(1);
    problem["id"] = id;
    dir.write(id + ".json", problem.dump());
  }
  const auto started = std::chrono::steady_clock::now();
  ServerProcess server({"--port", "0", "--address", "127.0.0.1", "--threads", "2", "--problems",
                        dir.path().string()});
  const std::uint16_t port = server.wait_listening();
  ASSERT_NE(port, 0);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 10s);
  Client client(port);
  const HttpResponse list = client.send(http::verb::get, "/v1/problems");
  ASSERT_EQ(list.result(), http::status::ok);
  EXPECT_EQ(Json::parse(list.body())["problems"].size(), 1000u);
  const HttpResponse graded =
      client.send(http::verb::post, "/v1/problems/p512/grade",
                  R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})");
  ASSERT_EQ(graded.result(), http::status::ok) << graded.body();
  EXPECT_EQ(Json::parse(graded.body())["passed"], true);
  EXPECT_EQ(client.send(http::verb::get, "/v1/problems/p1000").result(), http::status::not_found);
}

// The loader itself, for the faults the server tests above add.
TEST(ProblemFolderFaults, LoaderNamesFifoAndDeviceWithoutReadingThem) {
  Folder dir;
  ASSERT_EQ(mkfifo(dir.file("pipe.json").c_str(), 0644), 0);
  fs::create_symlink("/dev/zero", dir.path() / "zero.json");
  auto loaded = ProblemSet::load(dir.path());
  ASSERT_TRUE(std::holds_alternative<std::vector<Defect>>(loaded));
  const auto& defects = std::get<std::vector<Defect>>(loaded);
  ASSERT_EQ(defects.size(), 2u);
  EXPECT_EQ(defects[0].to_string(), dir.file("pipe.json") + ": is not a regular file");
  EXPECT_EQ(defects[1].to_string(), dir.file("zero.json") + ": is not a regular file");
}

}  // namespace
}  // namespace headgrader::server
