// Loading a problem: read the fields (problem_fields.cc), then prove the problem sound —
// the groups of alike tokens, the tested set within budget, `expected` defined on every
// tested string, and the reference passing its own tests.
#include "headgrader/problem.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "count_states.h"
#include "expected_proof.h"
#include "headgrader/grade.h"
#include "headgrader/json_input.h"
#include "headgrader/limits.h"
#include "headgrader/obstacles.h"
#include "headgrader/pool.h"
#include "headgrader/solve.h"
#include "message_text.h"
#include "problem_fields.h"
#include "token_kinds.h"

namespace headgrader {
namespace {

// Groups tokens by W_E column and membership in every class `expected` names (API.md §4);
// the first token of each group represents it. Tokens with one column but different
// memberships are a defect: no head can tell them apart, yet `expected` does.
struct Groups {
  std::vector<int> representatives;  // Problem::representatives()
  std::vector<int> group_of;         // Problem::group_of()
};
Groups find_groups(const ProblemSpec& p, DefectList& defects) {
  const auto& named = p.expected->named_classes();
  const auto alphabet_size = static_cast<int>(p.alphabet_chars.size());
  Groups groups;
  auto& [representatives, group_of] = groups;
  group_of.assign(static_cast<std::size_t>(alphabet_size), -1);
  std::set<std::pair<int, int>> reported_columns;
  for (int t = 0; t < alphabet_size; ++t) {
    for (std::size_t group = 0; group < representatives.size(); ++group) {
      const int earlier = representatives[group];
      if (p.head.W_E.col(t) != p.head.W_E.col(earlier)) continue;
      const auto differs = std::find_if(named.begin(), named.end(), [&](int c) {
        return p.classes.members[c][t] != p.classes.members[c][earlier];
      });
      if (differs == named.end()) {
        group_of[t] = static_cast<int>(group);
        break;
      }
      if (reported_columns.insert({earlier, *differs}).second) {
        const int in = p.classes.members[*differs][t] ? t : earlier;
        const int out = in == t ? earlier : t;
        defects.add("W_E", "\"" + encode_utf8(p.alphabet_chars[earlier]) + "\" and \"" +
                               encode_utf8(p.alphabet_chars[t]) +
                               "\" have the same embedding column, but expected names class " +
                               p.classes.names[*differs] + ", which holds \"" +
                               encode_utf8(p.alphabet_chars[in]) + "\" and not \"" +
                               encode_utf8(p.alphabet_chars[out]) +
                               "\": no head can tell them apart, so give them different columns or "
                               "the same membership in every class expected names");
      }
    }
    if (group_of[t] < 0) {
      group_of[t] = static_cast<int>(representatives.size());
      representatives.push_back(t);
    }
  }
  return groups;
}

bool in_exhaustive_set(const ProblemSpec& p, const std::vector<int>& representatives,
                       const TokenString& s) {
  return static_cast<int>(s.size()) <= p.strings.exhaustive_length &&
         std::all_of(s.begin(), s.end(), [&](int t) {
           return std::binary_search(representatives.begin(), representatives.end(), t);
         });
}

// Sizes the tested set against the budget, then lists the strings beyond the exhaustive set.
// The set is never empty: a score is passed / total (API.md §5), and a problem that tests
// nothing would pass every submission. Each source that is there adds at least one string:
// the exhaustive set (at least one group), an example (never empty), a random draw.
struct TestedSet {
  std::uint64_t exhaustive_total = 0;      // Problem::exhaustive_total()
  std::vector<TokenString> extra_strings;  // Problem::extra_strings()
};
TestedSet build_tested_set(const ProblemSpec& p, const std::vector<int>& representatives,
                           DefectList& defects) {
  const auto& s = p.strings;
  const auto groups = representatives.size();
  TestedSet tested;
  tested.exhaustive_total = exhaustive_count(groups, s.exhaustive_length);
  const auto extra = p.examples.size() + s.random;
  if (tested.exhaustive_total == 0 && extra == 0) {
    defects.add("strings",
                "nothing would be tested: exhaustive_length is 0 and there are no "
                "examples or random strings; set strings.exhaustive_length to 1.." +
                    std::to_string(s.max_length) +
                    " (max_length), or add strings.examples or strings.random");
    return tested;
  }
  if (tested.exhaustive_total > limits::kTestedStringBudget - extra) {
    int fits = 0;
    while (fits < s.exhaustive_length &&
           exhaustive_count(groups, fits + 1) <= limits::kTestedStringBudget - extra) {
      ++fits;
    }
    const bool saturated = tested.exhaustive_total == UINT64_MAX;
    // Before duplicates are dropped: an upper bound, which is what the budget must admit.
    defects.add("strings", "the tested set would hold up to " +
                               (saturated ? std::string("more than 2^64")
                                          : std::to_string(tested.exhaustive_total + extra)) +
                               " strings (every string up to length " +
                               std::to_string(s.exhaustive_length) + " over " +
                               std::to_string(groups) + " groups of alike tokens, plus " +
                               std::to_string(p.examples.size()) + " examples and " +
                               std::to_string(s.random) + " random), over the budget of " +
                               std::to_string(limits::kTestedStringBudget) +
                               "; lower strings.exhaustive_length (" + std::to_string(fits) +
                               " fits) or strings.random");
    return tested;
  }
  std::set<TokenString> seen;
  const auto add = [&](const TokenString& t) {
    if (!in_exhaustive_set(p, representatives, t) && seen.insert(t).second) {
      tested.extra_strings.push_back(t);
    }
  };
  for (const auto& example : p.examples) add(example);
  for (const auto& drawn : draw_random_strings(s.seed, s.random, s.max_length,
                                               static_cast<int>(p.alphabet_chars.size()))) {
    add(drawn);
  }
  return tested;
}

std::vector<double> row_of(const Matrix& m, Eigen::Index row) {
  std::vector<double> numbers;
  for (Eigen::Index c = 0; c < m.cols(); ++c) numbers.push_back(m(row, c));
  return numbers;
}

void check_reference_passes(const Problem& p, DefectList& defects) {
  const auto report = grade(p, p.reference, 1);
  if (report.passed) return;
  const auto& f = report.failures.front();
  const auto row = f.failing_positions.front() - 1;
  const auto [given, expected] =
      lists_told_apart(row_of(f.trace.output, row), row_of(f.expected, row));
  defects.add("reference", "fails its own tests (" + std::to_string(report.failed) + " of " +
                               std::to_string(report.total) + " strings fail); the first is " +
                               in_quotes(p.spell(f.input)) + ": at position " +
                               std::to_string(row + 1) + " it gives " + given +
                               " where expected is " + expected + " (tolerance " +
                               Json(p.tolerance).dump() + ")");
}

void add_obstacle_defects(const Problem& p, DefectList& defects) {
  for (const Obstacle& o : find_obstacles(p)) {
    defects.add("expected", o.kind + ": " + o.message);
    defects.last().kind = o.kind;
    defects.last().input = p.spell(o.input);
    defects.last().position = o.position;
  }
}

}  // namespace

std::string Defect::to_string() const {
  return file + ": " + (field.empty() ? "" : field + ": ") + message;
}

std::string ProblemSpec::spell(const TokenString& tokens) const {
  std::string out;
  for (int t : tokens) out += encode_utf8(alphabet_chars[static_cast<std::size_t>(t)]);
  return out;
}

bool is_problem_id(std::string_view id) {
  return !id.empty() && id.size() <= limits::kMaxProblemIdBytes &&
         std::all_of(id.begin(), id.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
         });
}

ProblemOrDefects load_problem_text(std::string_view text, const std::string& file_name) {
  DefectList defects(file_name);
  auto json = parse_json_checked(text, limits::kMaxJsonDepth, "the file");
  if (!json) {
    defects.add(json.error().field, json.error().message);
    return defects.take();
  }
  if (!json->is_object()) {
    defects.add("", "must hold one JSON object (a problem); it holds " +
                        std::string(json->is_array() ? "an array" : "a single value"));
    return defects.take();
  }
  const auto slash = file_name.find_last_of('/');
  const std::string base_name = file_name.substr(slash == std::string::npos ? 0 : slash + 1);

  ProblemSpec spec;
  read_problem_fields(json.value(), base_name, spec, defects);
  if (defects.size() == 1 && !json->contains("reference")) {
    // Only the reference is missing (its defect names solve --write): an obstacle proved
    // on the rest says now that no search can find one (API.md §14).
    const ProblemOrDefects unproved = load_problem_to_solve(text, file_name);
    if (const auto* p = std::get_if<Problem>(&unproved)) add_obstacle_defects(*p, defects);
  }
  if (!defects.empty()) return defects.take();
  return Problem::derive(std::move(spec), file_name);
}

// What the fields mean together, each step on what the ones before it proved.
ProblemOrDefects Problem::derive(ProblemSpec spec, const std::string& file_name,
                                 std::size_t max_count_state_numbers) {
  ProblemOrDefects derived = derive_unproved(std::move(spec), file_name, max_count_state_numbers);
  Problem* p = std::get_if<Problem>(&derived);
  if (p == nullptr) return derived;
  DefectList defects(file_name);
  check_reference_passes(*p, defects);
  // A reference that fails may fail because nothing can pass: say why, when it is proved.
  if (!defects.empty()) add_obstacle_defects(*p, defects);
  if (!defects.empty()) return defects.take();
  p->mistake_targets_ = derive_mistake_targets(*p, file_name, max_count_state_numbers, defects);
  if (!defects.empty()) return defects.take();
  return derived;
}

ProblemOrDefects Problem::derive_unproved(ProblemSpec spec, const std::string& file_name,
                                          std::size_t max_count_state_numbers) {
  DefectList defects(file_name);
  Problem p(std::move(spec));
  fill_shown_texts(p, defects);  // first: the texts as written are checked in any case
  if (!defects.empty()) return defects.take();
  Groups groups = find_groups(p, defects);
  if (!defects.empty()) return defects.take();
  p.representatives_ = std::move(groups.representatives);
  p.group_of_ = std::move(groups.group_of);
  TestedSet tested = build_tested_set(p, p.representatives_, defects);
  if (!defects.empty()) return defects.take();
  p.exhaustive_total_ = tested.exhaustive_total;
  p.extra_strings_ = std::move(tested.extra_strings);
  check_expected_everywhere(p, defects);
  if (!defects.empty()) return defects.take();
  if (std::optional<TokenKinds> kinds = TokenKinds::of(p, p.strings.max_length)) {
    p.token_kinds_ = std::make_shared<const TokenKinds>(std::move(*kinds));
  }
  p.count_states_ = build_count_states(p, max_count_state_numbers);
  for (const TokenString& example : p.examples) {
    p.examples_expected_.push_back(expected_output(p, example));  // the same for every grading
  }
  return p;
}

ProblemOrDefects load_problem_text_unnamed(std::string_view text) {
  std::string name = "problem.json";
  if (Result<Json> json = parse_json_checked(text, limits::kMaxJsonDepth, "the file");
      json && json->is_object()) {
    const auto id = json->find("id");
    if (id != json->end() && id->is_string()) name = id->get<std::string>() + ".json";
  }
  return load_problem_text(text, name);
}

ProblemOrDefects load_problem_file(const std::filesystem::path& path, std::string* text_read) {
  namespace fs = std::filesystem;
  const std::string name = path.string();
  const auto fail = [&](std::string message) {
    return std::vector<Defect>{Defect{name, "", std::move(message)}};
  };
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec) return fail("cannot be read: " + ec.message());
  if (!fs::is_regular_file(status)) return fail("is not a regular file");
  const auto size = fs::file_size(path, ec);
  if (ec) return fail("cannot be read: " + ec.message());
  if (size > limits::kMaxProblemFileBytes) {
    return fail("is " + std::to_string(size) + " bytes; a problem file may be at most " +
                std::to_string(limits::kMaxProblemFileBytes));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("cannot be opened for reading");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return fail("cannot be read");
  ProblemOrDefects loaded = load_problem_text(text, name);
  if (text_read != nullptr) *text_read = std::move(text);
  return loaded;
}

std::variant<ProblemSet, std::vector<Defect>> ProblemSet::load(const std::filesystem::path& path,
                                                               std::vector<std::string>* sources) {
  namespace fs = std::filesystem;
  std::vector<Defect> defects;
  std::vector<fs::path> files;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
      const auto file = it->path().filename().string();
      // Every *.json file here is a problem (API.md §2); the editors' JSON Schema lives in a
      // folder of its own, schema/, which is not listed. Hidden files are not, as the shell's
      // *.json does not match them: an editor's lock or backup (Emacs's .#x.json, a dangling
      // link while x.json is open) must not stop the server, and no id starts with '.'.
      if (file.ends_with(".json") && !file.starts_with('.')) files.push_back(it->path());
    }
    if (ec) {
      return std::vector<Defect>{Defect{path.string(), "", "cannot be listed: " + ec.message()}};
    }
    if (files.empty()) {
      return std::vector<Defect>{Defect{path.string(), "", "holds no problem files (*.json)"}};
    }
  } else if (fs::exists(path, ec)) {
    files.push_back(path);
  } else if (ec && ec != std::errc::no_such_file_or_directory) {
    // A symlink loop or a folder this process may not search: say so, not "does not exist".
    return std::vector<Defect>{Defect{path.string(), "", "cannot be read: " + ec.message()}};
  } else {
    return std::vector<Defect>{Defect{path.string(), "", "does not exist"}};
  }
  std::sort(files.begin(), files.end());

  std::vector<std::pair<std::shared_ptr<const Problem>, std::string>> loaded_files;
  std::vector<std::shared_ptr<const ProblemPool>> pools;
  std::vector<std::string> pool_files;
  for (const auto& file : files) {
    std::string text;
    auto loaded = load_problem_file(file, &text);
    if (auto* found = std::get_if<std::vector<Defect>>(&loaded)) {
      // A pool (API.md §15) is read as one once it failed to be a problem: the file's
      // defects are then the pool's.
      if (is_pool_text(text)) {
        auto pool = load_pool_text(text, file.string());
        if (auto* bad = std::get_if<std::vector<Defect>>(&pool)) {
          defects.insert(defects.end(), bad->begin(), bad->end());
        } else {
          pools.push_back(std::make_shared<const ProblemPool>(std::get<ProblemPool>(pool)));
          pool_files.push_back(file.string());
        }
        continue;
      }
      defects.insert(defects.end(), found->begin(), found->end());
    } else {
      loaded_files.emplace_back(
          std::make_shared<const Problem>(std::get<Problem>(std::move(loaded))), std::move(text));
    }
  }
  // Each pool's members are problems of this folder (a pool of pools is not one).
  for (std::size_t p = 0; p < pools.size(); ++p) {
    for (std::size_t i = 0; i < pools[p]->members.size(); ++i) {
      const std::string& member = pools[p]->members[i];
      const bool found = std::any_of(loaded_files.begin(), loaded_files.end(),
                                     [&](const auto& f) { return f.first->id == member; });
      const bool is_pool = std::any_of(pools.begin(), pools.end(),
                                       [&](const auto& other) { return other->id == member; });
      if (found) continue;
      defects.push_back(
          Defect{pool_files[p], "pool[" + std::to_string(i) + "]",
                 is_pool ? "is \"" + member + "\", a pool; a pool's members are problems"
                         : "names \"" + member + "\", which is not a problem of this folder"});
    }
  }
  if (!defects.empty()) return defects;
  std::sort(loaded_files.begin(), loaded_files.end(),
            [](const auto& a, const auto& b) { return a.first->id < b.first->id; });
  std::vector<std::shared_ptr<const Problem>> problems;
  for (auto& [problem, text] : loaded_files) {
    problems.push_back(std::move(problem));
    if (sources != nullptr) sources->push_back(std::move(text));
  }
  return of(std::move(problems), std::move(pools));
}

ProblemSet ProblemSet::of(std::vector<std::shared_ptr<const Problem>> problems,
                          std::vector<std::shared_ptr<const ProblemPool>> pools) {
  std::sort(problems.begin(), problems.end(),
            [](const auto& a, const auto& b) { return a->id < b->id; });
  std::sort(pools.begin(), pools.end(), [](const auto& a, const auto& b) { return a->id < b->id; });
  ProblemSet set;
  set.problems_ = std::move(problems);
  set.pools_ = std::move(pools);
  return set;
}

const ProblemPool* ProblemSet::find_pool(std::string_view id) const {
  for (const auto& pool : pools_) {
    if (pool->id == id) return pool.get();
  }
  return nullptr;
}

const Problem* ProblemSet::find(std::string_view id) const {
  const auto at = std::lower_bound(problems_.begin(), problems_.end(), id,
                                   [](const auto& p, std::string_view key) { return p->id < key; });
  return at != problems_.end() && (*at)->id == id ? at->get() : nullptr;
}

std::string ProblemSet::ids_text() const {
  std::string text;
  for (const auto& problem : problems_) {
    if (!text.empty()) text += ", ";
    text += problem->id;
  }
  return text;
}

}  // namespace headgrader
