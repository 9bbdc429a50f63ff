// API.md §7 without sockets: the keys file (hashes only, mode 0600, every malformed entry
// refused), the lookup by hash, who may grade and who may use staff routes, and the
// HEADGRADER_* environment variables of the flags.
#include "keys.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "auth.h"
#include "common/secrets.h"
#include "options.h"
#include "test_support.h"

namespace headgrader::server {
namespace {

// In the test process's own folder, removed when it ends (test_support.h).
std::filesystem::path temp_file(const std::string& name) {
  const std::filesystem::path path = headgrader::testing::private_temp_path(name);
  std::filesystem::remove(path);
  return path;
}

Request with_authorization(const std::string& value) {
  Request request{http::verb::post, "/v1/problems/x/grade", 11};
  if (!value.empty()) request.set(http::field::authorization, value);
  return request;
}

TEST(KeyFile, AKeyIsKeptOnlyAsItsHashInAFileOfMode0600) {
  const auto path = temp_file("keys.json");
  Result<KeyFile> file = KeyFile::read(path, /*missing_is_empty=*/true);
  ASSERT_TRUE(file.ok());
  Result<std::string> key = file.value().add("canvas-prod", Role::kLms);
  ASSERT_TRUE(key.ok());
  ASSERT_TRUE(file->write(path).ok());
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.find(key.value()), std::string::npos);
  EXPECT_NE(text.find(sha256_hex(key.value())), std::string::npos);
  struct stat info {};
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600);

  Result<KeyFile> again = KeyFile::read(path);
  ASSERT_TRUE(again.ok());
  ASSERT_EQ(again->entries().size(), 1u);
  EXPECT_EQ(again->entries()[0].name, "canvas-prod");
  EXPECT_EQ(again->entries()[0].role, Role::kLms);
}

TEST(KeyFile, NamesAreUniqueAndRemoveNeedsAKnownName) {
  KeyFile file;
  ASSERT_TRUE(file.add("ta", Role::kStaff).ok());
  const Result<std::string> twice = file.add("ta", Role::kLms);
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().message, "a key named \"ta\" exists; remove it first");
  EXPECT_FALSE(file.add("has space", Role::kLms).ok());
  EXPECT_FALSE(file.add("", Role::kLms).ok());
  EXPECT_FALSE(file.remove("nobody").ok());
  EXPECT_TRUE(file.remove("ta").ok());
  EXPECT_TRUE(file.entries().empty());
}

TEST(KeyFile, EveryMalformedFileIsRefusedWithWhere) {
  const std::string hash(64, 'a');
  const std::map<std::string, std::string> cases = {
      {"[]", R"(k.json: must be {"keys": [{"name", "role", "sha256"}, ...]})"},
      {R"({"keys": [{"name": "a", "role": "admin", "sha256": ")" + hash + R"("}]})",
       R"(k.json: keys[0]: role must be "lms" or "staff")"},
      {R"({"keys": [{"name": "a", "role": "lms", "sha256": "ABC"}]})",
       "k.json: keys[0]: sha256 must be 64 lower-case hex digits"},
      {R"({"keys": [{"name": "a", "role": "lms", "sha256": ")" + hash +
           R"("}, {"name": "a", "role": "lms", "sha256": ")" + hash + R"("}]})",
       "k.json: keys[1]: the name \"a\" is used twice"},
      {R"({"keys": [{"name": "a", "role": "lms", "sha256": ")" + hash + R"(", "key": "x"}]})",
       R"(k.json: keys[0] must be {"name": …, "role": …, "sha256": …}, each a string)"},
      {"{", "k.json: is not valid JSON"},
  };
  for (const auto& [text, message] : cases) {
    const Result<KeyFile> file = KeyFile::parse(text, "k.json");
    ASSERT_FALSE(file.ok()) << text;
    EXPECT_EQ(file.error().message, message) << text;
  }
}

TEST(KeyRing, FindsAKeyByItsHashAndNothingElse) {
  KeyFile file;
  const std::string lms = file.add("lms", Role::kLms).value();
  const std::string staff = file.add("staff", Role::kStaff).value();
  const KeyRing ring(file.entries());
  ASSERT_NE(ring.find(lms), nullptr);
  EXPECT_EQ(ring.find(lms)->name, "lms");
  EXPECT_EQ(ring.find(staff)->role, Role::kStaff);
  EXPECT_EQ(ring.find(lms.substr(1)), nullptr);
  EXPECT_EQ(ring.find(sha256_hex(lms)), nullptr);  // the hash itself is not a key
  EXPECT_EQ(ring.find(""), nullptr);
}

TEST(Authenticate, ReadsBearerKeysAndRefusesEverythingElseAlike) {
  KeyFile file;
  const std::string key = file.add("canvas", Role::kLms).value();
  const KeyRing ring(file.entries());
  const Result<Principal> nobody = authenticate(with_authorization(""), &ring, nullptr);
  ASSERT_TRUE(nobody.ok());
  EXPECT_EQ(nobody->kind, Principal::Kind::kNobody);
  const Result<Principal> lms = authenticate(with_authorization("Bearer " + key), &ring, nullptr);
  ASSERT_TRUE(lms.ok());
  EXPECT_EQ(lms->kind, Principal::Kind::kKey);
  EXPECT_EQ(lms->key_name, "canvas");
  EXPECT_TRUE(authenticate(with_authorization("bearer " + key), &ring, nullptr).ok());
  for (const std::string& bad : std::vector<std::string>{"Bearer wrong", "Basic " + key, "Bearer",
                                                         key, "Bearer " + std::string(600, 'a')}) {
    const Result<Principal> refused = authenticate(with_authorization(bad), &ring, nullptr);
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_EQ(refused.error().code, ErrorCode::kUnauthorized);
    EXPECT_EQ(refused.error().message,
              "this needs a valid key or student token, sent as Authorization: Bearer KEY");
  }
}

class OneToken : public StudentTokens {
 public:
  std::optional<StudentGrant> find(std::string_view token) const override {
    if (token != "student-token") return std::nullopt;
    return StudentGrant{"https://lms.example#42", "first-position", "launch-1"};
  }
};

TEST(Authorize, RolesGrantWhatApiSection7Says) {
  Principal nobody, lms, staff;
  lms.kind = staff.kind = Principal::Kind::kKey;
  staff.role = Role::kStaff;
  EXPECT_FALSE(may_grade(nobody, "p", GradingAccess::kOpen));
  EXPECT_EQ(may_grade(nobody, "p", GradingAccess::kKey)->code, ErrorCode::kUnauthorized);
  EXPECT_FALSE(may_grade(lms, "p", GradingAccess::kKey));
  EXPECT_FALSE(may_grade(staff, "p", GradingAccess::kKey));
  EXPECT_EQ(may_use_staff_route(staff, false)->code, ErrorCode::kStaffDisabled);
  EXPECT_EQ(may_use_staff_route(nobody, true)->code, ErrorCode::kUnauthorized);
  EXPECT_EQ(may_use_staff_route(lms, true)->code, ErrorCode::kForbidden);
  EXPECT_FALSE(may_use_staff_route(staff, true));

  const OneToken tokens;
  const Result<Principal> student =
      authenticate(with_authorization("Bearer student-token"), nullptr, &tokens);
  ASSERT_TRUE(student.ok());
  EXPECT_FALSE(may_grade(*student, "first-position", GradingAccess::kKey));
  EXPECT_EQ(may_grade(*student, "consonant-anywhere", GradingAccess::kKey)->code,
            ErrorCode::kForbidden);
  EXPECT_EQ(may_use_staff_route(*student, true)->code, ErrorCode::kForbidden);
}

TEST(Options, Part2FlagsComeFromTheEnvironmentAndTheCommandLineWins) {
  const std::map<std::string, std::string> env = {{"HEADGRADER_KEYS", "/env/keys.json"},
                                                  {"HEADGRADER_GRADING", "open"}};
  const EnvLookup lookup = [&](const std::string& name) -> std::optional<std::string> {
    const auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
  const Result<ServerOptions> from_env = parse_options({}, lookup);
  ASSERT_TRUE(from_env.ok());
  EXPECT_EQ(from_env->keys, "/env/keys.json");
  EXPECT_EQ(from_env->grading_needs_key, false);
  const std::vector<std::string_view> args = {"--keys", "/flag/keys.json", "--grading=key"};
  const Result<ServerOptions> flags = parse_options(args, lookup);
  ASSERT_TRUE(flags.ok());
  EXPECT_EQ(flags->keys, "/flag/keys.json");
  EXPECT_EQ(flags->grading_needs_key, true);
}

TEST(Options, GradingByKeyNeedsAKeysFile) {
  const std::vector<std::string_view> args = {"--grading", "key"};
  const Result<ServerOptions> parsed = parse_options(args);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().message,
            "--grading key needs --keys FILE: without keys nobody could grade");
  const std::vector<std::string_view> wrong = {"--grading", "closed"};
  EXPECT_FALSE(parse_options(wrong).ok());
}

}  // namespace
}  // namespace headgrader::server
