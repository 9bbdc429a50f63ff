// Problem files (API.md §2): loading, validation and the derived facts grading needs.
// A problem is loaded whole or not at all: load_problem returns every defect of a file at
// once, each naming the file, the field and what is wrong. A loaded Problem is proven
// sound: its `expected` parses and never divides by zero on a tested string, its reference
// passes its own tests, no two tokens share an embedding while a class `expected` names holds
// one of them and not the other, and its tested set is within limits::kTestedStringBudget.
// Thread-safety: a loaded Problem and ProblemSet are immutable and safe to share.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "headgrader/attention.h"
#include "headgrader/expected.h"
#include "headgrader/strings.h"

namespace headgrader {

struct CountStateGraph;  // grader/count_states.h

// One thing wrong with a problem file. to_string(): "FILE: FIELD: MESSAGE" (no field part
// when the defect is about the whole file).
struct Defect {
  std::string file;
  std::string field;  // dotted path, e.g. "strings.max_length" or "W_E"
  std::string message;
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

struct Problem {
  // --- As written (defaults filled in) ---
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

  // --- Derived at load ---
  std::shared_ptr<const Expected> expected;
  HeadWeights reference;                  // reference ∪ given: a head that passes
  std::size_t n_e = 0;                    // rows of W_E
  std::size_t n_v = 0;                    // expected->output_size()
  std::vector<int> representatives;       // first token of each group, ascending
  std::vector<int> group_of;              // token -> its group (index into representatives)
  std::vector<TokenString> examples;      // strings.examples as tokens
  std::vector<Matrix> examples_expected;  // `expected` at each position of each example
  // Tested strings beyond the exhaustive set: examples then random strings, each once and
  // none that the exhaustive set already holds, in the order they were added.
  std::vector<TokenString> extra_strings;
  std::uint64_t exhaustive_total = 0;  // strings of length 1..exhaustive_length over reps
  // The count states up to max_length with their `expected` rows, when rows depend on
  // counts alone and the graph is small (null otherwise): grading then evaluates no
  // `expected`, and the extra strings as paths through it. Derived from the fields above; a
  // copy whose strings change must not use it beyond its depth, nor its paths unless it has
  // as many extra strings (the grader checks both; a copy that swaps extra strings must
  // rebuild it or set it to null).
  std::shared_ptr<const CountStateGraph> count_states;
  std::uint64_t tested_total() const { return exhaustive_total + extra_strings.size(); }

  // `tokens` as the alphabet's characters (UTF-8).
  std::string spell(const TokenString& tokens) const;
};

using ProblemOrDefects = std::variant<Problem, std::vector<Defect>>;

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
  // A set of problems already loaded (ids distinct), kept in ascending id.
  static ProblemSet of(std::vector<std::shared_ptr<const Problem>> problems);

  // nullptr when no problem has this id.
  const Problem* find(std::string_view id) const;
  // Ascending id.
  const std::vector<std::shared_ptr<const Problem>>& problems() const { return problems_; }
  // The ids in that order as "a, b, c", for messages that list the problems there are.
  std::string ids_text() const;

 private:
  std::vector<std::shared_ptr<const Problem>> problems_;
};

}  // namespace headgrader
