// GET /v1/passback's list (LtiService::passback_list): newest first and at most
// limits::kMaxPassbackListed items, with the outbox in memory (--store none) as with the one
// in the store's passback table.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <vector>

#include "headgrader/limits.h"
#include "lti_service.h"
#include "problem_catalog.h"
#include "rsa_key.h"
#include "submission_store.h"

namespace headgrader::server {
namespace {

// A tool whose platform is never reached: a refused connection on port 1.
class PassbackList : public ::testing::Test {
 protected:
  PassbackList()
      : dir_(std::filesystem::temp_directory_path() /
             ("hg_passback_list_" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(dir_);
    std::filesystem::remove(dir_ / "tool.pem");
    EXPECT_TRUE(lti::generate_private_key(dir_ / "tool.pem").ok());
    std::ofstream(dir_ / "lti.json") << R"({"base_url": "http://127.0.0.1:1",
      "private_key": "tool.pem", "kid": "k1",
      "platforms": [{"issuer": "https://lms.example", "client_id": "c1",
        "deployment_ids": ["d1"], "auth_login_url": "http://127.0.0.1:1/auth",
        "auth_token_url": "http://127.0.0.1:1/token", "keyset_url": "http://127.0.0.1:1/jwks"}]})";
    auto loaded = ProblemSet::load(HEADGRADER_SOURCE_DIR "/problems");
    catalog_ = std::make_unique<ProblemCatalog>(std::get<ProblemSet>(std::move(loaded)));
  }
  ~PassbackList() override { std::filesystem::remove_all(dir_); }

  std::unique_ptr<LtiService> open_tool(store::SubmissionStore* store) {
    LtiOptions options{dir_ / "lti.json", true};
    auto opened = LtiService::open(options, *catalog_, store, [](const std::string&) {});
    EXPECT_TRUE(opened.ok()) << opened.error().message;
    return opened.ok() ? std::move(opened).value() : nullptr;
  }

  // The submission ids of the list, in its order.
  static std::vector<std::string> listed_submissions(LtiService& tool) {
    Result<std::string> body = tool.passback_list("");
    EXPECT_TRUE(body.ok()) << body.error().message;
    std::vector<std::string> ids;
    if (!body.ok()) return ids;
    const Json listed = Json::parse(*body);
    for (const Json& item : listed["passback"]) ids.push_back(item["submission_id"]);
    return ids;
  }

  std::filesystem::path dir_;
  std::unique_ptr<ProblemCatalog> catalog_;
};

TEST_F(PassbackList, WithoutAStoreTheNewestScoreComesFirst) {
  // Seen failing before: the outbox in memory was listed oldest first.
  std::unique_ptr<LtiService> tool = open_tool(nullptr);
  ASSERT_NE(tool, nullptr);
  for (const char* submission : {"first", "second", "third"}) {
    lti::OutboxEntry entry;
    entry.submission_id = submission;
    entry.issuer = "https://lms.example";
    entry.client_id = "c1";
    entry.score = {"http://127.0.0.1:1/lineitems/1", "sub-1", 1.0, "2026-12-06T00:00:00.000Z"};
    ASSERT_TRUE(tool->outbox().enqueue(entry).ok());
  }
  EXPECT_EQ(listed_submissions(*tool), (std::vector<std::string>{"third", "second", "first"}));
}

TEST_F(PassbackList, WithoutAStoreAtMostTheListedLimitIsListedTheNewest) {
  // Seen failing before: every entry of the outbox in memory was listed.
  std::unique_ptr<LtiService> tool = open_tool(nullptr);
  ASSERT_NE(tool, nullptr);
  const std::size_t queued = limits::kMaxPassbackListed + 1;
  for (std::size_t i = 0; i < queued; ++i) {
    lti::OutboxEntry entry;
    entry.submission_id = "s" + std::to_string(i);
    entry.issuer = "https://lms.example";
    entry.client_id = "c1";
    entry.score = {"http://127.0.0.1:1/lineitems/1", "sub-1", 1.0, "2026-12-06T00:00:00.000Z"};
    ASSERT_TRUE(tool->outbox().enqueue(entry).ok());
  }
  const std::vector<std::string> listed = listed_submissions(*tool);
  ASSERT_EQ(listed.size(), limits::kMaxPassbackListed);
  EXPECT_EQ(listed.front(), "s" + std::to_string(queued - 1));
  EXPECT_EQ(listed.back(), "s1");  // s0, the oldest, is left out
}

TEST_F(PassbackList, WithAStoreTheNewestScoreComesFirst) {
  auto opened = store::open_store("sqlite:" + (dir_ / "records.db").string());
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  std::unique_ptr<store::SubmissionStore> records = std::move(opened).value();
  std::vector<std::string> committed;
  constexpr store::TimeMs kStart = 1'796'000'000'000;  // 2026-11-30
  for (int i = 0; i < 3; ++i) {
    store::SubmissionRecord record;
    record.time = kStart + i * 1000;
    record.id = store::new_submission_id(record.time);
    record.problem = "consonant-anywhere";
    record.problem_sha256 = std::string(64, 'a');
    record.student = "https://lms.example#sub-" + std::to_string(i);
    record.body = "{}";
    record.answer = "{}";
    const store::PassbackRequest passback{"https://lms.example", "c1",
                                          "http://127.0.0.1:1/lineitems/1", R"({"scoreGiven":1})",
                                          nullptr};
    std::promise<bool> done;
    records->commit(record, passback, [&done](Result<store::CommitOutcome> outcome) {
      done.set_value(outcome.ok());
    });
    ASSERT_TRUE(done.get_future().get());
    committed.push_back(record.id);
  }
  {
    std::unique_ptr<LtiService> tool = open_tool(records.get());
    ASSERT_NE(tool, nullptr);
    EXPECT_EQ(listed_submissions(*tool),
              (std::vector<std::string>{committed[2], committed[1], committed[0]}));
  }
  records->close();
}

}  // namespace
}  // namespace headgrader::server
