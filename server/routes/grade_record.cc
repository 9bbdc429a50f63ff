#include "grade_record.h"

#include <algorithm>

#include "common/rfc3339.h"
#include "headgrader/limits.h"

namespace headgrader::server {

std::optional<Error> check_idempotency_key(std::string_view value) {
  const bool visible =
      std::all_of(value.begin(), value.end(), [](char c) { return c >= '!' && c <= '~'; });
  if (!value.empty() && value.size() <= limits::kMaxIdempotencyKeyLength && visible) {
    return std::nullopt;
  }
  std::string message = "Idempotency-Key must be 1 to " +
                        std::to_string(limits::kMaxIdempotencyKeyLength) +
                        " visible ASCII characters (no spaces); ";
  if (value.empty()) {
    message += "it is empty";
  } else if (value.size() > limits::kMaxIdempotencyKeyLength) {
    message += "it has " + std::to_string(value.size());
  } else {
    message += "it holds a space or a character that is not visible ASCII";
  }
  return Error{ErrorCode::kBadRequest, std::move(message), ""};
}

std::string with_submission_id(std::string_view answer, std::string_view id) {
  std::string text(answer.substr(0, answer.rfind('}')));
  text += ",\"submission_id\":\"";
  text += id;  // hex digits: nothing to escape
  text += "\"}";
  return text;
}

Response PendingGrade::finish(Result<store::CommitOutcome> outcome) const {
  if (!outcome) {
    return error_response({ErrorCode::kStoreUnavailable,
                           "the grading could not be kept, so it is not answered; try again "
                           "(the store said: " +
                               outcome.error().message + ")",
                           ""},
                          version, keep_alive);
  }
  if (const std::optional<store::TimeMs> until = outcome->limited_until; until && rate_limit) {
    return rate_limited_answer(*rate_limit, false, time, *until, version, keep_alive);
  }
  store::SubmissionRecord& kept = outcome.value().kept;
  if (!outcome->inserted) {
    // The key's scope and body hash leave the problem out: the same body sent to another
    // problem with the same key is another grading, never answered with the first's grade.
    if (kept.problem != problem) {
      return error_response(
          {ErrorCode::kIdempotencyConflict,
           "this Idempotency-Key was used for problem \"" + kept.problem + "\", not \"" + problem +
               "\"; send a new key for a submission to another problem",
           ""},
          version, keep_alive);
    }
    const bool same_body =
        kept.idempotency && body_sha256 && kept.idempotency->body_sha256 == *body_sha256;
    if (!same_body) {
      return error_response({ErrorCode::kIdempotencyConflict,
                             "this Idempotency-Key was used with another body; send a new key "
                             "for a new submission",
                             ""},
                            version, keep_alive);
    }
  }
  if (outcome->inserted && recorded) recorded();
  return json_response(http::status::ok, std::move(kept.answer), version, keep_alive);
}

Response rate_limited_answer(const RateLimit& limit, bool per_key, store::TimeMs now,
                             store::TimeMs allowed_at, unsigned version, bool keep_alive) {
  const store::TimeMs wait_ms = std::max<store::TimeMs>(allowed_at - now, 1);
  const std::int64_t seconds = (wait_ms + 999) / 1000;
  std::string message =
      per_key
          ? "this key has sent the " + std::to_string(limit.count * limits::kKeyRateMultiple) +
                " gradings it may send in " + limit.text.substr(limit.text.find('/') + 1) + " (" +
                std::to_string(limits::kKeyRateMultiple) + " times the limit of " + limit.text + ")"
          : "you have used the " + std::to_string(limit.count) +
                (limit.count == 1 ? " grading" : " gradings") + " allowed for this problem in " +
                limit.text.substr(limit.text.find('/') + 1) + " (--rate-limit " + limit.text + ")";
  message += "; the next grading is allowed at " + format_rfc3339_ms(now + seconds * 1000) +
             ", in " + std::to_string(seconds) + (seconds == 1 ? " second" : " seconds");
  Response response =
      error_response({ErrorCode::kRateLimited, std::move(message), ""}, version, keep_alive);
  response.set(http::field::retry_after, std::to_string(seconds));
  return response;
}

store::SubmissionRecord record_of(const Problem& problem, std::string_view problem_sha256,
                                  const Graded& graded, std::string body, store::TimeMs now) {
  const GradeReport& report = graded.report;
  store::SubmissionRecord record;
  record.time = now;
  record.id = store::new_submission_id(now);
  record.problem = problem.id;
  record.variant = problem.variant;
  record.problem_sha256 = std::string(problem_sha256);
  record.body = std::move(body);
  record.passed = report.passed;
  record.score = report.score;
  record.tests_total = static_cast<std::int64_t>(report.total);
  record.tests_passed = static_cast<std::int64_t>(report.passed_count);
  record.tests_failed = static_cast<std::int64_t>(report.failed);
  for (const Failure& failure : report.failures) {
    record.failing_inputs.push_back(problem.spell(failure.input));
  }
  for (const Diagnosis& found : report.diagnosis) record.mistakes.push_back(found.mistake);
  record.answer = with_submission_id(graded.answer, record.id);
  return record;
}

}  // namespace headgrader::server
