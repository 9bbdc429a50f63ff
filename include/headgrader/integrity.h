// Copied heads (API.md §15): which students sent the same head, literally or once each
// student's relabeling is undone and the scale of W_q and W_k that leaves every score unchanged
// is factored out, and which failing heads are another student's head for another variant.
//
// A head is compared by two keys. Its literal key is the bits of W_q, W_k and W_V as sent.
// Its canonical key is what the head computes, in the problem's coordinates: the score of
// embeddings r and r' is scale · (W_q r)·(W_k r') = scale · rᵀ (W_qᵀ W_k) r', so W_qᵀ W_k (n_e ×
// n_e) and W_V (n_v × n_e) are the head up to every change of W_q and W_k that no student can
// tell apart (W_q → c W_q with W_k → W_k / c, or any invertible mixing of their rows). Both
// are rounded to kIntegritySignificantBits, so that the last bits of a product do not split
// heads a student copied: two heads within a rounding step of each other but on either side of
// it are not grouped (the report misses them; it never groups different heads).
//
// The keys are sorted, not compared pairwise: n heads cost O(n log n).
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "headgrader/attention.h"

namespace headgrader {

// Significant bits kept of each entry of a canonical key; entries smaller than the largest of
// their matrix times 2^-kIntegritySignificantBits count as 0 (the rounding error of W_qᵀ W_k).
inline constexpr int kIntegritySignificantBits = 30;

// One graded head of one student.
struct IntegrityEntry {
  std::string student;
  std::string submission_id;
  std::string variant;  // the student's variant, "" for the problem as written
  bool passed = false;
  HeadWeights sent;        // as the student sent it, in their own coordinates
  HeadWeights in_problem;  // the same head in the problem's coordinates (= sent when
                           // the problem has no variants)
};

struct SharedHeads {
  enum class Kind { kIdentical, kSameAfterRelabeling };
  Kind kind = Kind::kIdentical;
  std::vector<std::string> students;        // ascending, each once
  std::vector<std::string> submission_ids;  // ascending
  // Every head of the group computes, in its sender's variant, what the reference does.
  bool matches_reference = false;
};

// A failing head that another student sent for another variant: it passes (or fails) there,
// not here, so the student most likely copied it without translating it.
struct OtherVariantCopy {
  std::string student;
  std::string submission_id;
  std::string matches_student;  // the first such other student, by name
};

struct IntegrityReport {
  // Identical groups first, then same-after-relabeling groups (those whose heads are not all
  // literally the same), each ordered by its first student, then its first submission id.
  std::vector<SharedHeads> shared;
  std::vector<OtherVariantCopy> other_variant;  // ascending student, then submission id
};

// `entries` in any order (the report does not depend on it); `reference` is the problem's
// reference in its own coordinates, when it has one. Only heads of two or more students form a
// group: a student who sends the same head twice shares it with no one.
IntegrityReport compare_heads(std::span<const IntegrityEntry> entries,
                              const std::optional<HeadWeights>& reference);

}  // namespace headgrader
