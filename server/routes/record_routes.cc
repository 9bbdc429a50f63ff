// The submission record's routes of Router (API.md §8, §15, §17): GET /v1/submissions[.csv],
// GET /v1/submissions/{id}, GET /v1/problems/{id}/stats, POST /v1/problems/{id}/regrade, GET
// /v1/problems/{id}/integrity, DELETE /v1/students/{student} and GET /v1/audit, once the
// router has checked the path, the method and the staff key (route_table.h). The answers
// themselves are staff_routes.h's, regrade_route.h's, integrity_route.h's and student_data.h's.
#include <functional>
#include <utility>

#include "integrity_route.h"
#include "regrade_route.h"
#include "router.h"
#include "staff_routes.h"
#include "student_data.h"

namespace headgrader::server {
namespace {

// The answer of `work` with the store: every record route reads it, which on a large one takes
// seconds (an export of every record, the stats over every student), and a regrade grades
// again the latest submission of every student: off the io threads, so that /healthz and
// gradings never wait behind them. 503 with --store none.
Routed with_store(const RouteCall& call, const RecordSettings& records,
                  std::function<Routed(store::SubmissionStore&, const Request&)> work) {
  if (records.store == nullptr) {
    return {
        error_answer(call.request, {ErrorCode::kStoreUnavailable,
                                    "this server keeps no record of gradings (--store none)", ""}),
        call.entry != nullptr || call.pool != nullptr ? call.id : "", std::nullopt};
  }
  return later([store = records.store, work = std::move(work)](const Request& same) {
    Routed routed = work(*store, same);
    if (same.method() == http::verb::head && !routed.stream) {
      routed.response = headers_only(std::move(routed.response));
    }
    return routed;
  });
}

}  // namespace

Routed Router::on_submissions(const RouteCall& call) const {
  return with_store(call, service_.records,
                    [](store::SubmissionStore& store, const Request& request) -> Routed {
                      return {list_submissions(store, request_query(request.target()), false,
                                               request.version(), request.keep_alive()),
                              "", std::nullopt};
                    });
}

Routed Router::on_submissions_csv(const RouteCall& call) const {
  return with_store(
      call, service_.records, [](store::SubmissionStore& store, const Request& request) {
        Routed routed;
        routed.response = list_submissions(store, request_query(request.target()), true,
                                           request.version(), request.keep_alive(), &routed.stream);
        return routed;
      });
}

Routed Router::on_students_csv(const RouteCall& call) const {
  return with_store(call, service_.records,
                    [](store::SubmissionStore& store, const Request& request) -> Routed {
                      return {students_csv(store, request_query(request.target()),
                                           request.version(), request.keep_alive()),
                              "", std::nullopt};
                    });
}

Routed Router::on_submission(const RouteCall& call) const {
  return with_store(
      call, service_.records,
      [id = call.id](store::SubmissionStore& store, const Request& request) -> Routed {
        return {get_submission(store, id, request.version(), request.keep_alive()), "",
                std::nullopt};
      });
}

Routed Router::on_stats(const RouteCall& call) const {
  return with_store(
      call, service_.records,
      [problem = call.id](store::SubmissionStore& store, const Request& request) -> Routed {
        return {problem_stats(store, problem, request.version(), request.keep_alive()), problem,
                std::nullopt};
      });
}

Routed Router::on_regrade(const RouteCall& call) const {
  // The snapshot keeps the entry alive until the regrade has run.
  return with_store(
      call, service_.records,
      [this, snapshot = call.snapshot, problem = call.id, who = call.who](
          store::SubmissionStore&, const Request& request) -> Routed {
        const Result<bool> dry_run = parse_regrade_query(request_query(request.target()));
        if (!dry_run) {
          return {error_response(dry_run.error(), request.version(), request.keep_alive()), problem,
                  std::nullopt};
        }
        return {regrade(*snapshot, problem, service_.records, who.key_name, *dry_run,
                        request.version(), request.keep_alive()),
                problem, std::nullopt};
      });
}

Routed Router::on_integrity(const RouteCall& call) const {
  // The snapshot keeps the entry alive until the comparison has run.
  return with_store(call, service_.records,
                    [snapshot = call.snapshot, problem = call.id](
                        store::SubmissionStore& store, const Request& request) -> Routed {
                      return {problem_integrity(store, *snapshot, problem, request.version(),
                                                request.keep_alive()),
                              problem, std::nullopt};
                    });
}

Routed Router::on_delete_student(const RouteCall& call) const {
  return with_store(
      call, service_.records,
      [student = call.id, key = call.who.key_name](store::SubmissionStore& store,
                                                   const Request& request) -> Routed {
        return {delete_student_data(store, student, key, request.version(), request.keep_alive()),
                "", std::nullopt};
      });
}

Routed Router::on_audit(const RouteCall& call) const {
  return with_store(call, service_.records,
                    [](store::SubmissionStore& store, const Request& request) -> Routed {
                      return {list_audit(store, request_query(request.target()), request.version(),
                                         request.keep_alive()),
                              "", std::nullopt};
                    });
}

}  // namespace headgrader::server
