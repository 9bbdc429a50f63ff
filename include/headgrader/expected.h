// The `expected` language of API.md §3: a small expression over the prefix s_1 … s_i that
// gives the correct output of the head at position i. parse_expected compiles the source
// once (checking names, operand kinds and vector lengths); Expected::evaluate then runs in
// time linear in the expression, without allocating, so it can be called for every position
// of every tested string. Thread-safety: an Expected is immutable; evaluate is const.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace headgrader {

// The problem's `classes`, resolved to token indices (token = index in the alphabet).
struct ClassTable {
  std::vector<std::string> names;          // in the problem file's order
  std::vector<std::vector<bool>> members;  // members[c][token]
  std::size_t alphabet_size = 0;
};

// What the expression may read at position i (1-based; i = tokens.size() ≥ 1).
// class_counts[c] is how many of s_1 … s_i are in class c of the ClassTable; callers that
// walk prefixes keep it up to date incrementally, others use count_classes().
struct PrefixFacts {
  std::span<const int> tokens;
  std::span<const int> class_counts;
};

// A class name the language can refer to: a letter or "_", then letters, digits or "_", and
// not one of the keywords (is any all count mean at pos and or not). Letters are ASCII.
bool is_valid_class_name(std::string_view name);

// Fills counts (size = table.names.size()) for the prefix `tokens`. Tokens outside the
// alphabet belong to no class.
void count_classes(const ClassTable& table, std::span<const int> tokens, std::span<int> counts);

// A parse error: the 0-based column (byte offset) in the source where it was found, and the
// reason. render() gives three lines, joined by '\n' with no newline at the end: the reason,
// the source line holding the column, and a caret under the column (both indented 2):
//   unknown class "consonnant"; the known classes are consonant, vowel
//     any(consonnant) ? [0, 1] : [1, 0]
//         ^
// A line longer than 120 characters is cut to the 60 either side of the column, with "...".
struct ExpectedSyntaxError {
  std::size_t column = 0;
  std::string reason;
  std::string render(std::string_view source) const;
};

// Evaluation that cannot give a number: a division by zero (the only run-time fault of the
// language). column is that of the `/`.
struct EvaluationFault {
  std::size_t column = 0;
};

// What an expression reads of a prefix when that is only the tokens at a few positions
// (Expected::window): each `at` reads a constant position or one a constant whole distance
// back from `pos` (at(pos - 1, C)), `is` reads the last token (distance 0), and nothing reads
// a class count (any, all, count, mean). Its value (or its fault) at a prefix then depends
// only on the prefix's length and on which classes hold the tokens at those positions.
struct ExpectedWindow {
  std::vector<int> fixed;  // positions (1-based), ascending, each once
  std::vector<int> back;   // distances back from the last position (0: the last), ascending
};

class Expected {
 public:
  // A moved-from Expected may only be assigned to or destroyed.
  Expected(Expected&&) noexcept;
  Expected& operator=(Expected&&) noexcept;
  ~Expected();

  // Length of the vector the expression yields (a scalar yields 1).
  std::size_t output_size() const;
  // Indices (into the ClassTable) of the classes the expression names, ascending, each once.
  const std::vector<int>& named_classes() const;
  // Whether the value can depend on which position holds what (it uses `at`). When not, it
  // depends only on the prefix's class counts, its length and its last token's classes, so
  // graders may reuse it across prefixes that agree on those.
  bool reads_positions() const;
  // The positions `at` reads when each is a constant (at(1, C), at(3 - 1, C)): ascending,
  // each once, only whole numbers ≥ 1 (any other k reads nothing). nullopt when some `at`
  // reads a position that varies (at(pos - 1, C)). With it, the value depends only on the
  // class counts, the length, the last token's classes and the tokens at these positions.
  std::optional<std::vector<int>> fixed_positions() const;
  // The positions the value reads when it is such a window (found once, when parsed);
  // nullopt when it reads a class count or an `at` whose position is neither constant nor
  // pos minus a constant (at(pos / 2, C), at(pos == 1 ? 1 : pos - 1, C)).
  const std::optional<ExpectedWindow>& window() const;
  // Writes output_size() values into `out` (precondition: out.size() ≥ output_size(),
  // facts.tokens non-empty, facts.class_counts as documented above). Every sub-expression is
  // evaluated (no short-circuit), so a division by zero anywhere yields a fault even in a
  // branch not taken; on a fault `out` is left unchanged. Values may be non-finite only
  // through overflow. Does not allocate.
  std::optional<EvaluationFault> evaluate(const PrefixFacts& facts, std::span<double> out) const;
  // The same expression with its outputs in another order: output j of the result is output
  // order[j] of this one (precondition: order is a permutation of 0 … output_size() − 1). A
  // student's variant (headgrader/variant.h) asks for its outputs so, without rewriting the
  // source; it reads the same positions and classes and faults where this one does.
  Expected with_outputs(std::span<const std::size_t> order) const;

  struct Program;  // the compiled form; defined in grader/expected_program.h

 private:
  explicit Expected(std::unique_ptr<Program> program);
  std::unique_ptr<Program> program_;
  friend std::variant<Expected, ExpectedSyntaxError> parse_expected(std::string_view,
                                                                    const ClassTable&);
};

// Parses and checks `source`: syntax (grammar of API.md §3), length (at most
// limits::kMaxExpectedLength characters) and nesting depth, class names (must be keys of
// `classes`; an unknown one lists the known ones), operand kinds (only `?:` takes vectors;
// `[…]` holds scalars; both branches of `?:` have the same length) and number literals (none
// may overflow). The Expected keeps its own copy of what it needs from `classes`.
std::variant<Expected, ExpectedSyntaxError> parse_expected(std::string_view source,
                                                           const ClassTable& classes);

}  // namespace headgrader
