// The library of named mistakes (API.md §13), one entry each: when it applies to a
// submission, how many gradings its proof may take, the proof (grading changed copies of the
// student's head; the first that passes proves it), and the same change applied to the
// reference for lint. Adding a mistake is adding an entry to the table in
// mistake_library.cc; diagnosis.cc runs them.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "headgrader/diagnosis.h"
#include "mistake_trials.h"

namespace headgrader {

// One change of the reference that makes a mistake, and the change in words ("W_q and W_k
// exchanged").
struct LintChange {
  HeadWeights weights;
  std::string what;
};

struct Mistake {
  const char* name;
  int max_gradings;  // of its proof, for the budget
  bool (*applies)(const Trials&);
  std::optional<Diagnosis> (*prove)(Trials&);
  // The mistake made on the reference, each way it can be made (rows swapped: each pair of
  // distinct rows), in the order they are tried; none when it does not apply to the problem.
  std::vector<LintChange> (*lint)(const Problem&, const Trials&);
  bool about_attention;     // not linted on a reference whose attention is uniform
  const char* excluded_by;  // not tried once this one is proven
};

// Every mistake, in the order they are tried and reported.
std::span<const Mistake> mistake_library();

}  // namespace headgrader
