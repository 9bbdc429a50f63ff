// ProblemCatalog's one place for a problem's file (server/problem_catalog.h): FOLDER/ID.json
// for a problem id and nothing else, so PUT and DELETE cannot reach outside the folder even
// if a caller passes an id the router would have refused.
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

}  // namespace
}  // namespace headgrader::server
