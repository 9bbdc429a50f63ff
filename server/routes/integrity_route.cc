#include "integrity_route.h"

#include "common/json.h"
#include "headgrader/integrity.h"
#include "headgrader/submission.h"
#include "headgrader/variant.h"
#include "staff_routes.h"

namespace headgrader::server {
namespace {

// A head in the problem's coordinates: the student's relabeling (API.md §15), rebuilt from
// the record's variant id, undone. Nullopt when the id no longer fits the problem (its
// `variants` changed since).
std::optional<HeadWeights> in_problem_coordinates(const Problem& problem,
                                                  const store::SubmissionRecord& record,
                                                  const HeadWeights& sent) {
  if (record.variant.empty()) return sent;
  Result<Relabeling> relabeling = parse_variant_id(record.variant, problem);
  if (!relabeling) return std::nullopt;
  return to_problem_coordinates(problem, *relabeling, sent);
}

}  // namespace

Response problem_integrity(store::SubmissionStore& store, const Problem& problem, unsigned version,
                           bool keep_alive) {
  std::vector<IntegrityEntry> entries;
  std::int64_t skipped = 0;
  store::SubmissionQuery query;
  query.problem = problem.id;
  query.limit = limits::kMaxListLimit;
  query.with_bodies = true;  // the matrices are in the body
  for (;;) {
    auto page = store.list(query);
    if (!page) return record_unavailable(page.error(), version, keep_alive);
    for (const store::SubmissionRecord& record : page->records) {
      if (record.regrade_of) continue;
      if (!record.student) {  // an anonymous grading: no one to name
        ++skipped;
        continue;
      }
      Result<Submission> submission = parse_submission(problem, record.body);
      if (!submission) {  // the problem changed shape: the old matrices no longer fit
        ++skipped;
        continue;
      }
      std::optional<HeadWeights> in_problem =
          in_problem_coordinates(problem, record, submission->weights);
      if (!in_problem) {
        ++skipped;
        continue;
      }
      entries.push_back({*record.student, record.id, record.variant, record.passed,
                         std::move(submission->weights), std::move(*in_problem)});
    }
    if (!page->next_cursor) break;
    query.cursor = *page->next_cursor;
  }

  const IntegrityReport report = compare_heads(entries, problem.reference);
  Json shared = Json::array();
  for (const SharedHeads& group : report.shared) {
    shared.push_back(
        {{"kind",
          group.kind == SharedHeads::Kind::kIdentical ? "identical" : "same_after_relabeling"},
         {"students", Json(group.students)},
         {"submission_ids", Json(group.submission_ids)},
         {"matches_reference", group.matches_reference}});
  }
  Json other = Json::array();
  for (const OtherVariantCopy& copy : report.other_variant) {
    other.push_back({{"student", copy.student},
                     {"submission_id", copy.submission_id},
                     {"matches_student", copy.matches_student}});
  }
  const Json answer = {{"problem", problem.id},
                       {"compared", entries.size()},
                       {"skipped", skipped},
                       {"shared", std::move(shared)},
                       {"other_variant", std::move(other)}};
  return json_response(http::status::ok,
                       answer.dump(-1, ' ', false, Json::error_handler_t::replace), version,
                       keep_alive);
}

}  // namespace headgrader::server
