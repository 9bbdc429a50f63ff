// The grade route of Router (API.md §5, §11): the body parsed into a submission, the
// record's rules checked before grading (Idempotency-Key, attempt limits), then the grading
// itself, here or, when long or with a large answer, handed back as Routed::rest to be run
// off the io threads; with a store, the record to commit before the answer.
#include <chrono>
#include <memory>
#include <optional>
#include <utility>

#include "answer_guard.h"
#include "common/secrets.h"
#include "headgrader/grade.h"
#include "headgrader/grade_request.h"
#include "headgrader/grading_cost.h"
#include "headgrader/limits.h"
#include "headgrader/submission.h"
#include "lti_service.h"
#include "router.h"

namespace headgrader::server {
namespace {

// 503 store_unavailable when the record cannot be read before grading.
Response unavailable_to_read(const Request& request, const Error& error) {
  return error_answer(request, {ErrorCode::kStoreUnavailable,
                                "the record of gradings cannot be read, so nothing is graded; "
                                "try again (the store said: " +
                                    error.message + ")",
                                ""});
}

}  // namespace

// What a grading needs once its request has been checked, kept for Router::finish_grade
// when that runs later, off the io threads (Routed::rest).
struct Router::GradeJob {
  std::shared_ptr<const CatalogSnapshot> snapshot;  // keeps `entry` alive
  const CatalogSnapshot::Entry* entry = nullptr;
  Principal who;
  Submission submission;
  GraderIdentity identity;
  std::string recorded_as;             // the record's problem: the problem's id or the pool's
  std::string member;                  // the pool's member graded, when it is one
  std::optional<std::string> student;  // whom the record names (with a store)
  // Whose variant is graded (API.md §15): the token's student, else the body's `student`.
  std::optional<std::string> viewer;
  std::optional<store::IdempotencyTag> tag;
  store::TimeMs now = 0;
};

Routed Router::answer_grade(const std::shared_ptr<const CatalogSnapshot>& snapshot,
                            const CatalogSnapshot::Entry& entry, const Principal& who,
                            const Request& request, const ProblemPool* pool) const {
  const Problem& problem = *entry.problem;
  const std::string& recorded_as = pool != nullptr ? pool->id : problem.id;
  if (std::optional<Error> refused = unless_json_body(request)) {
    return {error_answer(request, *refused), recorded_as, std::nullopt};
  }
  Result<Submission> submission = parse_submission(problem, request.body());
  if (!submission) return {error_answer(request, submission.error()), recorded_as, std::nullopt};
  // A launch's identity (ISSUER#sub) is the launch's alone to grant (API.md §11): a body
  // naming one would be recorded as that student and spend their attempts.
  if (who.kind != Principal::Kind::kStudent && submission->student &&
      names_launched_student(service_.lti, *submission->student)) {
    return {error_answer(request, launched_identity_refusal()), recorded_as, std::nullopt};
  }

  auto job = std::make_shared<GradeJob>();
  job->snapshot = snapshot;
  job->entry = &entry;
  job->who = who;
  job->submission = std::move(*submission);
  job->viewer = viewer(who, job->submission.student);
  job->recorded_as = recorded_as;
  if (pool != nullptr) job->member = problem.id;
  // A grading string by string over many strings, or one whose answer is large (max_failures
  // and n_q are the submission's), takes more than milliseconds: the server runs it off the
  // threads that read and write.
  const std::uint64_t numbers = answer_cost(problem, job->submission);
  const bool long_grading =
      grading_cost(problem) > limits::kLongGradingCost || numbers > limits::kLongAnswerNumbers;
  const RecordSettings& records = service_.records;
  if (records.store != nullptr) {
    // Who the record names: the key's name, and the student of the body or of the launch (§11).
    job->student = job->submission.student;
    if (who.kind == Principal::Kind::kKey) {
      job->identity.key_name = who.key_name;
      job->identity.lms = who.role == Role::kLms;
      job->identity.idempotency_scope = who.key_name;
    } else if (who.kind == Principal::Kind::kStudent) {
      job->student = who.student.student;
      job->identity.idempotency_scope = "student:" + who.student.student;
    }
    job->now = records.now();
    // A key used before is looked up before grading only where grading again would cost
    // more than the lookup (a long grading; a launched student's, which reads the launch):
    // otherwise the commit finds it (ON CONFLICT), and the lookup's round trip to the store,
    // which an io thread waits for, is made only for a grading the attempt limit would refuse.
    const bool replay_first = long_grading || who.kind == Principal::Kind::kStudent;
    if (std::optional<Response> refused = check_before_grading(
            recorded_as, request, job->student, job->identity, job->tag, replay_first, job->now)) {
      return {std::move(*refused), recorded_as, std::nullopt};
    }
  }
  if (long_grading) {
    Routed routed{Response{}, recorded_as, std::nullopt};
    routed.rest = [this, job](const Request& same) {
      return guarded(same, [&] { return finish_grade(*job, same); });
    };
    routed.rest_answer_numbers = numbers;
    return routed;
  }
  return finish_grade(*job, request);
}

// grade_submission, counted (headgrader_gradings_total, headgrader_grading_duration_seconds).
Graded Router::counted_grading(const Problem& problem, const Submission& submission) const {
  const auto started = std::chrono::steady_clock::now();
  Graded graded = grade_submission(problem, submission);
  metrics_->count_grading(problem.id, graded.report.passed,
                          std::chrono::steady_clock::now() - started);
  return graded;
}

Routed Router::finish_grade(GradeJob& job, const Request& request) const {
  const CatalogSnapshot::Entry& entry = *job.entry;
  // The student's variant: the submission is in its coordinates, so are the answer's traces.
  // Its shapes are the problem's, so the checks made on the problem as written hold for it.
  Result<ProblemView> view = student_view(*job.snapshot, entry, job.viewer);
  if (!view) return {error_answer(request, view.error()), job.recorded_as, std::nullopt};
  const Problem& problem = *view->problem;
  const Principal& who = job.who;
  const RecordSettings& records = service_.records;
  if (records.store == nullptr) {  // --store none: Part 1 exactly
    Graded graded = counted_grading(problem, job.submission);
    // Without a store a launched student's score waits in memory (lost if the server stops).
    if (who.kind == Principal::Kind::kStudent && service_.lti != nullptr) {
      service_.lti->graded(who.student, graded.report.score, "", std::chrono::system_clock::now());
    }
    return {json_answer(request, http::status::ok, std::move(graded.answer)), job.recorded_as,
            graded.report.passed};
  }

  const store::TimeMs now = job.now;
  const Graded graded = counted_grading(problem, job.submission);
  const GradeReport& report = graded.report;
  auto pending = std::make_shared<PendingGrade>();
  pending->record = record_of(problem, entry.sha256, graded, std::string(request.body()), now);
  store::SubmissionRecord& record = pending->record;
  // A pool's grading is recorded as the pool's, naming the member graded (API.md §15).
  record.problem = job.recorded_as;
  record.member = job.member;
  record.student = std::move(job.student);
  record.key = job.identity.key_name;
  // A launched student's grading names the launch's course and link, and its score goes to
  // the LMS through the outbox, queued in the record's own transaction (API.md §11).
  if (who.kind == Principal::Kind::kStudent && service_.lti != nullptr) {
    Result<LtiService::LaunchOfGrading> of =
        service_.lti->launch_of(who.student, report.score, now, problem.passback);
    if (!of) {
      return {error_answer(request, {ErrorCode::kStoreUnavailable,
                                     "the grading could not be kept, so it is not answered; try "
                                     "again (the store said: " +
                                         of.error().message + ")",
                                     ""}),
              job.recorded_as, std::nullopt};
    }
    LtiService::LaunchOfGrading launch = std::move(*of);
    record.lms_context = std::move(launch.context);
    record.lms_resource_link = std::move(launch.resource_link);
    pending->passback = std::move(launch.passback);
    if (pending->passback) pending->recorded = [lti = service_.lti] { lti->score_queued(); };
  }
  if (job.tag) pending->body_sha256 = job.tag->body_sha256;
  pending->problem = job.recorded_as;
  // Counted before grading, the limit let through every grading sent together: the commit
  // counts it again, in the transaction that would keep the record.
  if (records.rate_limit && record.student) pending->rate_limit = records.rate_limit;
  pending->time = now;
  record.idempotency = std::move(job.tag);
  pending->version = request.version();
  pending->keep_alive = request.keep_alive();
  return {Response{}, job.recorded_as, report.passed, std::move(pending)};
}

std::optional<Response> Router::check_before_grading(std::string_view problem,
                                                     const Request& request,
                                                     const std::optional<std::string>& student,
                                                     const GraderIdentity& identity,
                                                     std::optional<store::IdempotencyTag>& tag,
                                                     bool replay_first, store::TimeMs now) const {
  store::SubmissionStore& store = *service_.records.store;
  if (const auto header = request.find("Idempotency-Key"); header != request.end()) {
    if (std::optional<Error> bad = check_idempotency_key(header->value())) {
      return error_answer(request, *bad);
    }
    tag = store::IdempotencyTag{identity.idempotency_scope, std::string(header->value()),
                                sha256_hex(request.body())};
  }
  // The answer to a key used before: the first answer again, byte for byte, or a conflict
  // when the body differs; nothing when the key is new.
  const auto earlier_answer = [&]() -> std::optional<Response> {
    auto earlier = store.find_idempotent(tag->scope, tag->key);
    if (!earlier) return unavailable_to_read(request, earlier.error());
    if (!earlier->has_value()) return std::nullopt;
    PendingGrade replay;
    replay.body_sha256 = tag->body_sha256;
    replay.problem = std::string(problem);
    replay.version = request.version();
    replay.keep_alive = request.keep_alive();
    return replay.finish(store::CommitOutcome{false, std::move(**earlier), std::nullopt});
  };
  if (tag && replay_first) {
    if (std::optional<Response> replay = earlier_answer()) return replay;
  }
  std::optional<Response> refused = attempt_limit_refusal(problem, request, student, identity, now);
  // A replay is no new grading: never refused for the limit.
  if (refused && tag && !replay_first) {
    if (std::optional<Response> replay = earlier_answer()) return replay;
  }
  return refused;
}

std::optional<Response> Router::attempt_limit_refusal(std::string_view problem,
                                                      const Request& request,
                                                      const std::optional<std::string>& student,
                                                      const GraderIdentity& identity,
                                                      store::TimeMs now) const {
  const RecordSettings& records = service_.records;
  if (!records.rate_limit) return std::nullopt;
  store::SubmissionStore& store = *records.store;
  const RateLimit& limit = *records.rate_limit;
  const store::TimeMs since = now - limit.period.count() + 1;  // the window ends now
  if (identity.lms && identity.key_name) {
    const std::string& key = *identity.key_name;
    std::optional<store::TimeMs> room = records.keys_at_cap->refused_until(key, now);
    if (!room) {
      const std::int64_t cap = limit.count * limits::kKeyRateMultiple;
      auto used = store.gradings_since({store::RateScope::Kind::kKey, "", "", key}, since, cap);
      if (!used) return unavailable_to_read(request, used.error());
      if (used->count >= cap && used->cap_th_newest) {
        room = *used->cap_th_newest + limit.period.count();
        records.keys_at_cap->hold(key, *room, now);
      }
    }
    if (room) {
      return rate_limited_answer(limit, true, now, *room, request.version(), request.keep_alive());
    }
  }
  if (student) {
    auto used = store.gradings_since(
        {store::RateScope::Kind::kStudentProblem, *student, std::string(problem), ""}, since,
        limit.count);
    if (!used) return unavailable_to_read(request, used.error());
    if (used->count >= limit.count && used->cap_th_newest) {
      return rate_limited_answer(limit, false, now, *used->cap_th_newest + limit.period.count(),
                                 request.version(), request.keep_alive());
    }
  }
  return std::nullopt;
}

}  // namespace headgrader::server
