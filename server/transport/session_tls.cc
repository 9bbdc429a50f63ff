// Session's start on an HTTPS port (session.h): the ClientHello awaited, plain HTTP told
// apart and answered in plain words, the handshake, and the close_notify at the end.
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <utility>

#include "error_response.h"
#include "session.h"

namespace headgrader::server {
namespace {

// The first byte of a TLS connection: a handshake record (RFC 8446 §5.1, content type 22).
constexpr unsigned char kTlsHandshakeRecord = 0x16;

}  // namespace

// The hello and the handshake are under the read timeout, as a first request is: a client
// that never completes it is closed, and counts toward the connection caps meanwhile.
void Session::do_await_hello() {
  idle_ = true;  // shutdown() closes it as it closes a connection waiting for a request
  set_deadline(std::chrono::steady_clock::now() + timeouts_.read);
  socket_.async_wait(tcp::socket::wait_read,
                     beast::bind_front_handler(&Session::on_hello, shared_from_this()));
}

void Session::on_hello(beast::error_code ec) {
  if (ec || shutting_down_) {
    idle_ = false;
    return do_close();
  }
  unsigned char first = 0;
  const ssize_t n = ::recv(socket_.native_handle(), &first, 1, MSG_PEEK | MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
    return socket_.async_wait(tcp::socket::wait_read,
                              beast::bind_front_handler(&Session::on_hello, shared_from_this()));
  }
  if (n <= 0) {  // closed or reset before a byte
    idle_ = false;
    return do_close();
  }
  if (first != kTlsHandshakeRecord) {
    // Plain HTTP (an http:// URL for an https:// server): told so in plain HTTP, and closed.
    idle_ = false;
    tls_.reset();
    pending_ = {std::chrono::steady_clock::now(),
                std::chrono::system_clock::now(),
                "",
                "",
                "",
                std::nullopt,
                ""};
    const Error error{ErrorCode::kBadRequest,
                      "this port speaks HTTPS: a connection must begin with a TLS handshake, "
                      "and this one began with plain bytes; use an https:// URL",
                      ""};
    return do_write(error_response(error, 11, false), /*linger=*/true);
  }
  tls_->async_handshake(net::ssl::stream_base::server,
                        beast::bind_front_handler(&Session::on_handshake, shared_from_this()));
}

void Session::on_handshake(beast::error_code ec) {
  idle_ = false;
  // Not TLS after all, no common version or cipher, the deadline, or shutdown().
  if (ec) return do_close();
  after_handshake();
}

void Session::after_handshake() {
  if (!rejection_) return do_wait();
  const Error error = std::move(*rejection_);
  rejection_.reset();
  do_write(error_response(error, 11, false), /*linger=*/true);
}

void Session::send_close_notify() {
  if (!tls_) return;
  // The socket is non-blocking: the alert goes if the socket takes it now, and the wait for
  // the client's own close_notify ends at once (would_block), which is all that is wanted.
  beast::error_code ignored;
  tls_->shutdown(ignored);
}

}  // namespace headgrader::server
