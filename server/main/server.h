// Running the service: an io_context on N threads, the listener, the "listening on" line,
// and the orderly stop on SIGTERM/SIGINT (stop accepting, close idle connections, give
// requests in flight up to limits::kShutdownGrace). Also the --healthcheck client.
// Thread-safety: serve() and healthcheck() block the calling thread; call each once.
#pragma once

#include <boost/asio/ssl/context.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>

#include "access_log.h"
#include "headgrader/limits.h"
#include "headgrader/problem.h"
#include "service.h"

namespace headgrader::server {

// The connection cap and the timeouts: limits.h's unless a test lowers them (the hidden
// flags of options.h). A read timeout shortened below limits::kReadTimeout sets the idle timeout
// too.
struct ConnectionTuning {
  std::size_t max_connections = limits::kMaxConnections;
  std::chrono::milliseconds read_timeout = limits::kReadTimeout;
  std::chrono::milliseconds shutdown_grace = limits::kShutdownGrace;
  std::size_t max_connections_per_address = limits::kMaxConnectionsPerAddress;
  std::size_t unsent_answer_budget = limits::kUnsentAnswerBudget;
  std::size_t max_long_gradings_per_address = limits::kMaxLongGradingsPerAddress;
};

// What an operator watches the server by (API.md §17; docs/operations.md).
struct Observability {
  LogFormat log_format = LogFormat::kJson;  // --log-format
  // --metrics-address: GET /metrics without a key on a listener of its own, plain HTTP.
  std::optional<std::pair<std::string, std::uint16_t>> metrics_address;
};

// Blocks SIGHUP in the calling thread, and so in every thread started after it, until serve()
// takes it: a reload asked for while the problems and the store are still loading (a deploy
// hook, a log rotation) would otherwise end the process, SIGHUP's default. Called on the first
// line of main(); the SIGHUPs that came meanwhile lead to one reload once serving.
void hold_hangups_until_serving();

// Serves `service` on address:port with `threads` threads until SIGTERM or SIGINT, in HTTPS
// with `tls` (load_tls_context(); it must outlive the call). Writes "listening on
// http://ADDRESS:PORT" (https:// with `tls`; the real port) to `out` once accepting, failures to
// `err`. On SIGHUP, and when its problems folder changes, loads the problems (and the keys
// file) again; what failed is written to stderr and the old set goes on serving. With
// observability.metrics_address, also serves GET /metrics there, keyless, and writes
// "metrics on http://ADDRESS:PORT" first. Counts in service.metrics (a registry of its own
// when null). Returns the process exit code: 0 after a signal, 1 when it cannot listen.
int serve(const Service& service, const std::string& address, std::uint16_t port, unsigned threads,
          std::ostream& out, std::ostream& err, const ConnectionTuning& tuning = {},
          boost::asio::ssl::context* tls = nullptr, const Observability& observability = {});

// GET /healthz on address:port (0.0.0.0 and :: mean loopback) within a few seconds, over TLS
// when `tls` (the certificate is not checked: it asks the server on this machine whether it
// answers). Returns 0 when the answer is 200, else 1 (with the reason on `err`).
int healthcheck(const std::string& address, std::uint16_t port, std::ostream& err,
                bool tls = false);

}  // namespace headgrader::server
