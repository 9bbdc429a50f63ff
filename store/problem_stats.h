// GET /v1/problems/{id}/stats (API.md §8) computed from what the store gives: counts, the
// first-try pass rate, the histogram of students' latest scores and their commonest failures.
// Thread-safety: pure functions.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "submission_store.h"

namespace headgrader::store {

inline constexpr std::size_t kScoreBins = 10;

struct CommonFailure {
  std::string input;
  std::int64_t students = 0;
};

struct MistakeCount {
  std::string mistake;
  std::int64_t students = 0;
};

// Students by the variant of their latest grading (API.md §15), so staff can see whether one
// variant is harder.
struct VariantCount {
  std::string variant;
  std::int64_t students = 0;
  std::int64_t students_passed = 0;  // whose latest grading passed
};

struct ProblemStats {
  std::string problem;
  std::int64_t submissions = 0;      // gradings, regradings aside
  std::int64_t students = 0;         // students with at least one grading
  std::int64_t students_passed = 0;  // students whose latest grading passed
  // Of the students, the share whose first grading passed; nullopt when there are none.
  std::optional<double> first_try_pass_rate;
  // Students by the score of their latest grading: bin b holds [b/10, (b+1)/10), the last
  // one [0.9, 1] closed. Binned from the test counts, so 0.3 lands in bin 3 exactly.
  std::array<std::int64_t, kScoreBins> score_histogram{};
  // The failing inputs shown in students' latest gradings, by how many students' show each
  // (most first, then by input), at most limits::kMaxCommonFailures.
  std::vector<CommonFailure> common_failures;
  // The mistakes named in students' latest gradings (API.md §16), by how many students' name
  // each (most first, then by name): every one, the library and an author's being few.
  std::vector<MistakeCount> mistakes;
  // Each variant of students' latest gradings, by its id; students graded on the problem as
  // written are in none.
  std::vector<VariantCount> variants;
};

ProblemStats compute_stats(std::string problem, const StatsInputs& inputs);

}  // namespace headgrader::store
