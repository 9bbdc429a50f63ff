#include "expected_proof.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "prefix_expected.h"
#include "prefix_walk.h"

namespace headgrader {
namespace {

// Whether `expected` gives a finite vector at every prefix of the exhaustive set, known from
// one prefix per key of its window (Expected::window): the value depends on the prefix's
// length and the groups at the positions it reads alone, and the exhaustive set holds every
// such combination. nullopt when there is no window, or it has more keys than the set has
// prefixes (then walking is no dearer).
std::optional<bool> expected_finite_by_window(const Problem& p) {
  const std::optional<ExpectedWindow>& window = p.expected->window();
  const int E = p.strings.exhaustive_length;
  if (!window || E <= 0) return std::nullopt;
  const std::vector<int>& reps = p.representatives();
  std::uint64_t keys = 0;
  std::vector<std::vector<std::size_t>> read(static_cast<std::size_t>(E) + 1);  // per length
  for (int i = 1; i <= E; ++i) {
    std::vector<std::size_t>& at = read[static_cast<std::size_t>(i)];  // 0-based, each once
    for (const int k : window->fixed) {
      if (k <= i) at.push_back(static_cast<std::size_t>(k - 1));
    }
    for (const int c : window->back) {
      if (c < i) at.push_back(static_cast<std::size_t>(i - 1 - c));
    }
    std::sort(at.begin(), at.end());
    at.erase(std::unique(at.begin(), at.end()), at.end());
    std::uint64_t here = 1;
    for (std::size_t n = 0; n < at.size() && here <= p.exhaustive_total(); ++n) {
      here *= reps.size();
    }
    keys += here;
    if (keys > p.exhaustive_total()) return std::nullopt;
  }
  std::vector<double> out(p.n_v);
  std::vector<int> counts(p.classes.names.size());
  for (int i = 1; i <= E; ++i) {
    const std::vector<std::size_t>& at = read[static_cast<std::size_t>(i)];
    TokenString s(static_cast<std::size_t>(i), reps.front());
    std::vector<std::size_t> digit(at.size(), 0);  // an odometer over the groups read
    while (true) {
      for (std::size_t n = 0; n < at.size(); ++n) s[at[n]] = reps[digit[n]];
      count_classes(p.classes, s, counts);
      if (p.expected->evaluate(PrefixFacts{s, counts}, out) ||
          !std::all_of(out.begin(), out.end(), [](double x) { return std::isfinite(x); })) {
        return false;
      }
      std::size_t n = 0;
      while (n < digit.size() && ++digit[n] == reps.size()) digit[n++] = 0;
      if (n == digit.size()) break;
    }
  }
  return true;
}

}  // namespace

void check_expected_everywhere(const Problem& p, DefectList& defects) {
  std::vector<double> out(p.n_v);
  std::optional<std::string> problem_found;
  // `whole` is the tested string that `prefix` begins (in the exhaustive walk, the prefix
  // itself is tested); the message names the string an instructor can find in the set.
  const auto check = [&](PrefixExpected& expected, std::span<const int> prefix,
                         std::span<const int> whole) {
    // The first fault in walk order is the one named: after it the walk only winds down.
    if (problem_found) return false;
    const auto fault = expected.extend(prefix, out.data());
    // Only spelled out when something is wrong: this runs on every tested prefix.
    const auto where = [&] {
      const TokenString s(whole.begin(), whole.end());
      return "on the tested string \"" + p.spell(s) + "\" at position " +
             std::to_string(prefix.size());
    };
    if (fault) {
      ExpectedSyntaxError at{fault->column, "divides by zero " + where()};
      problem_found = at.render(p.expected_source);
    } else if (!std::all_of(out.begin(), out.end(), [](double x) { return std::isfinite(x); })) {
      problem_found = "gives a value that is not a finite number " + where();
    }
    return !problem_found;
  };
  const auto walk_all = [&] {
    PrefixExpected walk_expected(p, p.strings.exhaustive_length);
    walk_prefixes(
        p.representatives(), p.strings.exhaustive_length,
        [&](std::span<const int> prefix) { return check(walk_expected, prefix, prefix); });
  };
  const int E = p.strings.exhaustive_length;
  const std::optional<std::vector<int>> fixed = p.expected->fixed_positions();
  if (const std::optional<bool> finite = expected_finite_by_window(p)) {
    if (!*finite) walk_all();  // for the message: the first such string in walk order
  } else if (!fixed) {
    walk_all();  // `at` reads a position that varies: nothing to share
  } else {
    // The value at a prefix depends only on its class counts, its length, its last token
    // and the tokens at the positions `at` reads (fixed), and every such combination is met
    // by a prefix whose other tokens before the last are in alphabet order: descending only
    // below those proves the whole set in O(states × groups). A fault found that way is
    // looked up again by the full walk, so that the message names the same string it
    // always does.
    std::vector<int> before(static_cast<std::size_t>(std::max(E, 0)) + 1, 0);
    for (int d = 2, last_free = 0; d <= E; ++d) {  // before[d]: the free position before d
      if (!std::binary_search(fixed->begin(), fixed->end(), d - 1)) last_free = d - 1;
      before[static_cast<std::size_t>(d)] =
          std::binary_search(fixed->begin(), fixed->end(), d) ? 0 : last_free;
    }
    PrefixExpected by_state(p, E);
    walk_prefixes(p.representatives(), E, [&](std::span<const int> prefix) {
      const auto d = prefix.size();
      const auto b = static_cast<std::size_t>(before[d]);
      const bool in_order = b == 0 || prefix[b - 1] <= prefix[d - 1];
      return check(by_state, prefix, prefix) && in_order;
    });
    if (problem_found) {
      problem_found.reset();
      walk_all();
    }
  }
  // One walker for every extra string (each from its first token, so its counts restart),
  // not one per string: with a window, each would fill a table of its own.
  std::size_t longest = 0;
  for (const auto& s : p.extra_strings()) longest = std::max(longest, s.size());
  PrefixExpected expected(p, static_cast<int>(longest));
  for (const auto& s : p.extra_strings()) {
    if (problem_found) break;
    for (std::size_t i = 1; i <= s.size() && !problem_found; ++i) {
      check(expected, std::span<const int>(s.data(), i), s);
    }
  }
  if (problem_found) defects.add("expected", *problem_found);
}

}  // namespace headgrader
