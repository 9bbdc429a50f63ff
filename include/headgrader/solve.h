// `headgrader solve` (API.md §14): a search for matrices for a problem's `submit` names that
// pass every tested string, the file's own `reference` ignored. The search (grader/
// solve_search.h) is seeded and its arithmetic deterministic; each candidate is judged by
// grade() itself, so a head reported found passed the exact grader. The time budget is looked
// at only between rounds of the fixed schedule: a head found is the same on every machine,
// and so is a not-found answer whose schedule ran to its end; only a search the budget cut
// short (a slow machine, a small --seconds) may end at another round.
// Thread-safety: pure functions of their arguments.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "headgrader/grade.h"
#include "headgrader/limits.h"
#include "headgrader/obstacles.h"
#include "headgrader/problem.h"

namespace headgrader {

// Loads a problem file's text for a search: every field checked as at load but `reference`,
// which may be absent or fail; the Problem's reference is zeros (given matrices as given).
ProblemOrDefects load_problem_to_solve(std::string_view text, const std::string& file_name);

// The same for a file that has no name of its own (a draft sent over HTTP): it is checked as
// "{id}.json", so that its id always matches its name, as load_problem_text_unnamed does.
ProblemOrDefects load_draft_to_solve(std::string_view text);

struct SolveOptions {
  int n_q = 0;  // rows of W_q and W_k; 0: 1, 2, … limits::kSolveMaxDefaultNq in turn
  int seconds = limits::kSolveDefaultSeconds;
};

struct SolveResult {
  bool found = false;
  HeadWeights head;              // found: the passing head; else the best (most strings passed)
  GradeReport report;            // grade() of `head`
  std::optional<Margin> margin;  // found only
  std::vector<Obstacle> obstacles;
  bool deadline_hit = false;  // the budget stopped the schedule before its end
};

// Precondition: `problem` from load_problem_to_solve (or any load). A given W_q or W_k
// fixes n_q; options.n_q is then ignored.
SolveResult solve_problem(const Problem& problem, const SolveOptions& options);

// The answer of API.md §14: {"found": true, "head", "margin"} or {"found": false, "best",
// "score", "failing", "obstacles"}; the head holds the submitted matrices only.
std::string solve_json(const Problem& problem, const SolveResult& result);

// `text` with its top-level "reference" set to the submitted matrices of `head`: the value
// replaced where the key is, else the key added last; every other byte as it was. Nothing
// when `text` is not a JSON object this can read.
std::optional<std::string> text_with_reference(std::string_view text, const Problem& problem,
                                               const HeadWeights& head);

}  // namespace headgrader
