// ProblemCatalog's one place for a problem's file (server/catalog/problem_catalog.h):
// FOLDER/ID.json for a problem id and nothing else, so PUT and DELETE cannot reach outside the
// folder even if a caller passes an id the router would have refused; a catalog of one file
// refuses PUT and DELETE, saying why; a pool holds its members.
#include "problem_catalog.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/error_code.h"

namespace headgrader::server {
namespace {

namespace fs = std::filesystem;

TEST(ProblemCatalogFiles, OnlyAProblemIdNamesAFileAndItIsInsideTheFolder) {
  const fs::path root =
      fs::temp_directory_path() / ("headgrader-catalog-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "problems");
  const fs::path bundled = fs::path(HEADGRADER_SOURCE_DIR "/problems") / "consonant-anywhere.json";
  fs::copy_file(bundled, root / "problems" / "consonant-anywhere.json");
  auto opened = ProblemCatalog::open(root / "problems");
  ASSERT_TRUE(std::holds_alternative<std::unique_ptr<ProblemCatalog>>(opened));
  ProblemCatalog& catalog = *std::get<std::unique_ptr<ProblemCatalog>>(opened);

  const Result<fs::path> file = catalog.file_of("new-one");
  ASSERT_TRUE(file);
  EXPECT_EQ(*file, root / "problems" / "new-one.json");
  for (const char* id : {"../keys", "/tmp/x/abs", "..", "", "Upper"}) {
    const Result<fs::path> refused = catalog.file_of(id);
    ASSERT_FALSE(refused) << id;
    EXPECT_EQ(refused.error().code, ErrorCode::kNotFound) << id;
  }

  // PUT and DELETE go through it: a valid problem whose id is the traversal's base name.
  std::ifstream in(bundled, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text.replace(text.find("consonant-anywhere"), std::string("consonant-anywhere").size(), "keys");
  EXPECT_FALSE(catalog.put("../keys", text));
  EXPECT_FALSE(catalog.remove("../problems/consonant-anywhere"));
  EXPECT_FALSE(fs::exists(root / "keys.json"));
  EXPECT_TRUE(fs::exists(root / "problems" / "consonant-anywhere.json"));
  fs::remove_all(root);
}

std::string text_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(ProblemCatalogFiles, OneFileServedRefusesPutAndDeleteSayingToServeAFolder) {
  const fs::path file = fs::path(HEADGRADER_SOURCE_DIR "/problems") / "consonant-anywhere.json";
  auto opened = ProblemCatalog::open(file);
  ASSERT_TRUE(std::holds_alternative<std::unique_ptr<ProblemCatalog>>(opened));
  ProblemCatalog& catalog = *std::get<std::unique_ptr<ProblemCatalog>>(opened);
  const std::string pool = R"({"id": "exercise-2", "title": "t", "pool": ["consonant-anywhere"]})";
  for (const auto& refused :
       {catalog.put("consonant-anywhere", text_of(file)), catalog.put("exercise-2", pool)}) {
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, ErrorCode::kProblemsReadOnly);
    EXPECT_NE(refused.error().message.find("start it with --problems FOLDER"), std::string::npos);
  }
  const Result<bool> removed = catalog.remove("consonant-anywhere");
  ASSERT_FALSE(removed);
  EXPECT_NE(removed.error().message.find("cannot remove problems"), std::string::npos);
}

TEST(ProblemCatalogFiles, APoolHoldsItsMembersUntilItLetsGoOfThem) {
  const fs::path root =
      fs::temp_directory_path() / ("headgrader-catalog-pool-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root);
  for (const char* id : {"consonant-anywhere", "consonant-proportion"}) {
    fs::copy_file(fs::path(HEADGRADER_SOURCE_DIR "/problems") / (std::string(id) + ".json"),
                  root / (std::string(id) + ".json"));
  }
  auto opened = ProblemCatalog::open(root);
  ASSERT_TRUE(std::holds_alternative<std::unique_ptr<ProblemCatalog>>(opened));
  ProblemCatalog& catalog = *std::get<std::unique_ptr<ProblemCatalog>>(opened);
  const Result<PutOutcome> put = catalog.put(
      "exercise-2",
      R"({"id": "exercise-2", "title": "t", "pool": ["consonant-anywhere", "consonant-proportion"]})");
  ASSERT_TRUE(put) << put.error().message;
  EXPECT_TRUE(put->defects.empty());
  EXPECT_TRUE(put->created);
  ASSERT_NE(catalog.current()->find_pool("exercise-2"), nullptr);
  const Result<bool> held = catalog.remove("consonant-proportion");
  ASSERT_FALSE(held);
  EXPECT_EQ(held.error().code, ErrorCode::kProblemInPool);
  EXPECT_TRUE(fs::exists(root / "consonant-proportion.json"));
  // A PUT of another problem keeps the pool; the pool without the member lets it go.
  ASSERT_TRUE(catalog.put("consonant-anywhere", text_of(root / "consonant-anywhere.json")));
  ASSERT_NE(catalog.current()->find_pool("exercise-2"), nullptr);
  ASSERT_TRUE(catalog.put("exercise-2",
                          R"({"id": "exercise-2", "title": "t", "pool": ["consonant-anywhere"]})"));
  const Result<bool> let_go = catalog.remove("consonant-proportion");
  ASSERT_TRUE(let_go) << let_go.error().message;
  EXPECT_TRUE(*let_go);
  EXPECT_TRUE(catalog.reload().empty()) << "the folder as written loads again";
  const Result<bool> pool_gone = catalog.remove("exercise-2");
  ASSERT_TRUE(pool_gone) << pool_gone.error().message;
  EXPECT_TRUE(*pool_gone);
  EXPECT_EQ(catalog.current()->find_pool("exercise-2"), nullptr);
  fs::remove_all(root);
}

}  // namespace
}  // namespace headgrader::server
