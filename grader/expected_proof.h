// Proving at load that `expected` gives a finite vector, without dividing by zero, at every
// position of every tested string (the promise of include/headgrader/problem.h), cheaply:
// one prefix per window key (Expected::window) or per count state (fixed positions) where
// the value depends only on those, else every prefix of a walk. A fault is named as the
// walk in test order first meets it, whichever way it was found.
#pragma once

#include "headgrader/problem.h"
#include "problem_fields.h"

namespace headgrader {

// Adds an `expected` defect naming the first tested string (and position) where it fails.
void check_expected_everywhere(const Problem& problem, DefectList& defects);

}  // namespace headgrader
