// Accepts connections and starts a Session for each, each on its own strand, up to a cap
// (with a share per client address, and idle keep-alive connections closed to make room:
// connections.h): a connection over it gets a 503 JSON answer and is closed, instead of
// waiting in the backlog or being dropped. shutdown() stops accepting and winds the sessions
// down.
// Thread-safety: open/run once from one thread; shutdown() and connections() from any.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <memory>

#include "headgrader/limits.h"
#include "headgrader/result.h"
#include "router.h"
#include "session.h"

namespace headgrader::server {

// What one client may hold: limits.h's, unless a test lowers them (hidden flags).
struct ListenerShares {
  std::size_t connections_per_address = limits::kMaxConnectionsPerAddress;
  std::size_t unsent_answer_budget = limits::kUnsentAnswerBudget;
};

class Listener : public std::enable_shared_from_this<Listener> {
 public:
  // Binds and listens on `endpoint` (port 0: a free one). The error names the endpoint and
  // the system's reason. `router`, `access_log` and `long_gradings` must outlive the
  // listener and its sessions; without `long_gradings`, each session answers every request
  // on its own strand. With `tls` (which must outlive them too), every connection speaks
  // HTTPS.
  static Result<std::shared_ptr<Listener>> open(
      net::io_context& ioc, const tcp::endpoint& endpoint, const Router& router,
      AccessLog& access_log, std::size_t max_connections = limits::kMaxConnections,
      SessionTimeouts timeouts = {}, LongGradings* long_gradings = nullptr,
      ListenerShares shares = {}, net::ssl::context* tls = nullptr);

  Listener(net::io_context& ioc, const Router& router, AccessLog& access_log,
           std::size_t max_connections, SessionTimeouts timeouts = {},
           LongGradings* long_gradings = nullptr, ListenerShares shares = {},
           net::ssl::context* tls = nullptr);

  // Where it listens, with the real port.
  tcp::endpoint local_endpoint() const;
  // Starts accepting.
  void run();
  // Thread-safe: stops accepting, closes idle connections, lets busy ones finish their
  // current request and close.
  void shutdown();
  // Connections being served (rejected ones not counted).
  std::size_t connections() const { return connections_->size(); }

 private:
  void do_accept();
  void on_accept(beast::error_code ec, tcp::socket socket);

  net::io_context& ioc_;
  tcp::acceptor acceptor_;
  net::steady_timer retry_timer_;  // after an accept error such as "too many open files"
  const Router& router_;
  AccessLog& access_log_;
  LongGradings* const long_gradings_;
  std::shared_ptr<Connections> connections_;
  const SessionTimeouts timeouts_;
  net::ssl::context* const tls_;  // nullptr: plain HTTP
  bool stopping_ = false;
};

}  // namespace headgrader::server
