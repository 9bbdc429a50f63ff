// The count states a problem keeps (grader/count_states.h), checked against the prefixes they
// stand for, followed token by token: every prefix up to max_length reaches a state holding
// its count of each kind, the graph has no state that no prefix reaches, the state keeps the
// `expected` row of the prefix (as expected_output computes it on the prefix itself), and
// each extra string's path is the set of slots its prefixes are in.
#include "count_states.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

#include "headgrader/grade.h"
#include "prefix_walk.h"
#include "test_support.h"
#include "token_kinds.h"

namespace headgrader {
namespace {

using testing::bundled;

// The state and slot (state · kinds + last kind) of each prefix of `s`, from the root.
struct GraphPath {
  std::vector<int> states;
  std::vector<int> slots;
};
GraphPath follow_through_graph(const Problem& p, const CountStateGraph& graph,
                               std::span<const int> s) {
  const TokenKinds& kinds = *p.token_kinds();
  GraphPath path;
  int state = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto group = static_cast<std::size_t>(p.group_of()[static_cast<std::size_t>(s[i])]);
    const std::size_t kind = kinds.kind(group, static_cast<int>(i + 1));
    state = graph.next[static_cast<std::size_t>(state) * graph.kinds + kind];
    path.states.push_back(state);
    path.slots.push_back(
        state < 0 ? -1 : static_cast<int>(static_cast<std::size_t>(state) * graph.kinds + kind));
  }
  return path;
}

TEST(CountStates, EveryPrefixReachesTheStateOfItsCountsWhichKeepsItsExpectedRow) {
  for (const char* id : {"consonant-anywhere", "consonant-proportion", "first-position"}) {
    SCOPED_TRACE(id);
    const Problem& p = bundled(id);
    ASSERT_NE(p.count_states(), nullptr);
    ASSERT_NE(p.token_kinds(), nullptr);
    const CountStateGraph& graph = *p.count_states();
    const TokenKinds& kinds = *p.token_kinds();
    ASSERT_EQ(graph.kinds, kinds.size());
    std::set<int> reached{0};
    int checked = 0;
    walk_prefixes(p.representatives(), p.strings.max_length, [&](std::span<const int> prefix) {
      const GraphPath path = follow_through_graph(p, graph, prefix);
      const int state = path.states.back();
      EXPECT_GE(state, 0);
      if (state < 0) return false;
      reached.insert(state);
      // Its counts, counted here position by position.
      std::vector<int> counts(graph.kinds, 0);
      for (std::size_t i = 0; i < prefix.size(); ++i) {
        const auto group =
            static_cast<std::size_t>(p.group_of()[static_cast<std::size_t>(prefix[i])]);
        ++counts[kinds.kind(group, static_cast<int>(i + 1))];
      }
      const int* kept = graph.counts_of(state);
      EXPECT_EQ(std::vector<int>(kept, kept + graph.kinds), counts);
      // Its expected row, bit for bit.
      const std::size_t last = static_cast<std::size_t>(path.slots.back()) % graph.kinds;
      const Matrix want = expected_output(p, TokenString(prefix.begin(), prefix.end()));
      const double* row = graph.expected_row(state, last);
      for (Eigen::Index c = 0; c < want.cols(); ++c) {
        EXPECT_EQ(row[c], want(want.rows() - 1, c))
            << p.spell(TokenString(prefix.begin(), prefix.end()));
      }
      ++checked;
      return true;
    });
    EXPECT_EQ(reached.size(), graph.size());  // no state that no prefix reaches
    EXPECT_EQ(static_cast<std::uint64_t>(checked),
              exhaustive_count(p.representatives().size(), p.strings.max_length));
  }
}

TEST(CountStates, EachExtraStringsPathIsTheSlotsOfItsPrefixes) {
  for (const char* id : {"consonant-anywhere", "consonant-proportion", "first-position"}) {
    SCOPED_TRACE(id);
    const Problem& p = bundled(id);
    const CountStateGraph& graph = *p.count_states();
    ASSERT_EQ(graph.extra_path.size(), p.extra_strings().size());
    for (std::size_t i = 0; i < p.extra_strings().size(); ++i) {
      std::vector<int> slots = follow_through_graph(p, graph, p.extra_strings()[i]).slots;
      std::sort(slots.begin(), slots.end());
      slots.erase(std::unique(slots.begin(), slots.end()), slots.end());
      const auto k = static_cast<std::size_t>(graph.extra_path[i]);
      const std::vector<int> kept(
          graph.path_slots.begin() + static_cast<std::ptrdiff_t>(graph.path_begin[k]),
          graph.path_slots.begin() + static_cast<std::ptrdiff_t>(graph.path_begin[k + 1]));
      EXPECT_EQ(kept, slots) << p.spell(p.extra_strings()[i]);
    }
  }
}

}  // namespace
}  // namespace headgrader
