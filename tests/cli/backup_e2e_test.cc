// `headgrader backup` (API.md §17) against the real binaries: a copy of a SQLite store taken
// while a server grades into it, restored by starting a fresh server on the copy, answers
// every submission that was answered before the backup began; and its refusals (an existing
// output, a PostgreSQL URL, a missing store), none of which leaves or changes a file.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "server_harness.h"
#include "sqlite/sqlite_connection.h"
#include "test_support.h"

namespace headgrader::server::backup_test {
namespace {

using testing::kGradePath;
using testing::kHandoutSolution;
using testing::with_student;
using namespace harness;
namespace fs = std::filesystem;

struct Command {
  int status = -1;
  std::string out;  // stdout and stderr
};

// The CLI with `args`, its exit status and what it printed.
Command run_cli(const std::string& args) {
  Command command;
  FILE* pipe = ::popen((std::string(HEADGRADER_CLI_BIN) + " " + args + " 2>&1").c_str(), "r");
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) {
    command.out.append(buffer, n);
  }
  const int raw = ::pclose(pipe);
  command.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return command;
}

class Backup : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("headgrader-backup-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    fs::remove_all(root_);
    fs::create_directories(root_ / "problems");
    fs::copy_file(fs::path(testing::kProblemsDir) / "consonant-anywhere.json",
                  root_ / "problems" / "consonant-anywhere.json");
    const std::string keys = (root_ / "keys.json").string();
    staff_ = run_cli("keys add --keys " + keys + " --name ta --role staff").out;
    lms_ = run_cli("keys add --keys " + keys + " --name canvas --role lms").out;
    while (staff_.ends_with('\n')) staff_.pop_back();
    while (lms_.ends_with('\n')) lms_.pop_back();
    ASSERT_EQ(staff_.size(), 43u);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }
  std::unique_ptr<ServerProcess> start(const fs::path& store) {
    return std::make_unique<ServerProcess>(std::vector<std::string>{
        "--port", "0", "--address", "127.0.0.1", "--problems", (root_ / "problems").string(),
        "--keys", (root_ / "keys.json").string(), "--store", "sqlite:" + store.string()});
  }
  // A grading answered 200, its submission id; empty otherwise.
  std::string grade(std::uint16_t port, const std::string& student) {
    const HttpResponse answer =
        call(port, "POST", kGradePath, lms_, with_student(kHandoutSolution, student));
    if (answer.result() != http::status::ok) return "";
    return nlohmann::json::parse(answer.body())["submission_id"].get<std::string>();
  }

  static inline int counter_ = 0;
  fs::path root_;
  std::string staff_, lms_;
};

TEST_F(Backup, ACopyTakenWhileAServerGradesRestoresEveryRecordAnsweredBeforeIt) {
  const fs::path db_path = root_ / "store.db";
  auto server = start(db_path);
  const std::uint16_t port = server->wait_listening();
  ASSERT_NE(port, 0);
  std::vector<std::string> before;
  for (int i = 0; i < 20; ++i) before.push_back(grade(port, "s" + std::to_string(i)));
  // Some megabytes of records beside them (copies of the first, under ids of their own), so
  // that the copy takes many steps of the backup while the graders below go on.
  {
    auto raw = store::SqliteConnection::open(db_path);
    ASSERT_TRUE(raw) << raw.error().message;
    ASSERT_TRUE((*raw)->exec_script(
        "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 20000) "
        "INSERT INTO submissions (id, time_ms, problem, problem_sha256, student, key_name, body, "
        "passed, score, tests_total, tests_passed, tests_failed, failing_inputs, answer) "
        "SELECT 'f' || printf('%027x', n), time_ms, problem, problem_sha256, 'filler' || n, "
        "key_name, body, passed, score, tests_total, tests_passed, tests_failed, "
        "failing_inputs, answer FROM submissions, c WHERE submissions.id = '" +
        before.front() + "'"));
  }

  std::atomic<bool> stop{false}, failed{false};
  std::mutex mutex;
  std::vector<std::string> answered;  // by the graders below, in the order they were answered
  std::vector<std::thread> graders;
  for (int g = 0; g < 2; ++g) {
    graders.emplace_back([&, g] {
      for (int i = 0; !stop; ++i) {
        const std::string id = grade(port, "g" + std::to_string(g) + "-" + std::to_string(i));
        if (id.empty()) failed = true;
        const std::lock_guard lock(mutex);
        answered.push_back(id);
      }
    });
  }
  while (true) {  // the graders are going
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const std::lock_guard lock(mutex);
    if (answered.size() >= 10) break;
  }
  std::size_t answered_before = 0;
  {
    const std::lock_guard lock(mutex);
    answered_before = answered.size();
    before.insert(before.end(), answered.begin(), answered.end());
  }
  const fs::path copy = root_ / "copy.db";
  const Command backup =
      run_cli("backup --store sqlite:" + db_path.string() + " --out " + copy.string());
  std::size_t answered_during = 0;
  {
    const std::lock_guard lock(mutex);
    answered_during = answered.size() - answered_before;
  }
  stop = true;
  for (auto& grader : graders) grader.join();
  EXPECT_FALSE(failed) << "a grading was refused while the backup ran";
  ASSERT_EQ(backup.status, 0) << backup.out;
  EXPECT_NE(backup.out.find("integrity_check ok, synced"), std::string::npos) << backup.out;
  std::cout << "gradings answered while the backup ran: " << answered_during << "\n";
  EXPECT_FALSE(fs::exists(root_ / "copy.db-wal"));
  EXPECT_EQ(fs::status(copy).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  server.reset();

  // Restored: a fresh server started on the copy.
  auto restored = start(copy);
  const std::uint16_t restored_port = restored->wait_listening();
  ASSERT_NE(restored_port, 0);
  ASSERT_EQ(before.size(), 20 + answered_before);
  for (const std::string& id : before) {
    ASSERT_FALSE(id.empty());
    const HttpResponse record = call(restored_port, "GET", "/v1/submissions/" + id, staff_);
    ASSERT_EQ(record.result(), http::status::ok) << id;
    EXPECT_EQ(nlohmann::json::parse(record.body())["id"], id);
  }
  // The copy is one instant of the store: 20 + 20 000 + what the graders had answered by
  // then, which is at least what they had when the backup began and at most all they did.
  auto raw = store::SqliteConnection::open(copy);
  ASSERT_TRUE(raw) << raw.error().message;
  auto rows = (*raw)->query("SELECT COUNT(*) FROM submissions", {});
  ASSERT_TRUE(rows) << rows.error().message;
  const std::size_t kept = std::stoul(*rows->front()[0]);
  EXPECT_GE(kept, 20020 + answered_before);
  EXPECT_LE(kept, 20020 + answered.size());
  EXPECT_NE(backup.out.find(", " + std::to_string(kept) + " records;"), std::string::npos)
      << backup.out;
}

TEST_F(Backup, AnExistingOutputIsNeverOverwritten) {
  const fs::path db_path = root_ / "store.db";
  {
    auto server = start(db_path);
    const std::uint16_t port = server->wait_listening();
    ASSERT_NE(port, 0);
    ASSERT_FALSE(grade(port, "ada").empty());
  }
  const fs::path out = root_ / "kept.db";
  std::ofstream(out) << "an operator's file";
  const Command backup =
      run_cli("backup --store sqlite:" + db_path.string() + " --out " + out.string());
  EXPECT_EQ(backup.status, 1);
  EXPECT_EQ(backup.out, "backup failed: " + out.string() +
                            " exists; a backup never overwrites a file: name a new one\n");
  std::ifstream in(out);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "an operator's file");
  // The store itself named as the output is the same refusal.
  EXPECT_EQ(
      run_cli("backup --store sqlite:" + db_path.string() + " --out " + db_path.string()).status,
      1);
}

TEST_F(Backup, AMissingStoreOrAPostgresUrlIsRefusedWithoutAFile) {
  const fs::path out = root_ / "copy.db";
  const Command missing =
      run_cli("backup --store sqlite:" + (root_ / "nope.db").string() + " --out " + out.string());
  EXPECT_EQ(missing.status, 1);
  EXPECT_EQ(missing.out, "backup failed: the SQLite store " + (root_ / "nope.db").string() +
                             " does not exist\n");
  EXPECT_FALSE(fs::exists(out));
  const Command postgres =
      run_cli("backup --store postgresql://u:p@localhost:5432/db --out " + out.string());
  EXPECT_EQ(postgres.status, 2);
  EXPECT_EQ(postgres.out.substr(0, postgres.out.find('\n')),
            "backup copies SQLite stores; for a PostgreSQL store use pg_dump --format=custom "
            "(docs/operations.md, \"Backup and restore\")");
  EXPECT_FALSE(fs::exists(out));
  const Command no_out = run_cli("backup --store sqlite:" + (root_ / "nope.db").string());
  EXPECT_EQ(no_out.status, 2);
  EXPECT_EQ(no_out.out.substr(0, no_out.out.find('\n')), "backup needs --out FILE");
  // A file that is not a database: refused, and the partial output removed.
  std::ofstream(root_ / "text.db") << "not a database, but long enough to have a header........";
  const Command not_db =
      run_cli("backup --store sqlite:" + (root_ / "text.db").string() + " --out " + out.string());
  EXPECT_EQ(not_db.status, 1) << not_db.out;
  EXPECT_NE(not_db.out.find("is it a store?"), std::string::npos) << not_db.out;
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
}  // namespace headgrader::server::backup_test
