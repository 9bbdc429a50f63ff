#include "options.h"

#include <array>
#include <boost/asio/ip/address.hpp>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <system_error>
#include <thread>
#include <vector>

#include "headgrader/problem.h"

namespace headgrader::server {
namespace {

Error usage_error(std::string message) { return {ErrorCode::kUsage, std::move(message), ""}; }

template <typename T>
bool parse_number(std::string_view text, T max, T& out) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value > max) return false;
  out = value;
  return true;
}

// A numeric flag's value, from `min` to `max`, into `out`; else the usage error that says
// which numbers it takes and what came.
template <typename T>
std::optional<Error> number_flag(std::string_view flag, std::string_view value, T min, T max,
                                 T& out) {
  T parsed{};
  if (!parse_number(value, max, parsed) || parsed < min) {
    return usage_error(std::string(flag) + " must be a number from " + std::to_string(min) +
                       " to " + std::to_string(max) + "; it is \"" + std::string(value) + "\"");
  }
  out = parsed;
  return std::nullopt;
}

// The flags of Part 2, each of which may come from HEADGRADER_<FLAG> (API.md Part 2). Flags
// without a value ("--lti-allow-http") take "1" or "true" from their variable.
constexpr std::array<std::string_view, 13> kEnvFlags = {"--keys",
                                                        "--grading",
                                                        "--max-connections-per-address",
                                                        "--unsent-answer-budget-bytes",
                                                        "--store",
                                                        "--rate-limit",
                                                        "--lti",
                                                        "--tls-cert",
                                                        "--tls-key",
                                                        "--max-long-gradings-per-address",
                                                        "--log-format",
                                                        "--metrics-address",
                                                        "--retain-days"};
constexpr std::array<std::string_view, 1> kEnvSwitches = {"--lti-allow-http"};
// Flags whose variable says what the value is, as API.md names them.
struct NamedEnvFlag {
  std::string_view flag;
  std::string_view variable;
};
constexpr std::array<NamedEnvFlag, 1> kNamedEnvFlags = {
    {{"--variant-secret", "HEADGRADER_VARIANT_SECRET_FILE"}}};

std::string env_name(std::string_view flag) {
  std::string name = "HEADGRADER_";
  for (const char c : flag.substr(2)) {
    name += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return name;
}

}  // namespace

std::optional<std::string> process_env(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

namespace {

Result<ServerOptions> parse_arguments(std::span<const std::string_view> args);

}  // namespace

Result<RateLimit> parse_rate_limit(std::string_view text) {
  const auto refuse = [&] {
    return usage_error(
        "--rate-limit must be N/PERIOD, a number of gradings and a period of whole seconds (s), "
        "minutes (m), hours (h) or days (d), e.g. 30/1h or 5/10m; it is \"" +
        std::string(text) + "\"");
  };
  const std::size_t slash = text.find('/');
  if (slash == std::string_view::npos || text.size() < slash + 3) return refuse();
  RateLimit limit;
  if (!parse_number<std::int64_t>(text.substr(0, slash), limits::kMaxRateLimitCount, limit.count) ||
      limit.count < 1) {
    return refuse();
  }
  const std::string_view period = text.substr(slash + 1);
  const std::int64_t longest = limits::kMaxRateLimitPeriod.count();
  std::int64_t amount = 0;
  if (!parse_number<std::int64_t>(period.substr(0, period.size() - 1), longest, amount) ||
      amount < 1) {
    return refuse();
  }
  std::int64_t unit = 0;
  switch (period.back()) {
    case 's':
      unit = 1;
      break;
    case 'm':
      unit = 60;
      break;
    case 'h':
      unit = 3600;
      break;
    case 'd':
      unit = 86400;
      break;
    default:
      return refuse();
  }
  if (amount * unit > longest) return refuse();
  limit.period = std::chrono::milliseconds(amount * unit * 1000);
  limit.text = std::string(text);
  return limit;
}

Result<ServerOptions> parse_options(std::span<const std::string_view> args, const EnvLookup& env) {
  // The environment's flags first, so that the command line's, read later, win.
  std::vector<std::string> from_env;
  if (env) {
    for (const std::string_view flag : kEnvFlags) {
      if (std::optional<std::string> value = env(env_name(flag))) {
        from_env.push_back(std::string(flag) + "=" + *value);
      }
    }
    for (const auto& [flag, variable] : kNamedEnvFlags) {
      if (std::optional<std::string> value = env(std::string(variable))) {
        from_env.push_back(std::string(flag) + "=" + *value);
      }
    }
    for (const std::string_view flag : kEnvSwitches) {
      const std::optional<std::string> value = env(env_name(flag));
      if (value && (*value == "1" || *value == "true")) from_env.emplace_back(flag);
    }
  }
  std::vector<std::string_view> all(from_env.begin(), from_env.end());
  all.insert(all.end(), args.begin(), args.end());
  return parse_arguments(all);
}

namespace {

Result<ServerOptions> parse_arguments(std::span<const std::string_view> args) {
  ServerOptions options;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string_view flag = args[i];
    std::string_view value;
    bool has_value = false;
    if (const auto eq = flag.find('='); flag.starts_with("--") && eq != std::string_view::npos) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
      has_value = true;
    }
    if (flag == "--help" || flag == "-h") {
      options.help = true;
      continue;
    }
    if (flag == "--healthcheck" || flag == "healthcheck") {
      options.healthcheck = true;
      continue;
    }
    if (flag == "--lti-allow-http") {
      options.lti_allow_http = true;
      continue;
    }
    if (flag != "--problems" && flag != "--address" && flag != "--port" && flag != "--threads" &&
        flag != "--max-connections" && flag != "--read-timeout-ms" &&
        flag != "--shutdown-grace-ms" && flag != "--keys" && flag != "--grading" &&
        flag != "--max-connections-per-address" && flag != "--unsent-answer-budget-bytes" &&
        flag != "--max-long-gradings-per-address" && flag != "--store" && flag != "--rate-limit" &&
        flag != "--lti" && flag != "--lti-keyset-refetch-ms" && flag != "--lti-backoff-ms" &&
        flag != "--tls-cert" && flag != "--tls-key" && flag != "--log-format" &&
        flag != "--metrics-address" && flag != "--retain-days" && flag != "--variant-secret") {
      return usage_error("unknown argument \"" + std::string(flag) + "\"; see --help");
    }
    if (!has_value) {
      if (i + 1 == args.size()) return usage_error(std::string(flag) + " needs a value");
      value = args[++i];
    }
    if (flag == "--problems") {
      if (value.empty()) return usage_error("--problems needs a folder or file");
      options.problems = std::filesystem::path(value);
    } else if (flag == "--lti") {
      if (value.empty()) return usage_error("--lti needs the LTI configuration file");
      options.lti = std::filesystem::path(value);
    } else if (flag == "--variant-secret") {
      if (value.empty()) {
        return usage_error("--variant-secret needs a file of " +
                           std::to_string(limits::kMinVariantSecretBytes) +
                           " or more secret bytes (e.g. head -c 32 /dev/urandom > FILE)");
      }
      options.variant_secret = std::filesystem::path(value);
    } else if (flag == "--tls-cert" || flag == "--tls-key") {
      if (value.empty()) {
        return usage_error(std::string(flag) + (flag == "--tls-cert"
                                                    ? " needs the certificate chain file (PEM)"
                                                    : " needs the private key file (PEM)"));
      }
      (flag == "--tls-cert" ? options.tls_cert : options.tls_key) = std::filesystem::path(value);
    } else if (flag == "--lti-keyset-refetch-ms" || flag == "--lti-backoff-ms") {
      unsigned millis = 0;
      if (auto bad = number_flag(flag, value, 0u, limits::kMaxTestFlagMs, millis)) return *bad;
      (flag == "--lti-backoff-ms" ? options.lti_first_backoff : options.lti_keyset_refetch) =
          std::chrono::milliseconds(millis);
    } else if (flag == "--keys") {
      if (value.empty())
        return usage_error("--keys needs a keys file (headgrader keys add makes one)");
      options.keys = std::filesystem::path(value);
    } else if (flag == "--log-format") {
      if (value != "json" && value != "text") {
        return usage_error(
            "--log-format must be \"json\" (one JSON object a line) or \"text\" (the same "
            "fields as logfmt: key=value); it is \"" +
            std::string(value) + "\"");
      }
      options.log_format = value == "json" ? LogFormat::kJson : LogFormat::kText;
    } else if (flag == "--metrics-address") {
      std::optional<ListenAddress> address = parse_listen_address(value);
      if (!address) {
        return usage_error(
            "--metrics-address must be an IP address and a port, ADDR:PORT, such as "
            "127.0.0.1:9100 or [::1]:9100 (port 0 picks a free one); it is \"" +
            std::string(value) + "\"");
      }
      options.metrics_address = std::move(address);
    } else if (flag == "--grading") {
      if (value != "open" && value != "key") {
        return usage_error(
            "--grading must be \"open\" (anyone may grade) or \"key\" (an lms or "
            "staff key, or a student token, is needed); it is \"" +
            std::string(value) + "\"");
      }
      options.grading_needs_key = value == "key";
    } else if (flag == "--address") {
      if (value.empty()) return usage_error("--address needs an IP address");
      boost::system::error_code ec;
      boost::asio::ip::make_address(value, ec);
      if (ec) {
        // Binding needs one address; a name may resolve to several (localhost: ::1 and
        // 127.0.0.1), so names are refused with the usual choices.
        return usage_error(
            "--address must be an IP address such as 0.0.0.0 (every interface), "
            "127.0.0.1 (this machine only) or ::; it is \"" +
            std::string(value) + "\"");
      }
      options.address = std::string(value);
    } else if (flag == "--port") {
      if (auto bad = number_flag<std::uint16_t>(flag, value, 0, 65535, options.port)) return *bad;
    } else if (flag == "--max-connections") {
      if (auto bad = number_flag<std::size_t>(flag, value, 1, limits::kMaxConnections,
                                              options.max_connections)) {
        return *bad;
      }
    } else if (flag == "--max-connections-per-address") {
      if (auto bad = number_flag<std::size_t>(flag, value, 1, limits::kMaxConnections,
                                              options.max_connections_per_address)) {
        return *bad;
      }
    } else if (flag == "--max-long-gradings-per-address") {
      if (auto bad = number_flag<std::size_t>(flag, value, 1, limits::kMaxLongGradings,
                                              options.max_long_gradings_per_address)) {
        return *bad;
      }
    } else if (flag == "--unsent-answer-budget-bytes") {
      if (auto bad = number_flag<std::size_t>(flag, value, 1, limits::kUnsentAnswerBudget,
                                              options.unsent_answer_budget)) {
        return *bad;
      }
    } else if (flag == "--store") {
      if (value.empty()) return usage_error("--store needs sqlite:PATH, postgresql://… or none");
      options.store = std::string(value);
    } else if (flag == "--rate-limit") {
      Result<RateLimit> limit = parse_rate_limit(value);
      if (!limit) return limit.error();
      options.rate_limit = std::move(limit).value();
    } else if (flag == "--retain-days") {
      int days = 0;
      if (auto bad = number_flag(flag, value, 1, limits::kMaxRetainDays, days)) return *bad;
      options.retain_days = days;
    } else if (flag == "--read-timeout-ms") {
      unsigned millis = 0;
      if (auto bad = number_flag(flag, value, 1u, limits::kMaxTestFlagMs, millis)) return *bad;
      options.read_timeout = std::chrono::milliseconds(millis);
    } else if (flag == "--shutdown-grace-ms") {
      const auto longest = std::chrono::milliseconds(limits::kShutdownGrace).count();
      unsigned millis = 0;
      if (auto bad = number_flag(flag, value, 0u, static_cast<unsigned>(longest), millis)) {
        return *bad;
      }
      options.shutdown_grace = std::chrono::milliseconds(millis);
    } else {
      if (auto bad = number_flag(flag, value, 1u, limits::kMaxThreads, options.threads))
        return *bad;
    }
  }
  if (options.rate_limit && options.store == "none") {
    return usage_error(
        "--rate-limit counts the gradings in the store; it needs a --store other than none");
  }
  if (options.retain_days && options.store == "none") {
    return usage_error(
        "--retain-days deletes old records from the store; it needs a --store other than none");
  }
  if (options.tls_cert.empty() != options.tls_key.empty()) {
    return usage_error(
        std::string(options.tls_cert.empty() ? "--tls-key" : "--tls-cert") + " is given without " +
        (options.tls_cert.empty() ? "--tls-cert (HEADGRADER_TLS_CERT)"
                                  : "--tls-key (HEADGRADER_TLS_KEY)") +
        ": HTTPS needs both the certificate chain and its private key; give both, or neither "
        "to serve plain HTTP (behind a reverse proxy that speaks HTTPS)");
  }
  if (options.grading_needs_key.value_or(false) && options.keys.empty()) {
    return usage_error("--grading key needs --keys FILE: without keys nobody could grade");
  }
  return options;
}

}  // namespace

std::optional<ListenAddress> parse_listen_address(std::string_view text) {
  const std::size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return std::nullopt;
  std::string_view host = text.substr(0, colon);
  const std::string_view port = text.substr(colon + 1);
  // An IPv6 address has colons of its own: it comes in brackets, as in a URL.
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
    if (host.find(':') == std::string_view::npos) return std::nullopt;
  } else if (host.find(':') != std::string_view::npos) {
    return std::nullopt;
  }
  boost::system::error_code ec;
  boost::asio::ip::make_address(host, ec);
  ListenAddress address{std::string(host), 0};
  if (ec || port.empty() || !parse_number(port, std::uint16_t{65535}, address.port)) {
    return std::nullopt;
  }
  return address;
}

unsigned thread_count(unsigned requested) {
  if (requested != 0) return requested;
  const unsigned hardware = std::thread::hardware_concurrency();
  return hardware == 0 ? 1 : hardware;
}

std::string usage(std::string_view program) {
  std::string text = "usage: " + std::string(program) + " [options]\n";
  text += R"(
Serves the grader over HTTP (JSON in and out):
  GET  /v1/problems               the problems: id, title, submit
  GET  /v1/problems/{id}          one problem as loaded (never its reference)
  POST /v1/problems/{id}/grade    grade a submission {"W_q": M, "W_k": M, "W_V": M}
  GET  /healthz                   200 when serving

options:
  --problems DIR    problem folder (or one file); default: the bundled problems,
                    )";
  text += default_problems_dir().string();
  text += R"(
  --address ADDR    IP address to listen on; default 0.0.0.0
  --port N          TCP port; default )";
  text += std::to_string(limits::kDefaultPort);
  text += R"(; 0 picks a free one
  --threads N       threads serving requests; default: the hardware's concurrency
  --lti FILE        act as an LTI 1.3 tool with this configuration (docs/lti.md);
                    env HEADGRADER_LTI
  --lti-allow-http  accept http:// platform URLs (tests on loopback only)
  --tls-cert FILE   serve HTTPS with this certificate chain (PEM, the server's first)
                    and --tls-key; both or neither; without them plain HTTP, e.g.
                    behind a reverse proxy (docs/deploy.md)      [HEADGRADER_TLS_CERT]
  --tls-key FILE    the certificate's private key (PEM)          [HEADGRADER_TLS_KEY]
  --variant-secret FILE  give each student their own variant of the problems that
                    have `variants`, drawn from this file's secret bytes (32 or more;
                    docs/variants.md); without it every student gets the problems as
                    written                            [HEADGRADER_VARIANT_SECRET_FILE]
  --keys FILE       the keys file (headgrader keys add); turns on staff routes and,
                    by default, makes grading need a key            [HEADGRADER_KEYS]
  --grading MODE    open (anyone may grade) or key; default: key with --keys, else
                    open                                            [HEADGRADER_GRADING]
  --store URL       where each grading is kept: sqlite:PATH (default sqlite:headgrader.db),
                    postgresql://USER:PASSWORD@HOST:PORT/DB, or none (keep nothing)
                                                                    [HEADGRADER_STORE]
  --rate-limit N/PERIOD  at most N gradings per student and problem in any PERIOD
                    (30/1h, 5/10m; s, m, h, d); default none   [HEADGRADER_RATE_LIMIT]
  --retain-days N   delete records older than N days (with their passbacks once
                    sent), at start and then daily; default: keep them
                                                              [HEADGRADER_RETAIN_DAYS]
  --log-format FMT  the access log on stderr: json (one JSON object a line, the
                    default) or text (the same fields as logfmt)  [HEADGRADER_LOG_FORMAT]
  --metrics-address ADDR:PORT  also serve GET /metrics (Prometheus) without a key on
                    this listener of its own, plain HTTP; it answers nothing else
                    (the main listener's /metrics needs a staff key)
                                                          [HEADGRADER_METRICS_ADDRESS]
  --healthcheck     GET /healthz on ADDR (loopback for 0.0.0.0 and ::) and PORT, then
                    exit 0 when it answers 200, else 1 (for container health checks)
  --help            this text

Prints "listening on http://ADDRESS:PORT" (https:// with --tls-cert) once it accepts
connections, one access-log line per request on stderr (with its X-Request-Id), and
on SIGTERM or SIGINT stops accepting, lets requests in flight finish (up to )";
  text += std::to_string(limits::kShutdownGrace.count());
  text += R"( s) and exits 0.
)";
  return text;
}

}  // namespace headgrader::server
