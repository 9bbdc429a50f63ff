// parse_submission: the two readers of submission_readers.h, the event reader first.
#include "headgrader/submission.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <utility>

#include "headgrader/json_input.h"
#include "headgrader/limits.h"
#include "submission_readers.h"

namespace headgrader {

Result<Submission> parse_submission(const Problem& problem, std::string_view body) {
  if (auto submission = read_submission_events(problem, body)) return std::move(*submission);
  return read_submission_tree(problem, body);
}

bool same_submission(const Submission& a, const Submission& b) {
  const auto same = [](const Matrix& x, const Matrix& y) {
    return x.rows() == y.rows() && x.cols() == y.cols() &&
           std::equal(x.data(), x.data() + x.size(), y.data(), [](double u, double v) {
             return std::bit_cast<std::uint64_t>(u) == std::bit_cast<std::uint64_t>(v);
           });
  };
  return same(a.weights.W_q, b.weights.W_q) && same(a.weights.W_k, b.weights.W_k) &&
         same(a.weights.W_V, b.weights.W_V) && a.max_failures == b.max_failures &&
         a.student == b.student;
}

std::optional<std::string> submission_student(std::string_view body) {
  const Result<Json> json = parse_json_checked(body, limits::kMaxJsonDepth, "the body");
  if (!json || !json->is_object()) return std::nullopt;
  const auto found = json->find("student");
  if (found == json->end() || !found->is_string()) return std::nullopt;
  return found->get<std::string>();
}

}  // namespace headgrader
