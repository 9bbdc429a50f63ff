#include "integrity_route.h"

#include <map>

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

Response problem_integrity(store::SubmissionStore& store, const CatalogSnapshot& snapshot,
                           std::string_view problem, unsigned version, bool keep_alive) {
  // The heads of each problem graded: the problem's own, or each member's of a pool.
  std::map<std::string, std::vector<IntegrityEntry>, std::less<>> by_member;
  std::int64_t skipped = 0;
  std::size_t compared = 0;
  store::SubmissionQuery query;
  query.problem = std::string(problem);
  query.limit = limits::kMaxListLimit;
  query.with_bodies = true;  // the matrices are in the body
  for (;;) {
    auto page = store.list(query);
    if (!page) return record_unavailable(page.error(), version, keep_alive);
    for (const store::SubmissionRecord& record : page->records) {
      if (record.regrade_of) continue;
      const std::string_view graded_on = record.member.empty() ? problem : record.member;
      const CatalogSnapshot::Entry* entry = snapshot.find(graded_on);
      if (!record.student || entry == nullptr) {  // no one to name; a member no longer served
        ++skipped;
        continue;
      }
      Result<Submission> submission = parse_submission(*entry->problem, record.body);
      if (!submission) {  // the problem changed shape: the old matrices no longer fit
        ++skipped;
        continue;
      }
      std::optional<HeadWeights> in_problem =
          in_problem_coordinates(*entry->problem, record, submission->weights);
      if (!in_problem) {
        ++skipped;
        continue;
      }
      by_member[std::string(graded_on)].push_back({*record.student, record.id, record.variant,
                                                   record.passed, std::move(submission->weights),
                                                   std::move(*in_problem)});
      ++compared;
    }
    if (!page->next_cursor) break;
    query.cursor = *page->next_cursor;
  }

  IntegrityReport report;
  for (const auto& [member, entries] : by_member) {
    IntegrityReport one = compare_heads(entries, snapshot.find(member)->problem->reference);
    report.shared.insert(report.shared.end(), one.shared.begin(), one.shared.end());
    report.other_variant.insert(report.other_variant.end(), one.other_variant.begin(),
                                one.other_variant.end());
  }
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
  const Json answer = {{"problem", problem},
                       {"compared", compared},
                       {"skipped", skipped},
                       {"shared", std::move(shared)},
                       {"other_variant", std::move(other)}};
  return json_response(http::status::ok,
                       answer.dump(-1, ' ', false, Json::error_handler_t::replace), version,
                       keep_alive);
}

}  // namespace headgrader::server
