#include "listener.h"

#include <boost/asio/strand.hpp>
#include <chrono>
#include <string>
#include <utility>

#include "headgrader/limits.h"

namespace headgrader::server {

Result<std::shared_ptr<Listener>> Listener::open(
    net::io_context& ioc, const tcp::endpoint& endpoint, const Router& router,
    AccessLog& access_log, std::size_t max_connections, SessionTimeouts timeouts,
    LongGradings* long_gradings, ListenerShares shares, net::ssl::context* tls) {
  auto listener = std::make_shared<Listener>(ioc, router, access_log, max_connections, timeouts,
                                             long_gradings, shares, tls);
  tcp::acceptor& acceptor = listener->acceptor_;
  beast::error_code ec;
  const auto fail = [&](const char* step) {
    std::string where = endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
    return Error{ErrorCode::kListenFailed,
                 std::string("cannot ") + step + " " + where + ": " + ec.message(), ""};
  };
  if (acceptor.open(endpoint.protocol(), ec); ec) return fail("open a socket for");
  if (acceptor.set_option(net::socket_base::reuse_address(true), ec); ec) {
    return fail("configure a socket for");
  }
  if (acceptor.bind(endpoint, ec); ec) return fail("bind to");
  if (acceptor.listen(net::socket_base::max_listen_connections, ec); ec) {
    return fail("listen on");
  }
  return listener;
}

Listener::Listener(net::io_context& ioc, const Router& router, AccessLog& access_log,
                   std::size_t max_connections, SessionTimeouts timeouts,
                   LongGradings* long_gradings, ListenerShares shares, net::ssl::context* tls)
    : ioc_(ioc),
      acceptor_(net::make_strand(ioc)),
      retry_timer_(acceptor_.get_executor()),
      router_(router),
      access_log_(access_log),
      long_gradings_(long_gradings),
      connections_(std::make_shared<Connections>(max_connections, shares.connections_per_address,
                                                 shares.unsent_answer_budget)),
      timeouts_(timeouts),
      tls_(tls) {}

tcp::endpoint Listener::local_endpoint() const {
  beast::error_code ec;
  return acceptor_.local_endpoint(ec);
}

void Listener::run() {
  net::dispatch(acceptor_.get_executor(),
                beast::bind_front_handler(&Listener::do_accept, shared_from_this()));
}

void Listener::shutdown() {
  net::dispatch(acceptor_.get_executor(), [self = shared_from_this()] {
    self->stopping_ = true;
    beast::error_code ignored;
    self->acceptor_.close(ignored);
    self->retry_timer_.cancel();
    self->connections_->shutdown_all();
  });
}

void Listener::do_accept() {
  if (stopping_) return;
  // Each connection gets its own strand: its handlers never run concurrently.
  acceptor_.async_accept(net::make_strand(ioc_),
                         beast::bind_front_handler(&Listener::on_accept, shared_from_this()));
}

void Listener::on_accept(beast::error_code ec, tcp::socket socket) {
  if (stopping_ || ec == net::error::operation_aborted) return;
  if (ec) {
    // Out of descriptors or memory: wait a little rather than spin on the same error.
    retry_timer_.expires_after(limits::kAcceptRetryDelay);
    retry_timer_.async_wait([self = shared_from_this()](beast::error_code wait_ec) {
      if (!wait_ec) self->do_accept();
    });
    return;
  }
  beast::error_code ignored;
  const net::ip::address address = socket.remote_endpoint(ignored).address();
  auto session = std::make_shared<Session>(std::move(socket), router_, access_log_, connections_,
                                           timeouts_, long_gradings_, tls_);
  if (std::optional<Error> refused = connections_->add(session, address)) {
    session->reject(std::move(*refused));
  } else {
    session->run();
  }
  do_accept();
}

}  // namespace headgrader::server
