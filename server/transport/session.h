// One client connection: HTTP/1.1 with keep-alive, each request handed to the Router and its
// answer written back, on the connection's own strand. A request is read in steps (wait for
// its first byte, then its header and body, parsed from what is buffered and read from the
// socket only when missing), each under a deadline from limits.h; a request the parser
// refuses (too large, malformed) is answered with JSON before closing. The answer is written
// at once when the socket takes it, asynchronously only for what it does not.
// The deadlines are kept by one timer per connection that is not moved with each step:
// moving a deadline later only records it, and the timer, when it fires early, sleeps again
// until the recorded one. A timer cancelled and re-armed for each read and write (as
// beast::tcp_stream does) cost a sixth of a grading's server time and a third of a
// /healthz's (docs/benchmarks.md).
// With a TLS context (--tls-cert), the connection first waits for the client's hello and
// handshakes, under the read timeout, and then speaks the same HTTP through the TLS stream;
// its answers are always written asynchronously (docs/deploy.md, HTTPS).
// Thread-safety: a Session lives on its strand; only shutdown() may be called from elsewhere.
#pragma once

#include <array>
#include <atomic>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "access_log.h"
#include "connections.h"
#include "headgrader/limits.h"
#include "long_gradings.h"
#include "request_id.h"
#include "router.h"

namespace headgrader::server {

namespace net = boost::asio;
namespace beast = boost::beast;
using tcp = net::ip::tcp;

// How long a client may take, per connection. limits.h fixes the service's values; tests
// shorten them through the server's hidden --read-timeout-ms flag (docs/hardening.md).
struct SessionTimeouts {
  std::chrono::milliseconds read = limits::kReadTimeout;  // a whole request, from its first byte
  std::chrono::milliseconds idle = limits::kIdleTimeout;  // keep-alive between requests
};

class Session final : public Connection, public std::enable_shared_from_this<Session> {
 public:
  // `socket` should run on its own strand; `router`, `access_log` and `long_gradings` must
  // outlive the session. Without `long_gradings`, every request is answered on the strand.
  // With `tls` (which must outlive the session too), the connection speaks HTTPS.
  Session(tcp::socket&& socket, const Router& router, AccessLog& access_log,
          std::shared_ptr<Connections> connections, SessionTimeouts timeouts = {},
          LongGradings* long_gradings = nullptr, net::ssl::context* tls = nullptr);
  ~Session();

  // Serves requests until the client leaves, a deadline passes or shutdown() is called.
  void run();
  // Answers `error` once, without reading a request, and closes (the connection cap).
  void reject(Error error);
  // Thread-safe. Closes the connection now when it waits between requests with nothing sent
  // (a new connection: after limits::kShutdownFirstRequestWait, unless its request comes);
  // otherwise lets the current request finish, answers it with Connection: close, and closes.
  void shutdown() override;

 private:
  // What the access log line of the current request needs.
  struct Pending {
    std::chrono::steady_clock::time_point started;
    std::chrono::system_clock::time_point started_wall;
    std::string method, path, problem;
    std::optional<bool> passed;
    // The answer's X-Request-Id (request_id.h): the request's own when valid, else a new one;
    // empty until the header is read (an answer before it gets a new one).
    std::string request_id;
    const RouteRow* row = nullptr;  // the route table's row of the path, once routed
    bool in_flight = false;         // counted in headgrader_http_requests_in_flight
  };
  // Sets X-Request-Id on `response` (and, before the request's header, makes the id).
  template <class Message>
  void stamp_request_id(Message& response) {
    if (pending_.request_id.empty()) pending_.request_id = new_request_id();
    response.set(kRequestIdHeader, pending_.request_id);
  }

  void start();
  // HTTPS: the first byte decides between the handshake and a plain-HTTP client's 400.
  void do_await_hello();
  void on_hello(beast::error_code ec);
  void on_handshake(beast::error_code ec);
  // After the handshake: the cap's answer, if the connection was rejected, else do_wait().
  void after_handshake();
  // HTTPS: says goodbye in TLS (close_notify), when the socket takes it at once.
  void send_close_notify();
  // Calls `op` with the stream that carries HTTP: the TLS stream, or the socket.
  template <class Op>
  void with_stream(Op&& op) {
    if (tls_) {
      op(*tls_);
    } else {
      op(socket_);
    }
  }
  void do_wait();
  void on_wait(beast::error_code ec, std::size_t bytes);
  void start_request();
  // Feeds the parser what is already buffered, up to the end of the header or of the
  // message; an error only for a malformed request (need_more is not one).
  enum class Upto { kHeader, kMessage };
  beast::error_code parse_buffered(Upto upto);
  void do_read_header();
  void on_read_header(beast::error_code ec, std::size_t bytes);
  void on_header();
  void on_continue_written(beast::error_code ec, std::size_t bytes);
  void do_read_body();
  void on_read_body(beast::error_code ec, std::size_t bytes);
  void answer();
  void route_here();
  // Runs work(request) (Routed::rest) on the long-grading threads; `reserved` bytes of the
  // unsent-answer budget, held already, are released when its answer is written or dropped.
  void route_long(std::function<Routed(const Request&)> work, std::size_t reserved);
  void watch_client();
  // Whether the client has closed its side or reset the connection (peeked, not read).
  bool client_gone() const;
  void write_answer(Routed routed);
  // A streamed body (Routed::stream, body_stream.h; session_stream.cc): its head, then each
  // piece read off the io threads once the previous one is written, chunked for HTTP/1.1;
  // for HTTP/1.0 without framing, the connection's end ending it.
  void write_stream(Routed routed);
  void on_stream_head(beast::error_code ec, std::size_t bytes);
  void read_next_piece();
  void on_next_piece(Result<std::optional<std::string>> piece);
  void on_piece_written(beast::error_code ec, std::size_t bytes);
  void on_stream_end(beast::error_code ec, std::size_t bytes);
  void on_read_error(beast::error_code ec);
  void do_write(Response response, bool linger);
  void on_write(beast::error_code ec, std::size_t bytes);
  void do_linger();
  void on_linger(beast::error_code ec, std::size_t bytes);
  void do_close();
  void log_answer() const;
  // The answer in response_ counted in the metrics (headgrader_http_requests_total).
  void count_answer();

  // The connection is closed at `deadline` unless it is set again before.
  void set_deadline(std::chrono::steady_clock::time_point deadline);
  void arm_watchdog(std::chrono::steady_clock::time_point at);
  void on_watchdog(beast::error_code ec);

  tcp::socket socket_;
  // Over socket_ with --tls-cert; reset when a plain-HTTP client is answered instead.
  std::optional<beast::ssl_stream<tcp::socket&>> tls_;
  std::optional<Error> rejection_;  // HTTPS: the cap's answer, written after the handshake
  net::ip::address address_;        // the client's
  net::steady_timer watchdog_;      // fires no later than expiry_
  std::chrono::steady_clock::time_point expiry_;
  // When the watchdog fires; max() when it is not armed.
  std::chrono::steady_clock::time_point armed_at_ = std::chrono::steady_clock::time_point::max();
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;  // one per request
  const Router& router_;
  LongGradings* const long_gradings_;
  AccessLog& access_log_;
  std::shared_ptr<Connections> connections_;
  const SessionTimeouts timeouts_;
  // No step's deadline is nearer than this (but lingering): the timer, re-armed, fires no
  // later than this from now, so that the next step does not have to move it.
  const std::chrono::milliseconds shortest_timeout_;

  Response response_;                                                       // alive while written
  std::optional<http::response_serializer<http::string_body>> serializer_;  // of response_
  http::response<http::empty_body> continue_;  // "100 Continue", alive while written
  bool linger_after_write_ = false;
  // A streamed body's: its source, the head being written and the piece being written.
  std::shared_ptr<BodyStream> stream_;
  std::optional<http::response<http::empty_body>> stream_head_;
  std::optional<http::response_serializer<http::empty_body>> stream_head_serializer_;
  std::string piece_;
  bool stream_chunked_ = false;
  std::size_t unsent_held_ = 0;    // of response_, counted in connections_->answers()
  std::size_t header_fields_ = 0;  // fields of the current request's header (before trailers)
  Pending pending_;
  std::chrono::steady_clock::time_point request_deadline_;  // of the whole current request
  bool first_request_ = true;
  bool closed_ = false;
  bool idle_ = false;  // waiting for the first byte of a request
  bool shutting_down_ = false;
  // Set when the client of a long grading has gone: the grading is dropped or cut short.
  std::atomic<bool> abandoned_{false};
  std::size_t lingered_bytes_ = 0;
  std::array<char, 8192> discard_{};
};

}  // namespace headgrader::server
