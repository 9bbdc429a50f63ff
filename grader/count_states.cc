#include "count_states.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace headgrader {

bool expected_at_state(const Problem& p, const int* counts, std::size_t last, TokenString& prefix,
                       std::vector<int>& class_counts, double* out) {
  prefix.clear();
  for (std::size_t b = 0; b < p.representatives().size(); ++b) {
    prefix.insert(prefix.end(), static_cast<std::size_t>(counts[b] - (b == last)),
                  p.representatives()[b]);
  }
  prefix.push_back(p.representatives()[last]);
  class_counts.resize(p.classes.names.size());
  count_classes(p.classes, prefix, class_counts);
  return !p.expected->evaluate(PrefixFacts{prefix, class_counts}, std::span<double>(out, p.n_v));
}

namespace {

void add_extra_paths(const Problem& p, CountStateGraph& graph) {
  const std::size_t g = graph.groups;
  std::map<std::vector<int>, int> path_of;  // sorted slots -> path
  std::vector<int> slots;
  graph.path_begin.push_back(0);
  graph.extra_path.reserve(p.extra_strings().size());
  // Every extra string is at most strings.max_length long, the graph's depth (examples are
  // checked so when read, random strings are drawn so).
  for (const TokenString& s : p.extra_strings()) {
    slots.clear();
    int state = 0;
    for (const int token : s) {
      const auto a = static_cast<std::size_t>(p.group_of()[static_cast<std::size_t>(token)]);
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
  if (p.head.W_P || !p.head.causal || p.expected->reads_positions()) return nullptr;
  const std::size_t g = p.representatives().size();
  const int D = p.strings.max_length;
  auto graph = std::make_shared<CountStateGraph>();
  graph->groups = g;
  graph->n_v = p.n_v;
  graph->depth = D;
  graph->exhaustive_length = p.strings.exhaustive_length;
  const std::size_t per_pair = std::max<std::size_t>(p.n_v, 1);

  // Breadth first from the empty prefix: states are numbered by depth.
  std::map<std::vector<int>, int> id_of;
  std::vector<int> counts(g, 0);
  id_of.emplace(counts, 0);
  graph->counts = counts;
  std::size_t level_begin = 0;
  for (int d = 0; d < D; ++d) {
    const std::size_t level_end = graph->size();
    if (level_end * g * per_pair > max_numbers) return nullptr;
    graph->next.resize(level_end * g, -1);
    for (std::size_t s = level_begin; s < level_end; ++s) {
      for (std::size_t a = 0; a < g; ++a) {
        counts.assign(graph->counts_of(static_cast<int>(s)),
                      graph->counts_of(static_cast<int>(s)) + g);
        ++counts[a];
        const auto [at, fresh] = id_of.emplace(counts, static_cast<int>(graph->size()));
        if (fresh) graph->counts.insert(graph->counts.end(), counts.begin(), counts.end());
        graph->next[s * g + a] = at->second;
      }
    }
    level_begin = level_end;
  }
  if (graph->size() * g * per_pair > max_numbers) return nullptr;
  graph->next.resize(graph->size() * g, -1);  // the deepest states lead nowhere
  graph->exhaustive_states = graph->size();
  for (std::size_t s = 0; s < graph->size(); ++s) {
    const int* n = graph->counts_of(static_cast<int>(s));
    if (std::accumulate(n, n + g, 0) > graph->exhaustive_length) {
      graph->exhaustive_states = s;  // the first state deeper than the exhaustive set
      break;
    }
  }

  graph->expected.assign(graph->size() * g * p.n_v, 0.0);
  TokenString prefix;
  std::vector<int> class_counts;
  for (std::size_t s = 1; s < graph->size(); ++s) {
    const int* n = graph->counts_of(static_cast<int>(s));
    for (std::size_t a = 0; a < g; ++a) {
      if (n[a] == 0) continue;
      if (!expected_at_state(p, n, a, prefix, class_counts,
                             &graph->expected[(s * g + a) * p.n_v])) {
        return nullptr;  // cannot happen after the load's check; grade prefix by prefix then
      }
    }
  }
  add_extra_paths(p, *graph);
  return graph;
}

}  // namespace headgrader
