#include "count_states.h"

#include <algorithm>
#include <map>
#include <optional>

namespace headgrader {

bool expected_at_state(const Problem& p, const TokenKinds& kinds, const int* counts,
                       std::size_t last, TokenString& prefix, std::vector<int>& class_counts,
                       std::vector<int>& scratch, double* out) {
  kinds.spell_state(counts, last, prefix, scratch);
  class_counts.resize(p.classes.names.size());
  count_classes(p.classes, prefix, class_counts);
  return !p.expected->evaluate(PrefixFacts{prefix, class_counts}, std::span<double>(out, p.n_v));
}

namespace {

void add_extra_paths(const Problem& p, const TokenKinds& kinds, CountStateGraph& graph) {
  const std::size_t g = graph.kinds;
  std::map<std::vector<int>, int> path_of;  // sorted slots -> path
  std::vector<int> slots;
  graph.path_begin.push_back(0);
  graph.extra_path.reserve(p.extra_strings().size());
  // Every extra string is at most strings.max_length long, the graph's depth (examples are
  // checked so when read, random strings are drawn so).
  for (const TokenString& s : p.extra_strings()) {
    slots.clear();
    int state = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
      const auto group = static_cast<std::size_t>(p.group_of()[static_cast<std::size_t>(s[i])]);
      const std::size_t a = kinds.kind(group, static_cast<int>(i + 1));
      state = graph.next[static_cast<std::size_t>(state) * g + a];
      slots.push_back(static_cast<int>(static_cast<std::size_t>(state) * g + a));
    }
    std::sort(slots.begin(), slots.end());
    slots.erase(std::unique(slots.begin(), slots.end()), slots.end());
    for (const int slot : slots) {
      if (static_cast<std::size_t>(slot) / g >= graph.exhaustive_states) {
        graph.extra_only_slots.push_back(slot);
      }
    }
    const auto [at, fresh] = path_of.emplace(slots, static_cast<int>(path_of.size()));
    if (fresh) {
      graph.path_slots.insert(graph.path_slots.end(), slots.begin(), slots.end());
      graph.path_begin.push_back(graph.path_slots.size());
    }
    graph.extra_path.push_back(at->second);
  }
  auto& only = graph.extra_only_slots;
  std::sort(only.begin(), only.end());
  only.erase(std::unique(only.begin(), only.end()), only.end());
}

}  // namespace

std::shared_ptr<const CountStateGraph> build_count_states(const Problem& p,
                                                          std::size_t max_numbers) {
  const int D = p.strings.max_length;
  const TokenKinds* kinds = p.token_kinds();
  if (!kinds || !kinds->expected_by_kinds()) return nullptr;
  const std::size_t g = kinds->size();
  const std::size_t groups = kinds->groups();
  auto graph = std::make_shared<CountStateGraph>();
  graph->kinds = g;
  graph->n_v = p.n_v;
  graph->depth = D;
  graph->exhaustive_length = p.strings.exhaustive_length;
  const std::size_t per_pair = std::max<std::size_t>(p.n_v, 1);

  // Breadth first from the empty prefix: states are numbered by depth. A state of depth d
  // leads on by the kinds of position d + 1 only.
  std::map<std::vector<int>, int> id_of;
  std::vector<int> counts(g, 0);
  id_of.emplace(counts, 0);
  graph->counts = counts;
  std::vector<std::size_t> level{0};  // level[d]: the first state of depth d
  for (int d = 0; d < D; ++d) {
    const std::size_t level_end = graph->size();
    level.push_back(level_end);
    if (level_end * g * per_pair > max_numbers) return nullptr;
    graph->next.resize(level_end * g, -1);
    const std::size_t first = kinds->first_at(d + 1);
    for (std::size_t s = level[static_cast<std::size_t>(d)]; s < level_end; ++s) {
      for (std::size_t a = first; a < first + groups; ++a) {
        counts.assign(graph->counts_of(static_cast<int>(s)),
                      graph->counts_of(static_cast<int>(s)) + g);
        ++counts[a];
        const auto [at, fresh] = id_of.emplace(counts, static_cast<int>(graph->size()));
        if (fresh) graph->counts.insert(graph->counts.end(), counts.begin(), counts.end());
        graph->next[s * g + a] = at->second;
      }
    }
  }
  level.push_back(graph->size());
  if (graph->size() * g * per_pair > max_numbers) return nullptr;
  graph->next.resize(graph->size() * g, -1);  // the deepest states lead nowhere
  graph->exhaustive_states =
      level[static_cast<std::size_t>(std::min(graph->exhaustive_length, D)) + 1];

  graph->expected.assign(graph->size() * g * p.n_v, 0.0);
  TokenString prefix;
  std::vector<int> class_counts, scratch;
  for (int d = 1; d <= D; ++d) {
    const std::size_t first = kinds->first_at(d);
    for (std::size_t s = level[static_cast<std::size_t>(d)];
         s < level[static_cast<std::size_t>(d) + 1]; ++s) {
      const int* n = graph->counts_of(static_cast<int>(s));
      for (std::size_t a = first; a < first + groups; ++a) {
        if (n[a] == 0) continue;
        if (!expected_at_state(p, *kinds, n, a, prefix, class_counts, scratch,
                               &graph->expected[(s * g + a) * p.n_v])) {
          return nullptr;  // cannot happen after the load's check; grade prefix by prefix then
        }
      }
    }
  }
  add_extra_paths(p, *kinds, *graph);
  return graph;
}

}  // namespace headgrader
