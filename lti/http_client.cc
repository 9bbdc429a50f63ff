#include "http_client.h"

#include <openssl/ssl.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <charconv>
#include <optional>

namespace headgrader::lti {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;

Error fetch_error(const std::string& url, const std::string& why) {
  return Error{ErrorCode::kFetchFailed, url + ": " + why, ""};
}

// Writes the request and reads the answer on `stream` (plain or TLS), already connected.
template <typename Stream>
void exchange(Stream& stream, http::request<http::string_body>& request, beast::flat_buffer& buffer,
              http::response_parser<http::string_body>& parser, beast::error_code& failure,
              bool& done) {
  http::async_write(stream, request, [&](beast::error_code ec, std::size_t) {
    if (ec) {
      failure = ec;
      done = true;
      return;
    }
    http::async_read(stream, buffer, parser, [&](beast::error_code read_ec, std::size_t) {
      failure = read_ec;
      done = true;
    });
  });
}

}  // namespace

std::optional<UrlParts> split_url(std::string_view url) {
  UrlParts parts;
  if (url.starts_with("https://")) {
    parts.https = true;
    url.remove_prefix(8);
  } else if (url.starts_with("http://")) {
    url.remove_prefix(7);
  } else {
    return std::nullopt;
  }
  if (url.find('#') != std::string_view::npos) return std::nullopt;
  const std::size_t end = url.find_first_of("/?");
  std::string_view authority = url.substr(0, end);
  parts.target = end == std::string_view::npos ? "/" : std::string(url.substr(end));
  if (parts.target.front() == '?') parts.target.insert(0, "/");
  if (authority.empty() || authority.find('@') != std::string_view::npos) return std::nullopt;
  std::string_view port;
  if (authority.front() == '[') {
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    parts.host = std::string(authority.substr(1, close - 1));
    const std::string_view rest = authority.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return std::nullopt;
      port = rest.substr(1);
    }
  } else {
    const std::size_t colon = authority.find(':');
    parts.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  if (parts.host.empty()) return std::nullopt;
  if (port.empty()) {
    parts.port = parts.https ? "443" : "80";
  } else {
    unsigned number = 0;
    const auto [ptr, ec] = std::from_chars(port.data(), port.data() + port.size(), number);
    if (ec != std::errc() || ptr != port.data() + port.size() || number == 0 || number > 65535) {
      return std::nullopt;
    }
    parts.port = std::string(port);
  }
  return parts;
}

Result<HttpAnswer> BeastHttpClient::send(const HttpRequest& request) {
  const std::optional<UrlParts> url = split_url(request.url);
  if (!url) return fetch_error(request.url, "not an http(s) URL");
  if (!url->https && !allow_http_) {
    return fetch_error(request.url, "plain http:// is refused (only with --lti-allow-http)");
  }

  http::request<http::string_body> message{
      request.method == "POST" ? http::verb::post : http::verb::get, url->target, 11};
  const bool default_port = url->port == (url->https ? "443" : "80");
  const std::string host_header =
      (url->host.find(':') != std::string::npos ? "[" + url->host + "]" : url->host) +
      (default_port ? "" : ":" + url->port);
  message.set(http::field::host, host_header);
  message.set(http::field::user_agent, "headgrader-lti");
  for (const auto& [name, value] : request.headers) message.set(name, value);
  message.keep_alive(false);
  if (request.method == "POST") {
    message.body() = request.body;
    message.prepare_payload();
  }

  net::io_context ioc;
  tcp::resolver resolver(ioc);
  ssl::context tls(ssl::context::tls_client);
  tls.set_default_verify_paths();
  tls.set_verify_mode(ssl::verify_peer);
  std::optional<beast::tcp_stream> plain;
  std::optional<beast::ssl_stream<beast::tcp_stream>> secure;
  if (url->https) {
    secure.emplace(ioc, tls);
    secure->set_verify_callback(ssl::host_name_verification(url->host));
    // SNI; an IP address is not sent as a name (RFC 6066 §3).
    beast::error_code ip_ec;
    net::ip::make_address(url->host, ip_ec);
    if (ip_ec && !SSL_set_tlsext_host_name(secure->native_handle(), url->host.c_str())) {
      return fetch_error(request.url, "cannot set the TLS server name");
    }
  } else {
    plain.emplace(ioc);
  }
  beast::tcp_stream& tcp_layer = url->https ? beast::get_lowest_layer(*secure) : *plain;

  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(limits::kLtiMaxFetchBytes);
  beast::error_code failure;
  bool done = false;
  resolver.async_resolve(
      url->host, url->port, [&](beast::error_code ec, tcp::resolver::results_type results) {
        if (ec) {
          failure = ec;
          done = true;
          return;
        }
        tcp_layer.expires_after(timeout_);
        tcp_layer.async_connect(results, [&](beast::error_code connect_ec, const tcp::endpoint&) {
          if (connect_ec) {
            failure = connect_ec;
            done = true;
            return;
          }
          if (!url->https) {
            exchange(*plain, message, buffer, parser, failure, done);
            return;
          }
          secure->async_handshake(ssl::stream_base::client, [&](beast::error_code handshake_ec) {
            if (handshake_ec) {
              failure = handshake_ec;
              done = true;
              return;
            }
            exchange(*secure, message, buffer, parser, failure, done);
          });
        });
      });
  ioc.run_for(timeout_);
  if (!done) {
    resolver.cancel();
    tcp_layer.cancel();
    ioc.restart();
    ioc.run();
    return fetch_error(request.url, "no answer within " + std::to_string(timeout_.count()) + " ms");
  }
  if (failure) return fetch_error(request.url, failure.message());
  const auto& response = parser.get();
  HttpAnswer answer;
  answer.status = static_cast<int>(response.result_int());
  answer.body = response.body();
  answer.content_type = std::string(response[http::field::content_type]);
  answer.retry_after = std::string(response[http::field::retry_after]);
  return answer;
}

}  // namespace headgrader::lti
