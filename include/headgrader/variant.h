// A student's variant of a problem (API.md §15): a relabeling of its features and outputs,
// drawn from an HMAC of the student, written as a short id that rebuilds it without the secret,
// applied to the problem (proved again by derive) and undone on a head (integrity).
// Thread-safety: pure functions of their arguments.
//
// The math. A Relabeling is π (the features' order, n_e), s (one scale per feature row) and σ
// (the outputs' order, n_v). Write P for the permutation matrix with (P x)_i = x_{π(i)},
// S = diag(s_1 … s_{n_e}), M = S·P and Σ for (Σ y)_j = y_{σ(j)}. The student's embeddings are
// the problem's in new coordinates x' = M x:
//   W_E' = M W_E,  W_P' = M W_P          (row i = s_i · row π(i))
// so the student's residual is r' = M r. The student's expected output at each position is
// the problem's reordered, out' = Σ out (component j = component σ(j)). A problem head
// (W_q, W_k, W_V) answers the student's problem when it is written in those coordinates:
//   Q' = W_q' r' = W_q r   needs  W_q' = W_q M⁻¹   (column j = column π(j) of W_q, / s_j)
//   K' = W_k' r' = W_k r   needs  W_k' = W_k M⁻¹
//   so the scores Q' K'ᵀ and the attention A are the problem's, and
//   V' = W_V' r' = Σ W_V r needs  W_V' = Σ W_V M⁻¹, giving out' = A V' = Σ (A V) = Σ out.
// Back from the student's coordinates (M⁻¹ M = I, Σᵀ Σ = I):
//   W_q = W_q' M,  W_k = W_k' M,  W_V = Σᵀ W_V' M.
// Every variant is thus solvable by construction: the reference, written so, passes. It is
// still graded before the variant is served (relabel_problem derives the problem again), as
// M⁻¹'s rounding could in principle move a value across the tolerance.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "headgrader/attention.h"
#include "headgrader/problem.h"

namespace headgrader {

// One student's relabeling. Each part is empty when the problem does not ask for it
// (`variants` in the problem file); all empty is the problem as written.
struct Relabeling {
  std::vector<std::size_t> features;  // π: the student's row i is the problem's row features[i]
  std::vector<std::size_t> scales;    // the student's row i is scaled by feature_scales[scales[i]]
  std::vector<std::size_t> outputs;   // σ: the student's output j is the problem's outputs[j]

  bool is_identity() const { return features.empty() && scales.empty() && outputs.empty(); }
  bool operator==(const Relabeling&) const = default;
};

// The relabeling of `student` for `problem` (API.md §15): a stream of SHA-256 blocks
// (block k = SHA-256(h ‖ k as 8 bytes, big-endian)) seeded by h = HMAC-SHA256(secret,
// problem.id + "\0" + student), read as big-endian 32-bit words, each number below n by
// rejection (a word at or past the last multiple of n is drawn again). In this order: π by
// Fisher–Yates over n_e rows (for i from n_e − 1 down to 1, swap row i with row j drawn below
// i + 1) when permute_features; one index into feature_scales per row when there are scales;
// σ by Fisher–Yates over n_v when permute_outputs. So it depends on the secret, the id, the
// student, n_e, n_v, the flags and the number of scales only, never on a matrix's values:
// editing W_E keeps every student's variant. An empty secret (no --variant-secret) or a problem
// without `variants` gives the identity.
Relabeling derive_relabeling(std::string_view secret, const ProblemSpec& problem,
                             std::string_view student);

// The variant's id, its whole relabeling in a short readable form, 0-based: the parts that are
// on, in this order, joined by "-": "f" and π, "s" and the scale indices, "o" and σ, each list
// joined by ".". E.g. "f1.0.2-s0.1.0-o1.0": the student's row 0 is the problem's row 1 scaled
// by feature_scales[0], …, their output 0 is the problem's output 1. Empty for the identity.
std::string variant_id(const Relabeling& relabeling);

// Reads an id written by variant_id for `problem`. Refused (kWrongShape, field "variant", with
// the reason): empty or over limits::kMaxVariantIdBytes, a part missing, extra, repeated or out
// of order for the problem's `variants`, a number that is not plain decimal (no sign, no leading
// zero), a list of the wrong length, a permutation that repeats or exceeds a row, a scale index
// past feature_scales.
Result<Relabeling> parse_variant_id(std::string_view id, const ProblemSpec& problem);

// feature_scales[scales[i]] for each row i, or 1 for each row without scales: the diagonal of S.
std::vector<double> row_scales(const ProblemSpec& problem, const Relabeling& relabeling);

// A head in the problem's coordinates written in the student's (W_q M⁻¹, W_k M⁻¹, Σ W_V M⁻¹),
// and back (W_q' M, W_k' M, Σᵀ W_V' M). Matrices of the wrong width (not n_e columns) or, for
// W_V, height (not n_v rows) are returned unchanged: the grader refuses them on their own.
HeadWeights to_student_coordinates(const ProblemSpec& problem, const Relabeling& relabeling,
                                   const HeadWeights& head);
HeadWeights to_problem_coordinates(const ProblemSpec& problem, const Relabeling& relabeling,
                                   const HeadWeights& head);

// The problem as the student of `relabeling` sees it (W_E, W_P and feature_names relabeled, the
// given matrices and the reference written in the student's coordinates, `expected` and each
// mistake's reordered, `variant` set to the id), derived again, so its reference is proved by
// grading it. Defects name `problem.id`.json; none is expected of a problem that loaded, but a
// variant is served only when there are none. The identity gives the problem itself, derived.
ProblemOrDefects relabel_problem(const ProblemSpec& problem, const Relabeling& relabeling);

}  // namespace headgrader
