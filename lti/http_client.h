// The tool's outgoing HTTP calls (a platform's JWKS, its token endpoint, AGS scores): one
// request per connection, HTTPS with the system's trusted certificates and host name
// verification (SNI set), plain http:// only when the client was made with allow_http
// (--lti-allow-http, for tests on loopback). Everything (resolve, connect, handshake, write,
// read) runs within one deadline; answers larger than limits::kLtiMaxFetchBytes are refused.
// Thread-safety: send() may be called from several threads at once.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/limits.h"
#include "common/result.h"

namespace headgrader::lti {

struct HttpRequest {
  std::string method = "GET";  // GET or POST
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

struct HttpAnswer {
  int status = 0;
  std::string body;
  std::string content_type;
  std::string retry_after;  // the Retry-After header, if any
};

class HttpClient {
 public:
  virtual ~HttpClient() = default;
  // The platform's answer, whatever its status; an Error (code "fetch_failed") when there is
  // none: a bad URL, a refused scheme, a failed connection or TLS verification, a timeout.
  virtual Result<HttpAnswer> send(const HttpRequest& request) = 0;
};

class BeastHttpClient final : public HttpClient {
 public:
  explicit BeastHttpClient(bool allow_http,
                           std::chrono::milliseconds timeout = limits::kLtiFetchTimeout)
      : allow_http_(allow_http), timeout_(timeout) {}
  Result<HttpAnswer> send(const HttpRequest& request) override;

 private:
  const bool allow_http_;
  const std::chrono::milliseconds timeout_;
};

// The parts of an http(s) URL: scheme, host (IPv6 without brackets), port, target (path and
// query, "/" when empty). Nullopt for anything else (user info, a fragment, a bad port).
struct UrlParts {
  bool https = false;
  std::string host, port, target;
};
std::optional<UrlParts> split_url(std::string_view url);

}  // namespace headgrader::lti
