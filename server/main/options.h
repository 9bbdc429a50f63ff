// The server's command line (API.md §6): --problems, --address, --port, --threads, --help,
// and --healthcheck (a GET /healthz on loopback, for container health checks). Parsing is
// a pure function so every flag and every mistake is unit-testable.
// Thread-safety: pure functions.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "access_log.h"
#include "headgrader/limits.h"
#include "headgrader/result.h"
#include "rate_limit.h"

namespace headgrader::server {

// --rate-limit N/PERIOD (rate_limit.h): "30/1h", "5/10m", "100/1d", "2/30s": N ≥ 1, then a
// whole number of s, m, h or d.
Result<RateLimit> parse_rate_limit(std::string_view text);

// An address to listen on, "ADDR:PORT" ("127.0.0.1:9100", "[::1]:9100").
struct ListenAddress {
  std::string address;
  std::uint16_t port = 0;
};
// Nullopt unless `text` is an IP address (IPv6 in brackets), ':', and a port 0..65535.
std::optional<ListenAddress> parse_listen_address(std::string_view text);

struct ServerOptions {
  std::filesystem::path problems;  // empty: headgrader::default_problems_dir()
  std::string address = "0.0.0.0";
  std::uint16_t port = limits::kDefaultPort;
  unsigned threads = 0;  // 0: the hardware's concurrency
  bool help = false;
  bool healthcheck = false;  // GET /healthz on ADDRESS (loopback for 0.0.0.0/::), PORT
  // Hidden flags for tests (not in --help; docs/hardening.md): --max-connections N lowers
  // the connection cap, --read-timeout-ms N shortens the read and idle timeouts,
  // --shutdown-grace-ms N the grace given to requests in flight on SIGTERM.
  // Part 2 (API.md §7): the keys file, and whether grading needs a key (default: only with
  // --keys).
  std::filesystem::path keys;
  std::optional<bool> grading_needs_key;
  std::size_t max_connections = limits::kMaxConnections;
  std::chrono::milliseconds read_timeout = limits::kReadTimeout;
  std::chrono::milliseconds shutdown_grace = limits::kShutdownGrace;
  // --max-connections-per-address N and --max-long-gradings-per-address N (behind a proxy
  // every client has its address), --unsent-answer-budget-bytes N (tests keep it small).
  std::size_t max_connections_per_address = limits::kMaxConnectionsPerAddress;
  std::size_t max_long_gradings_per_address = limits::kMaxLongGradingsPerAddress;
  std::size_t unsent_answer_budget = limits::kUnsentAnswerBudget;
  // The submission record (API.md §8): --store URL ("none": keep nothing) and --rate-limit
  // N/PERIOD; each also from HEADGRADER_STORE / HEADGRADER_RATE_LIMIT, the flag winning.
  std::string store = "sqlite:headgrader.db";
  std::optional<RateLimit> rate_limit;
  // --retain-days N (API.md §17; env HEADGRADER_RETAIN_DAYS): records older than N days are
  // deleted at start and then daily (store/record_retention.h); none: kept for ever.
  std::optional<int> retain_days;
  // LTI 1.3 (API.md §11): --lti FILE (env HEADGRADER_LTI), --lti-allow-http (platform URLs
  // may be http://, for tests), and the hidden test flags --lti-keyset-refetch-ms N and
  // --lti-backoff-ms N (server/lti_tool/lti_service.h).
  std::filesystem::path lti;
  bool lti_allow_http = false;
  std::chrono::milliseconds lti_keyset_refetch = limits::kLtiKeysetRefetchInterval;
  std::chrono::milliseconds lti_first_backoff = limits::kPassbackFirstBackoff;
  // HTTPS (docs/deploy.md, HTTPS): --tls-cert FILE and --tls-key FILE (env HEADGRADER_TLS_CERT,
  // HEADGRADER_TLS_KEY), both or neither; empty: plain HTTP.
  std::filesystem::path tls_cert;
  std::filesystem::path tls_key;
  // The access log's lines (API.md §17): --log-format json (the default) or text; env
  // HEADGRADER_LOG_FORMAT.
  LogFormat log_format = LogFormat::kJson;
  // GET /metrics without a key on a listener of its own (API.md §17): --metrics-address
  // ADDR:PORT (env HEADGRADER_METRICS_ADDRESS); none by default.
  std::optional<ListenAddress> metrics_address;
  // Each student's variant (API.md §15): --variant-secret FILE (env
  // HEADGRADER_VARIANT_SECRET_FILE), read at start (common/variant_secret_file.h); none: every
  // student gets the problems as written.
  std::filesystem::path variant_secret;
};

// Looks up an environment variable; nullopt when it is not set.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;
// getenv(3).
std::optional<std::string> process_env(const std::string& name);

// `args` without the program name. Each flag of Part 2 may also come from the environment as
// HEADGRADER_<FLAG> (--keys: HEADGRADER_KEYS); a flag given on the command line wins. Errors
// (code "usage") name the flag (or variable) and what is wrong.
Result<ServerOptions> parse_options(std::span<const std::string_view> args,
                                    const EnvLookup& env = {});

// Threads to run: `requested`, or the hardware's concurrency (at least 1) when 0.
unsigned thread_count(unsigned requested);

std::string usage(std::string_view program);

}  // namespace headgrader::server
