// Pools (API.md §15, headgrader/pool.h): a pool file read and refused with file, field and
// reason; a folder whose pool names a missing problem, itself or another pool refused; each
// student's member drawn as the header says, checked against OpenSSL's HMAC and SHA-256 called
// here, not the engine's stream.
#include "headgrader/pool.h"

#include <gtest/gtest.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "test_support.h"

namespace headgrader {
namespace {

namespace fs = std::filesystem;

std::vector<Defect> pool_file_defects(const std::string& text,
                                      const std::string& file = "pool.json") {
  auto loaded = load_pool_text(text, file);
  if (auto* defects = std::get_if<std::vector<Defect>>(&loaded)) return *defects;
  return {};
}

bool has_defect(const std::vector<Defect>& defects, const std::string& field,
                const std::string& words) {
  for (const Defect& d : defects) {
    if (d.field == field && d.message.find(words) != std::string::npos) return true;
  }
  return false;
}

TEST(Pool, AFileWithAPoolIsAPoolAndReadsItsMembersInOrder) {
  const std::string text =
      R"({"id": "exercise-2", "title": "Exercise 2", "pool": ["b-problem", "a-problem"]})";
  EXPECT_TRUE(is_pool_text(text));
  EXPECT_FALSE(is_pool_text(R"({"id": "x", "title": "t"})"));
  EXPECT_FALSE(is_pool_text("not json"));
  auto loaded = load_pool_text(text, "/some/folder/exercise-2.json");
  ASSERT_TRUE(std::holds_alternative<ProblemPool>(loaded));
  const ProblemPool& pool = std::get<ProblemPool>(loaded);
  EXPECT_EQ(pool.id, "exercise-2");
  EXPECT_EQ(pool.title, "Exercise 2");
  EXPECT_EQ(pool.members, (std::vector<std::string>{"b-problem", "a-problem"}));
}

TEST(Pool, EachBadFieldIsADefectNamingTheFileTheFieldAndTheReason) {
  EXPECT_TRUE(has_defect(pool_file_defects(R"({"id": "p", "title": "t", "pool": []})", "p.json"),
                         "pool", "a list of 1 to 64 problem ids"));
  EXPECT_TRUE(has_defect(pool_file_defects(R"({"id": "p", "title": "t", "pool": "a"})", "p.json"),
                         "pool", "a list of 1 to 64"));
  EXPECT_TRUE(
      has_defect(pool_file_defects(R"({"id": "p", "title": "t", "pool": ["a", "p"]})", "p.json"),
                 "pool[1]", "is the pool itself"));
  EXPECT_TRUE(
      has_defect(pool_file_defects(R"({"id": "p", "title": "t", "pool": ["a", "a"]})", "p.json"),
                 "pool[1]", "names \"a\" again"));
  EXPECT_TRUE(
      has_defect(pool_file_defects(R"({"id": "p", "title": "t", "pool": ["A b"]})", "p.json"),
                 "pool[0]", "must be the id of a problem"));
  EXPECT_TRUE(has_defect(pool_file_defects(R"({"id": "p", "pool": ["a"]})", "p.json"), "title",
                         "is missing"));
  EXPECT_TRUE(has_defect(pool_file_defects(R"({"id": "p", "title": "t", "pool": ["a"]})", "q.json"),
                         "id", "the file is q.json"));
  EXPECT_TRUE(has_defect(
      pool_file_defects(R"({"id": "p", "title": "t", "pool": ["a"], "members": 2})", "p.json"),
      "members", ""));
  const std::vector<Defect> named =
      pool_file_defects(R"({"id": "p", "title": "t", "pool": []})", "p.json");
  ASSERT_FALSE(named.empty());
  EXPECT_EQ(named.front().file, "p.json");
}

class PoolFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("headgrader-pools-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    for (const char* id : {"consonant-anywhere", "consonant-proportion"}) {
      fs::copy_file(fs::path(testing::kProblemsDir) / (std::string(id) + ".json"),
                    root_ / (std::string(id) + ".json"));
    }
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& name, const std::string& text) {
    std::ofstream(root_ / name) << text;
  }
  std::vector<Defect> load_defects() {
    auto loaded = ProblemSet::load(root_);
    if (auto* defects = std::get_if<std::vector<Defect>>(&loaded)) return *defects;
    return {};
  }
  fs::path root_;
};

TEST_F(PoolFolder, APoolOfTheFoldersProblemsLoadsBesideThem) {
  write("exercise-2.json", R"({"id": "exercise-2", "title": "Exercise 2",
                               "pool": ["consonant-anywhere", "consonant-proportion"]})");
  std::vector<std::string> sources;
  auto loaded = ProblemSet::load(root_, &sources);
  ASSERT_TRUE(std::holds_alternative<ProblemSet>(loaded));
  const ProblemSet& set = std::get<ProblemSet>(loaded);
  EXPECT_EQ(set.problems().size(), 2u);
  EXPECT_EQ(sources.size(), 2u) << "one source per problem, pools aside";
  ASSERT_NE(set.find_pool("exercise-2"), nullptr);
  EXPECT_EQ(set.find_pool("exercise-2")->members.size(), 2u);
  EXPECT_EQ(set.find_pool("consonant-anywhere"), nullptr);
}

TEST_F(PoolFolder, APoolNamingAMissingProblemOrAnotherPoolIsRefused) {
  write("exercise-2.json", R"({"id": "exercise-2", "title": "Exercise 2",
                               "pool": ["consonant-anywhere", "no-such-problem"]})");
  write("outer.json", R"({"id": "outer", "title": "Pools of pools", "pool": ["exercise-2"]})");
  const std::vector<Defect> defects = load_defects();
  EXPECT_TRUE(has_defect(defects, "pool[1]", "\"no-such-problem\", which is not a problem"));
  EXPECT_TRUE(has_defect(defects, "pool[0]", "\"exercise-2\", a pool"));
  for (const Defect& d : defects) EXPECT_NE(d.file.find(".json"), std::string::npos);
}

// The draw written out from the header with OpenSSL: h = HMAC-SHA256(secret, id "\0" student),
// the first word of SHA-256(h ‖ 0 as 8 bytes), big-endian, below 2^32 − 2^32 mod n (true for
// all but a 2^-31 share of students), modulo n.
std::size_t member_by_hand(const std::string& secret, const std::string& pool,
                           const std::string& student, std::size_t n) {
  const std::string message = pool + std::string(1, '\0') + student;
  unsigned char h[32];
  unsigned int h_size = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), h, &h_size);
  unsigned char seeded[40] = {};
  std::copy(h, h + 32, seeded);  // then 8 zero bytes: block 0
  unsigned char block[32];
  SHA256(seeded, sizeof seeded, block);
  const std::uint64_t word = (std::uint64_t{block[0]} << 24) | (std::uint64_t{block[1]} << 16) |
                             (std::uint64_t{block[2]} << 8) | block[3];
  const std::uint64_t limit = (std::uint64_t{1} << 32) - (std::uint64_t{1} << 32) % n;
  EXPECT_LT(word, limit) << "a student whose first word is rejected: pick another name";
  return static_cast<std::size_t>(word % n);
}

TEST(Pool, EachStudentsMemberIsTheHmacDrawAndTheClassIsSpread) {
  const ProblemPool pool{"exercise-2", "Exercise 2", {"a", "b", "c"}};
  const std::string secret = "a course's secret of thirty-two or more bytes";
  std::set<std::size_t> given;
  for (int i = 0; i < 30; ++i) {
    const std::string student = "student-" + std::to_string(i);
    const std::size_t member = pool_member(secret, pool, student);
    EXPECT_EQ(member, member_by_hand(secret, pool.id, student, 3)) << student;
    EXPECT_EQ(pool_member(secret, pool, student), member) << "the same every time";
    given.insert(member);
  }
  EXPECT_EQ(given.size(), 3u) << "30 students over 3 members: each given to someone";
  // Without a secret the draw is the same with an empty key: spread, but anyone can work it out.
  EXPECT_EQ(pool_member("", pool, "ada"), member_by_hand("", pool.id, "ada", 3));
}

}  // namespace
}  // namespace headgrader
