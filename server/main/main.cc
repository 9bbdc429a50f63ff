// headgrader-server: the grading service of API.md §5–§6. Loads the problems (refusing to
// start on any defect, each printed), then serves until SIGTERM or SIGINT. A SIGHUP reloads;
// one that comes during start-up is held and reloads once serving.
#include <sys/resource.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "access_log.h"
#include "common/variant_secret_file.h"
#include "headgrader/limits.h"
#include "headgrader/problem.h"
#include "lti_service.h"
#include "metrics.h"
#include "options.h"
#include "problem_catalog.h"
#include "record_retention.h"
#include "route_table.h"
#include "server.h"
#include "service.h"
#include "submission_store.h"
#include "tls_context.h"

namespace {

// Each connection is a descriptor; make room for the connection cap where the hard limit
// allows (the usual soft limit of 1024 is below it).
void raise_descriptor_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  const rlim_t wanted = headgrader::limits::kMaxConnections + 64;
  if (limit.rlim_cur >= wanted) return;
  limit.rlim_cur = std::min(wanted, limit.rlim_max);
  setrlimit(RLIMIT_NOFILE, &limit);
}

}  // namespace

int main(int argc, char** argv) {
  namespace server = headgrader::server;
  // Before any thread starts, so that every thread inherits it: a SIGHUP while the problems
  // and the store load waits for serve() instead of ending the process.
  server::hold_hangups_until_serving();
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  const std::string_view program = argc > 0 ? argv[0] : "headgrader-server";

  const headgrader::Result<server::ServerOptions> parsed =
      server::parse_options(args, server::process_env);
  if (!parsed) {
    std::cerr << program << ": " << parsed.error().message << '\n';
    return 2;
  }
  const server::ServerOptions& options = parsed.value();
  if (options.help) {
    std::cout << server::usage(program);
    return 0;
  }
  if (options.healthcheck) {
    return server::healthcheck(options.address, options.port, std::cerr, !options.tls_cert.empty());
  }

  // HTTPS: the certificate and key are read once, before anything else is opened.
  std::unique_ptr<boost::asio::ssl::context> tls;
  if (!options.tls_cert.empty()) {
    auto loaded_tls = server::load_tls_context(options.tls_cert, options.tls_key);
    if (!loaded_tls) {
      std::cerr << program << ": " << loaded_tls.error().message << "; not starting\n";
      return 1;
    }
    tls = std::move(loaded_tls).value();
  }

  const auto dir = options.problems.empty() ? headgrader::default_problems_dir() : options.problems;
  auto loaded = server::ProblemCatalog::open(dir);
  if (auto* defects = std::get_if<std::vector<headgrader::Defect>>(&loaded)) {
    for (const headgrader::Defect& defect : *defects) std::cerr << defect.to_string() << '\n';
    std::cerr << program << ": " << dir.string() << ": " << defects->size()
              << (defects->size() == 1 ? " defect" : " defects") << "; not starting\n";
    return 1;
  }
  const std::unique_ptr<server::ProblemCatalog> catalog =
      std::move(std::get<std::unique_ptr<server::ProblemCatalog>>(loaded));
  server::Service service;
  service.problems = catalog.get();
  server::Metrics metrics(server::route_patterns());
  service.metrics = &metrics;
  std::unique_ptr<server::KeySource> keys;
  if (!options.keys.empty()) {
    auto opened = server::KeySource::open(options.keys);
    if (!opened) {
      std::cerr << program << ": --keys: " << opened.error().message << "; not starting\n";
      return 1;
    }
    keys = std::move(opened.value());
    service.keys = keys.get();
  }
  // Each student's variant (API.md §15): a secret that cannot be read, or is too short to keep
  // the variants unguessable, stops the server here rather than serving the problems as written.
  if (!options.variant_secret.empty()) {
    headgrader::Result<std::string> secret =
        headgrader::read_variant_secret(options.variant_secret);
    if (!secret) {
      std::cerr << program << ": " << secret.error().message << "; not starting\n";
      return 1;
    }
    service.variant_secret = std::move(*secret);
  }
  service.grading = options.grading_needs_key.value_or(keys != nullptr)
                        ? server::GradingAccess::kKey
                        : server::GradingAccess::kOpen;
  // The submission record (API.md §8): a store that cannot be opened stops the server here.
  std::unique_ptr<headgrader::store::SubmissionStore> store;
  if (options.store != "none") {
    auto opened = headgrader::store::open_store(options.store);
    if (!opened) {
      std::cerr << program << ": --store: " << opened.error().message << "; not starting\n";
      return 1;
    }
    store = std::move(opened).value();
    service.records.store = store.get();
    service.records.rate_limit = options.rate_limit;
  }
  // --retain-days (API.md §17): the first sweep starts now, beside the start-up. Declared
  // after the store: stopped before it closes.
  std::unique_ptr<headgrader::store::RecordRetention> retention;
  if (store && options.retain_days) {
    retention = std::make_unique<headgrader::store::RecordRetention>(*store, *options.retain_days,
                                                                     server::stderr_line);
  }
  // LTI 1.3 (API.md §11), on the store when there is one (declared after it: destroyed first,
  // so its passback thread stops before the store closes).
  std::unique_ptr<server::LtiService> lti;
  if (!options.lti.empty()) {
    auto opened = server::LtiService::open({options.lti, options.lti_allow_http,
                                            options.lti_keyset_refetch, options.lti_first_backoff},
                                           *catalog, store.get(), server::stderr_line);
    if (!opened) {
      std::cerr << program << ": --lti: " << opened.error().message << "; not starting\n";
      return 1;
    }
    lti = std::move(opened).value();
    service.lti = lti.get();
    service.student_tokens = lti->student_tokens();
  }
  raise_descriptor_limit();
  std::optional<std::pair<std::string, std::uint16_t>> metrics_address;
  if (options.metrics_address) {
    metrics_address.emplace(options.metrics_address->address, options.metrics_address->port);
  }
  const int status =
      server::serve(service, options.address, options.port, server::thread_count(options.threads),
                    std::cout, std::cerr,
                    {options.max_connections, options.read_timeout, options.shutdown_grace,
                     options.max_connections_per_address, options.unsent_answer_budget,
                     options.max_long_gradings_per_address},
                    tls.get(), {options.log_format, metrics_address});
  lti.reset();  // its passback thread uses the store
  retention.reset();
  if (store) {
    store->close();
    // For the benchmark (bench/store_bench.sh): how many gradings each transaction held.
    const auto counters = store->counters();
    std::cout << "store: " << counters.records << " records committed in " << counters.batches
              << " transactions" << std::endl;
  }
  return status;
}
