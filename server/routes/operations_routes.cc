// The operator's routes of Router (API.md §17): GET /readyz, the readiness probe a balancer or
// Kubernetes asks before sending work (GET /healthz stays the liveness check: a server whose
// store is gone is alive, and recovers without a restart once the store is back).
#include <string>
#include <utility>

#include "headgrader/json_writer.h"
#include "router.h"

namespace headgrader::server {
namespace {

// {"ready": true}, or 503 {"ready": false, "reason": "…"}: the probe's own body, not the
// error body of §5, so that a probe reads one field whatever the outcome.
Routed readiness_answer(const Request& request, const std::string* reason) {
  JsonWriter out(128);
  out.begin_object().key("ready").value(reason == nullptr);
  if (reason != nullptr) out.key("reason").value(*reason);
  return {
      json_answer(request, reason == nullptr ? http::status::ok : http::status::service_unavailable,
                  out.end_object().take()),
      "", std::nullopt};
}

}  // namespace

Routed Router::on_ready(const RouteCall& call) const {
  if (call.snapshot->problems().problems().empty()) {
    const std::string reason = "no problem is loaded";
    return readiness_answer(call.request, &reason);
  }
  store::SubmissionStore* const store = service_.records.store;
  if (store == nullptr) return readiness_answer(call.request, nullptr);  // --store none
  // The store is asked off the io threads: a PostgreSQL server that does not answer holds the
  // probe up to the connect timeout, and requests behind it must not wait that long.
  return later([store](const Request& same) {
    const Result<bool> answers = store->ready();
    const std::string reason = answers ? std::string() : "the store: " + answers.error().message;
    Routed routed = readiness_answer(same, answers ? nullptr : &reason);
    // Routed::rest's answer is its own: route_deferring has cut the body of the first only.
    if (same.method() == http::verb::head) {
      routed.response = headers_only(std::move(routed.response));
    }
    return routed;
  });
}

}  // namespace headgrader::server
