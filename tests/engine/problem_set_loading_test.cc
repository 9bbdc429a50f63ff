// Folders of problem files (ProblemSet::load, API.md §2): every defect of every file in
// name order, what is and is not a problem file (hidden files, subfolders, symlink loops),
// a thousand small problems, and the bundled problems.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <variant>
#include <vector>

#include "headgrader/problem.h"
#include "problem_loading_support.h"

namespace headgrader {
namespace {

using testing::tiny_problem;
using Lines = std::vector<std::string>;

namespace fs = std::filesystem;

// --- Folders ---------------------------------------------------------------------------------

// A fresh folder under /tmp, removed with everything in it at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "headgrader-test-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed";
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name, std::ios::binary) << text;
  }

 private:
  fs::path path_;
};

std::vector<std::string> set_defects(const fs::path& path) {
  auto loaded = ProblemSet::load(path);
  if (std::holds_alternative<ProblemSet>(loaded)) return {"loaded"};
  std::vector<std::string> out;
  for (const auto& d : std::get<std::vector<Defect>>(loaded)) out.push_back(d.to_string());
  return out;
}

Json tiny_problem_with_id(const std::string& id) {
  auto p = tiny_problem();
  p["id"] = id;
  return p;
}

TEST(ProblemLoading, FolderReportsEveryDefectOfEveryFileInNameOrder) {
  TempDir dir;
  auto bad = tiny_problem_with_id("b-bad");
  bad["tolerance"] = 0;
  bad.erase("title");
  dir.write("b-bad.json", bad.dump());
  dir.write("c-good.json", tiny_problem_with_id("c-good").dump());
  dir.write("a-bad.json", "{");
  const std::string d = dir.path().string();
  EXPECT_EQ(set_defects(dir.path()),
            (Lines{d + "/a-bad.json: the file is not valid JSON at line 1, column 2: it ends "
                       "before every bracket, brace and quote is closed",
                   d + "/b-bad.json: title: is missing",
                   d + "/b-bad.json: tolerance: must be a number greater than 0; it is 0"}));
}

TEST(ProblemLoading, EmptyFolder) {
  TempDir dir;
  dir.write("notes.txt", "not a problem");
  EXPECT_EQ(set_defects(dir.path()),
            Lines{dir.path().string() + ": holds no problem files (*.json)"});
}

TEST(ProblemLoading, SingleFileIsASetOfOne) {
  TempDir dir;
  dir.write("tiny.json", tiny_problem().dump());
  auto loaded = ProblemSet::load(dir.path() / "tiny.json");
  ASSERT_TRUE(std::holds_alternative<ProblemSet>(loaded)) << set_defects(dir.path())[0];
  ASSERT_EQ(std::get<ProblemSet>(loaded).problems().size(), 1u);
  EXPECT_EQ(std::get<ProblemSet>(loaded).problems()[0]->id, "tiny");
}

TEST(ProblemLoading, NonexistentPath) {
  TempDir dir;
  EXPECT_EQ(set_defects(dir.path() / "nowhere"),
            Lines{(dir.path() / "nowhere").string() + ": does not exist"});
}

TEST(ProblemLoading, SymlinkLoopIsADefectNotACrash) {
  TempDir dir;
  fs::create_symlink("loop.json", dir.path() / "loop.json");
  const std::string loop = (dir.path() / "loop.json").string();
  EXPECT_EQ(set_defects(dir.path()),
            Lines{loop + ": cannot be read: Too many levels of symbolic links"});
  EXPECT_EQ(set_defects(dir.path() / "loop.json"),
            Lines{loop + ": cannot be read: Too many levels of symbolic links"});
}

TEST(ProblemLoading, FolderInsteadOfAFile) {
  TempDir dir;
  fs::create_directory(dir.path() / "odd.json");
  EXPECT_EQ(set_defects(dir.path()),
            Lines{(dir.path() / "odd.json").string() + ": is not a regular file"});
}

TEST(ProblemLoading, NonJsonFile) {
  TempDir dir;
  dir.write("notes.json", "These are my notes.\n");
  EXPECT_EQ(set_defects(dir.path()),
            Lines{dir.path().string() +
                  "/notes.json: the file is not valid JSON at line 1, column 1: this is not a "
                  "JSON value (a number, a \"string\", true, false, null, [ or {)"});
}

// API.md §2: problems/*.json, one problem a file. No name is set aside: a file named
// schema.json is a problem like any other (and a broken one stops the set), while the
// editors' JSON Schema sits in a subfolder, which the loader does not read.
TEST(ProblemLoading, EveryJsonFileInTheFolderIsAProblemWhateverItsName) {
  TempDir dir;
  dir.write("schema.json", tiny_problem_with_id("schema").dump());
  dir.write("tiny.json", tiny_problem().dump());
  fs::create_directory(dir.path() / "schema");
  dir.write("schema/problem.schema.json",
            R"({"$schema": "https://json-schema.org/draft/2020-12/schema"})");
  auto loaded = ProblemSet::load(dir.path());
  ASSERT_TRUE(std::holds_alternative<ProblemSet>(loaded)) << set_defects(dir.path())[0];
  const ProblemSet& set = std::get<ProblemSet>(loaded);
  EXPECT_EQ(set.problems().size(), 2u);
  EXPECT_NE(set.find("schema"), nullptr);
  EXPECT_NE(set.find("tiny"), nullptr);

  dir.write("schema.json", "{garbage");
  const auto defects = set_defects(dir.path());
  ASSERT_EQ(defects.size(), 1u);
  EXPECT_EQ(defects[0].rfind(dir.path().string() + "/schema.json: the file is not valid JSON", 0),
            0u)
      << defects[0];
}

TEST(ProblemLoading, HiddenFilesAreNotProblemsAsTheShellsGlobSkipsThem) {
  TempDir dir;
  dir.write("tiny.json", tiny_problem().dump());
  fs::create_symlink("root@host.1234:1700000000", dir.path() / ".#tiny.json");  // Emacs's lock
  dir.write(".tiny.json.swp.json", "{garbage");
  const auto loaded = ProblemSet::load(dir.path());
  ASSERT_TRUE(std::holds_alternative<ProblemSet>(loaded)) << set_defects(dir.path())[0];
  EXPECT_EQ(std::get<ProblemSet>(loaded).problems().size(), 1u);
}

TEST(ProblemLoading, ThousandSmallProblemsLoad) {
  TempDir dir;
  for (int n = 0; n < 1000; ++n) {
    const std::string id = "p" + std::to_string(1000 + n).substr(1);
    auto p = tiny_problem_with_id(id);
    p["strings"]["max_length"] = 2;
    dir.write(id + ".json", p.dump());
  }
  auto loaded = ProblemSet::load(dir.path());
  ASSERT_TRUE(std::holds_alternative<ProblemSet>(loaded)) << set_defects(dir.path())[0];
  const auto& set = std::get<ProblemSet>(loaded);
  ASSERT_EQ(set.problems().size(), 1000u);
  EXPECT_EQ(set.problems().front()->id, "p000");
  EXPECT_EQ(set.problems().back()->id, "p999");
  EXPECT_NE(set.find("p512"), nullptr);
  EXPECT_EQ(set.find("p1000"), nullptr);
}

// --- The bundled problems --------------------------------------------------------------------

TEST(ProblemLoading, BundledProblemsLoad) {
  auto loaded = ProblemSet::load(HEADGRADER_SOURCE_DIR "/problems");
  ASSERT_TRUE(std::holds_alternative<ProblemSet>(loaded))
      << set_defects(HEADGRADER_SOURCE_DIR "/problems")[0];
  const auto& set = std::get<ProblemSet>(loaded);
  ASSERT_EQ(set.problems().size(), 3u);
  EXPECT_EQ(set.problems()[0]->id, "consonant-anywhere");
  EXPECT_EQ(set.problems()[1]->id, "consonant-proportion");
  EXPECT_EQ(set.problems()[2]->id, "first-position");
}

TEST(ProblemLoading, ConsonantAnywhereTestsEveryStringUpToLength8OverTwoGroups) {
  auto loaded = ProblemSet::load(HEADGRADER_SOURCE_DIR "/problems");
  ASSERT_TRUE(std::holds_alternative<ProblemSet>(loaded));
  const Problem* p = std::get<ProblemSet>(loaded).find("consonant-anywhere");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->exhaustive_total(), 510u);                     // 2 + 4 + … + 256
  EXPECT_EQ(p->representatives(), (std::vector<int>{0, 1}));  // a and b
  EXPECT_EQ(p->spell({p->representatives()[0], p->representatives()[1]}), "ab");
}

}  // namespace
}  // namespace headgrader
