// Problem files (API.md §2): loading, validation and the derived facts grading needs.
// A file is read into a ProblemSpec (each field typed and checked on its own), then derived
// into a Problem in one step (Problem::derive): what the fields mean together, proven, and
// what grading needs, built. A problem is loaded whole or not at all: load_problem returns
// every defect of a file at once, each naming the file, the field and what is wrong.
// A loaded Problem promises: its `expected` parses and never divides by zero on a tested
// string; its reference passes its own tests; no two tokens share an embedding while a class
// `expected` names holds one of them and not the other; its tested set is within
// limits::kTestedStringBudget; and its derived part (groups, tested set, example rows, count
// states) is that of its spec, as nothing but derive sets it.
// Thread-safety: a loaded Problem and ProblemSet are immutable and safe to share.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "common/limits.h"
#include "headgrader/attention.h"
#include "headgrader/expected.h"
#include "headgrader/strings.h"

namespace headgrader {

struct CountStateGraph;  // grader/count_states.h
class TokenKinds;        // grader/token_kinds.h
class DefectList;        // grader/problem_fields.h

// One thing wrong with a problem file. to_string(): "FILE: FIELD: MESSAGE" (no field part
// when the defect is about the whole file).
struct Defect {
  std::string file;
  std::string field;  // dotted path, e.g. "strings.max_length" or "W_E"
  std::string message;
  // An obstacle's facts (headgrader/obstacles.h): its kind, input as written and 1-based
  // position; kind is empty for every other defect.
  std::string kind = {}, input = {};
  int position = 0;
  std::string to_string() const;
};

struct StringSpec {
  int max_length = 0;
  int exhaustive_length = 0;
  std::uint64_t random = 0;
  std::uint64_t seed = 0;
  std::vector<std::string> examples;  // as written in the file
};

// The three matrices a head needs; which are submitted and which are given.
inline constexpr const char* kWeightNames[3] = {"W_q", "W_k", "W_V"};
// The index of a canonical name in kWeightNames; 3 (one past the end) for any other.
inline std::size_t weight_index(std::string_view name) {
  std::size_t k = 0;
  while (k < 3 && name != kWeightNames[k]) ++k;
  return k;
}

// Which score an LMS gradebook keeps for a student launched through LTI (API.md §11): the best
// of their gradings of the problem (the default), or the latest.
enum class PassbackScore { kBest, kLatest };

// A wrong target a student is likely to compute, named by the problem's author (API.md §14):
// a failing head that passes every tested string against its `expected` is diagnosed with it.
struct AuthorMistake {
  std::string name;             // [a-z_]+, unique, not one of the library's (diagnosis.h)
  std::string expected_source;  // an expression of API.md §3, as long as `expected`'s vector
  std::string message, hint;
  std::shared_ptr<const Expected> expected;  // expected_source parsed
};

// `variants` of a problem file (API.md §15): how each student's copy is relabeled
// (headgrader/variant.h). All off: every student gets the problem as written.
struct VariantOptions {
  bool permute_features = false;       // the rows of W_E and W_P in another order
  bool permute_outputs = false;        // the components of `expected` in another order
  std::vector<double> feature_scales;  // each row times one of these (each > 0); empty: 1
  bool any() const { return permute_features || permute_outputs || !feature_scales.empty(); }
};

// A problem file as read: each field typed and checked on its own, defaults filled in.
// Nothing here is proven about the fields together (that is derive's work), so a copy may be
// edited, e.g. by a test that wants another tested set, and derived again; derive relies on
// each field's own checks still holding (no example longer than strings.max_length, the
// examples' tokens those of strings.examples).
struct ProblemSpec {
  std::string id, title, statement;
  std::string alphabet;                  // UTF-8 as written
  std::vector<char32_t> alphabet_chars;  // token i = alphabet_chars[i]
  ClassTable classes;
  std::vector<std::string> class_texts;  // classes[c] as written
  HeadSpec head;                         // W_E, W_P, scale, causal
  std::vector<std::string> submit;       // canonical names (kWeightNames), in file order
  std::map<std::string, Matrix> given;   // canonical name -> matrix
  std::string expected_source;
  double tolerance = 0;
  StringSpec strings;
  PassbackScore passback = PassbackScore::kBest;  // "passback": "best" | "latest"
  std::vector<AuthorMistake> mistakes;            // "mistakes", in the file's order
  VariantOptions variants;                        // "variants"
  std::vector<std::string> feature_names;         // one per row of W_E, or none
  // The variant this spec is (headgrader/variant.h: relabel_problem sets it); empty: the
  // problem as written.
  std::string variant;

  // Read with the fields, each from one of them: what the later checks are written in.
  std::shared_ptr<const Expected> expected;  // expected_source parsed
  HeadWeights reference;                     // reference ∪ given: a head that passes
  std::size_t n_e = 0;                       // rows of W_E
  std::size_t n_v = 0;                       // expected->output_size()
  std::vector<TokenString> examples;         // strings.examples as tokens

  // `tokens` as the alphabet's characters (UTF-8).
  std::string spell(const TokenString& tokens) const;
};

class Problem;
struct ProblemPool;  // headgrader/pool.h
using ProblemOrDefects = std::variant<Problem, std::vector<Defect>>;

// A loaded problem: its spec (the fields as read, public) and what grading needs derived
// from it, built in one step by derive and read through the accessors below. The derived
// part is never set on its own, so it always is the spec's: the count states reach
// strings.max_length and list exactly the extra strings' paths, the groups are W_E's, the
// expected rows are `expected`'s. A Problem is not edited: another tested set is another
// spec, derived again. Every Problem derive returns is sound (see the top of this file).
// The spec's fields stay public data, read at every use site; a copy that changes one keeps
// the derived part of the original (tests change only `tolerance` so).
class Problem : public ProblemSpec {
 public:
  // Proves `spec` sound and derives the rest from it; every defect found otherwise, each
  // naming `file_name`. `max_count_state_numbers` bounds the count states kept (the
  // problem's own graph is not built beyond it; grading then finds states as it meets them).
  static ProblemOrDefects derive(
      ProblemSpec spec, const std::string& file_name,
      std::size_t max_count_state_numbers = limits::kMaxCountStateNumbers);
  // derive without proving the reference, which is whatever the spec holds (e.g. zeros):
  // for a search that is to find one (headgrader/solve.h), and for a mistake's target, which
  // the reference must fail. Not for grading students.
  static ProblemOrDefects derive_unproved(
      ProblemSpec spec, const std::string& file_name,
      std::size_t max_count_state_numbers = limits::kMaxCountStateNumbers);

  // First token of each group of alike tokens, ascending.
  const std::vector<int>& representatives() const { return representatives_; }
  // token -> its group (an index into representatives()).
  const std::vector<int>& group_of() const { return group_of_; }
  // `expected` at each position of each example (examples[i]), the same for every grading.
  const std::vector<Matrix>& examples_expected() const { return examples_expected_; }
  // Tested strings beyond the exhaustive set: examples then random strings, each once and
  // none that the exhaustive set already holds, in the order they were added.
  const std::vector<TokenString>& extra_strings() const { return extra_strings_; }
  // Strings of length 1..strings.exhaustive_length over the representatives.
  std::uint64_t exhaustive_total() const { return exhaustive_total_; }
  std::uint64_t tested_total() const { return exhaustive_total_ + extra_strings_.size(); }
  // The count states up to strings.max_length with their `expected` rows and the paths of
  // the extra strings, when rows depend on counts alone and the graph is within
  // max_count_state_numbers (null otherwise): grading then evaluates no `expected`.
  const CountStateGraph* count_states() const { return count_states_.get(); }
  // What count states count for prefixes up to strings.max_length (a token's group, and
  // the class of its position where W_P or a fixed `at` makes positions matter); null when
  // prefixes must be judged one by one (no causal mask, positions that do not compress).
  const TokenKinds* token_kinds() const { return token_kinds_.get(); }
  // mistake_targets()[k]: this problem with the `expected` of mistakes[k], which its
  // reference fails: a head graded against it passes when it makes that mistake.
  const std::vector<std::shared_ptr<const Problem>>& mistake_targets() const {
    return mistake_targets_;
  }
  // The statement and mistakes[k]'s message and hint as this problem's students read them:
  // the spec holds them as written, these have each {feature:NAME} and {output:N} filled in
  // for this variant (grader/variant_text.h; a placeholder that names nothing is a defect).
  const std::string& shown_statement() const { return shown_statement_; }
  const std::string& shown_message(std::size_t k) const { return shown_mistakes_[k].message; }
  const std::string& shown_hint(std::size_t k) const { return shown_mistakes_[k].hint; }

 private:
  explicit Problem(ProblemSpec spec) : ProblemSpec(std::move(spec)) {}
  // The targets of p.mistakes (grader/author_mistakes.cc); a defect for each mistake whose
  // `expected` is not defined on every tested string, or that the reference passes.
  static std::vector<std::shared_ptr<const Problem>> derive_mistake_targets(
      const Problem& p, const std::string& file_name, std::size_t max_count_state_numbers,
      DefectList& defects);
  // Sets the shown texts from the spec's (grader/variant_text.cc); a defect for each
  // placeholder that names nothing.
  static void fill_shown_texts(Problem& p, DefectList& defects);

  std::vector<int> representatives_;
  std::vector<int> group_of_;
  std::vector<Matrix> examples_expected_;
  std::vector<TokenString> extra_strings_;
  std::uint64_t exhaustive_total_ = 0;
  std::shared_ptr<const CountStateGraph> count_states_;
  std::shared_ptr<const TokenKinds> token_kinds_;
  std::vector<std::shared_ptr<const Problem>> mistake_targets_;
  struct ShownMistake {
    std::string message, hint;
  };
  std::string shown_statement_;
  std::vector<ShownMistake> shown_mistakes_;
};

// Whether `id` may name a problem: 1 to limits::kMaxProblemIdBytes of [a-z0-9-]. A problem
// file's id must be one, and only such a string is ever looked up or joined to the problems
// folder, so no id read from a request can name a file outside it ("..", "/", "%2F").
bool is_problem_id(std::string_view id);

// Parses and validates one problem file's text. `file_name` names it in defects and must be
// ID.json (the id is checked against it).
ProblemOrDefects load_problem_text(std::string_view text, const std::string& file_name);
// Loads the text of a problem file that is not on disk yet (a staff `validate`): named after
// the `id` it holds ("problem.json" when it has none), so the id check of a file does not
// apply and every other defect is reported as load_problem_text would.
ProblemOrDefects load_problem_text_unnamed(std::string_view text);
// Reads and loads one file (unreadable, too large or non-regular files are defects too).
// `text`, when given, receives the bytes read.
ProblemOrDefects load_problem_file(const std::filesystem::path& path, std::string* text = nullptr);

// The bundled problems' folder, fixed at build time (CMake's HEADGRADER_PROBLEMS_DIR: the
// source tree's problems/, or where an image installs them): the default --problems of the
// server and of the CLI, from any working directory (API.md §6).
std::filesystem::path default_problems_dir();

// Every problem of a folder (each *.json directly inside, by name) or a single file.
class ProblemSet {
 public:
  // On any defect in any file, returns all of them (files in name order). When `sources` is
  // given, it receives the bytes each problem was loaded from: (*sources)[i] is the file of
  // problems()[i], so that a record can name exactly what it was graded against.
  static std::variant<ProblemSet, std::vector<Defect>> load(
      const std::filesystem::path& path, std::vector<std::string>* sources = nullptr);
  // A set of problems already loaded (ids distinct), kept in ascending id, with `pools`
  // (whose members must be among them).
  static ProblemSet of(std::vector<std::shared_ptr<const Problem>> problems,
                       std::vector<std::shared_ptr<const ProblemPool>> pools = {});

  // nullptr when no problem has this id.
  const Problem* find(std::string_view id) const;
  // Ascending id.
  const std::vector<std::shared_ptr<const Problem>>& problems() const { return problems_; }
  // The ids in that order as "a, b, c", for messages that list the problems there are.
  std::string ids_text() const;

  // The folder's pools (headgrader/pool.h), ascending id; each member is a problem of the set.
  const std::vector<std::shared_ptr<const ProblemPool>>& pools() const { return pools_; }
  const ProblemPool* find_pool(std::string_view id) const;  // nullptr when no pool has it

 private:
  std::vector<std::shared_ptr<const Problem>> problems_;
  std::vector<std::shared_ptr<const ProblemPool>> pools_;
};

}  // namespace headgrader
