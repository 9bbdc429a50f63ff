// The server's memo of proved variants (server/catalog/variant_cache.h): a variant proved once
// and shared by every student who has it, each student's variant the one derive_relabeling
// draws, and both memos bounded.
#include "variant_cache.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <variant>

#include "test_support.h"

namespace headgrader::server {
namespace {

constexpr std::string_view kSecret = "a course's secret of thirty-two or more bytes";

std::shared_ptr<const Problem> with_variants() {
  auto loaded = ProblemSet::load(std::string(testing::kProblemsDir) + "/consonant-anywhere.json");
  ProblemSpec spec = *std::get<ProblemSet>(loaded).problems().front();
  spec.variants.permute_features = true;
  spec.variants.permute_outputs = true;
  spec.variants.feature_scales = {1, 2};
  spec.statement = "Output [0, 1] once a consonant has occurred, else [1, 0].";
  auto derived = Problem::derive(std::move(spec), "consonant-anywhere.json");
  return std::make_shared<const Problem>(std::get<Problem>(std::move(derived)));
}

TEST(VariantCache, AStudentsVariantIsTheOneDrawnAndIsProvedOnceForEveryoneWhoHasIt) {
  const auto problem = with_variants();
  const VariantCache cache;
  std::map<std::string, std::shared_ptr<const Problem>> by_variant;
  for (int i = 0; i < 40; ++i) {
    const std::string student = "s" + std::to_string(i);
    Result<ProblemView> view = cache.of_student(problem, kSecret, student);
    ASSERT_TRUE(view) << view.error().message;
    EXPECT_EQ(view->problem->variant, variant_id(derive_relabeling(kSecret, *problem, student)));
    EXPECT_NE(view->json.find("\"variant\":\"" + view->problem->variant + "\""), std::string::npos);
    // Everyone with this variant shares one proved problem.
    auto [at, first] = by_variant.emplace(view->problem->variant, view->problem);
    if (!first) {
      EXPECT_EQ(at->second.get(), view->problem.get());
    }
    // The student's second request finds the same one.
    EXPECT_EQ(cache.of_student(problem, kSecret, student)->problem.get(), view->problem.get());
  }
  EXPECT_GT(by_variant.size(), 1u);
}

TEST(VariantCache, PastItsBoundTheOldestIsProvedAgainAndAViewOutlivesItsEviction) {
  const auto problem = with_variants();
  const VariantCache cache(1, 1);
  Relabeling a = derive_relabeling(kSecret, *problem, "s0");
  Relabeling b = a;
  std::swap(b.outputs[0], b.outputs[1]);  // another variant
  const Result<ProblemView> first = cache.relabeled(problem, a);
  ASSERT_TRUE(first);
  EXPECT_EQ(cache.relabeled(problem, a)->problem.get(), first->problem.get());
  ASSERT_TRUE(cache.relabeled(problem, b));                                     // evicts a
  EXPECT_NE(cache.relabeled(problem, a)->problem.get(), first->problem.get());  // proved again
  // The first view still holds its problem and its JSON.
  EXPECT_EQ(first->problem->variant, variant_id(a));
  EXPECT_NE(first->json.find(variant_id(a)), std::string::npos);
}

}  // namespace
}  // namespace headgrader::server
