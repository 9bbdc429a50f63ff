// GET /metrics of Router (API.md §17): the registry's counts (metrics.h), then what is read
// when scraped: the problems served, the store's commit batches and errors, and the passback
// outbox by status. With a store the answer is made off the io threads: counting the outbox
// is a query, and a database that does not answer would hold the io thread.
#include <string>
#include <utility>

#include "metrics.h"
#include "metrics_text.h"
#include "router.h"

namespace headgrader::server {
namespace {

Response metrics_answer(const Request& request, std::string body) {
  Response response{http::status::ok, request.version()};
  response.set(http::field::content_type, kMetricsContentType);
  // A scrape is a reading of now: a cache between it and the scraper would show the past.
  response.set(http::field::cache_control, "no-store");
  response.keep_alive(request.keep_alive());
  response.body() = std::move(body);
  response.prepare_payload();
  return response;
}

// The store's part: commit batches (exact sizes, bucketed here), errors, the outbox.
void write_store_metrics(MetricsText& text, store::SubmissionStore& store) {
  const store::CommitCounters counters = store.counters();
  const std::span<const double> bounds = commit_batch_bounds();
  HistogramCounts batches{bounds, std::vector<std::uint64_t>(bounds.size() + 1), 0};
  for (std::size_t size = 1; size < counters.batch_sizes.size(); ++size) {
    std::size_t bucket = 0;
    while (bucket < bounds.size() && static_cast<double>(size) > bounds[bucket]) ++bucket;
    batches.counts[bucket] += counters.batch_sizes[size];
    batches.sum += static_cast<double>(size * counters.batch_sizes[size]);
  }
  text.histogram("headgrader_store_commit_batch_size",
                 "Records written in one transaction of the store's group committer.", batches);
  // Counted before the outbox is read below, so a failure of that read shows next time.
  text.single("headgrader_store_errors_total", "counter",
              "Store operations that failed with store_unavailable (a record not kept, a read "
              "or write that failed, a readiness probe the store did not answer).",
              static_cast<double>(counters.errors));
  const Result<store::PassbackCounts> passbacks = store.count_passbacks();
  if (!passbacks) return;  // counted in headgrader_store_errors_total; the rest still shows
  text.family("headgrader_passback", "gauge",
              "Score passbacks in the outbox by status, read from the store when scraped (with "
              "a shared database, every server's).");
  const std::pair<std::string_view, std::int64_t> statuses[] = {
      {"pending", passbacks->pending}, {"sent", passbacks->sent}, {"failed", passbacks->failed}};
  for (const auto& [status, n] : statuses) {
    const Label labels[] = {{"status", status}};
    text.sample("headgrader_passback", labels, static_cast<double>(n));
  }
}

}  // namespace

Routed Router::on_metrics(const RouteCall& call) const {
  MetricsText text;
  metrics_->write(text);
  text.single("headgrader_problems_loaded", "gauge", "Problems being served.",
              static_cast<double>(call.snapshot->problems().problems().size()));
  store::SubmissionStore* const store = service_.records.store;
  if (store == nullptr) return {metrics_answer(call.request, text.take()), "", std::nullopt};
  return later([store, text = std::move(text)](const Request& same) mutable {
    write_store_metrics(text, *store);
    Routed routed{metrics_answer(same, text.take()), "", std::nullopt};
    // Routed::rest's answer is its own: route_deferring has cut the body of the first only.
    if (same.method() == http::verb::head) {
      routed.response = headers_only(std::move(routed.response));
    }
    return routed;
  });
}

}  // namespace headgrader::server
