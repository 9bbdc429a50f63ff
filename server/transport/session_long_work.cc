// Session's hand-off of long work (Routed::rest: a long grading, a large answer, a regrade,
// a problem file to load) to the long-grading threads, so that no io thread is held: the
// answer budget's reservation first, then the queue (429 when it is full), and meanwhile a
// watch for a client that hangs up, whose work is then dropped or cut short.
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "error_response.h"
#include "headgrader/grade_cancel.h"
#include "headgrader/limits.h"
#include "session.h"

namespace headgrader::server {

void Session::route_here() {
  Routed routed = router_.route_deferring(parser_->get());
  pending_.row = routed.row;
  if (!routed.rest) return write_answer(std::move(routed));
  // Long work, or a large answer: off the io threads, when there are threads for it.
  if (long_gradings_ == nullptr) return write_answer(routed.rest(parser_->get()));
  // Its answer counts against the unsent-answer budget while it is built, from when the
  // budget admits it (answer_budget.h), so that one address cannot have many built at once.
  const std::size_t reserved =
      static_cast<std::size_t>(std::min<std::uint64_t>(
          routed.rest_answer_numbers,
          std::numeric_limits<std::size_t>::max() / limits::kReservedBytesPerNumber)) *
      limits::kReservedBytesPerNumber;
  connections_->answers().when_room(
      address_, reserved,
      [self = shared_from_this(), rest = std::move(routed.rest), reserved]() mutable {
        net::dispatch(self->socket_.get_executor(),
                      [self, rest = std::move(rest), reserved]() mutable {
                        if (self->closed_) {
                          self->connections_->answers().release(self->address_, reserved);
                          return;
                        }
                        self->route_long(std::move(rest), reserved);
                      });
      });
}

void Session::route_long(std::function<Routed(const Request&)> work, std::size_t reserved) {
  // No deadline while it runs: the client waits for the answer, and SIGTERM's grace
  // period bounds the wait when the server stops.
  set_deadline(std::chrono::steady_clock::time_point::max());
  abandoned_.store(false);
  const bool queued =
      long_gradings_->post(address_, [self = shared_from_this(), work = std::move(work), reserved] {
        // The strand runs nothing of this connection's but watch_client() until the answer is back.
        Routed routed;
        if (!self->abandoned_.load() && !self->client_gone()) {
          const GradeCancelScope scope(self->abandoned_);
          routed = work(self->parser_->get());
        }
        // Handed on once the long-grading place is free again (long_gradings.h).
        return [self, routed = std::move(routed), reserved]() mutable {
          net::dispatch(self->socket_.get_executor(),
                        [self, routed = std::move(routed), reserved]() mutable {
                          if (reserved > 0)
                            self->connections_->answers().release(self->address_, reserved);
                          beast::error_code ignored;
                          self->socket_.cancel(ignored);  // watch_client()'s wait
                          // Nobody would read the answer (or it was cut short): the connection
                          // and body go.
                          if (self->abandoned_.load() || self->client_gone())
                            return self->do_close();
                          self->write_answer(std::move(routed));
                        });
        };
      });
  if (queued) return watch_client();
  if (reserved > 0) connections_->answers().release(address_, reserved);
  const std::size_t per_address = long_gradings_->max_per_address();
  Response response = error_response(
      {ErrorCode::kRateLimited,
       "this request takes long (a long grading, a large answer, a regrade or a problem file "
       "to load), and the server already has its maximum of such work queued or running (" +
           std::to_string(long_gradings_->max_total()) + " in all, " + std::to_string(per_address) +
           " per client address); try again in a few seconds",
       ""},
      parser_->get().version(), parser_->get().keep_alive());
  response.set(http::field::retry_after, std::to_string(limits::kLongGradingRetryAfter.count()));
  write_answer({std::move(response), "", std::nullopt});
}

// While a long grading is queued or runs: a client that hangs up has it dropped or cut short.
void Session::watch_client() {
  socket_.async_wait(tcp::socket::wait_read, [self = shared_from_this()](beast::error_code ec) {
    if (ec) return;  // cancelled: the answer is back
    // Readable: the client closed (or reset), or sent its next request early; only the
    // first ends the grading. The next request stays buffered in the socket for do_wait.
    if (self->client_gone()) self->abandoned_.store(true);
  });
}

bool Session::client_gone() const {
  char byte = 0;
  const ssize_t n =
      ::recv(const_cast<tcp::socket&>(socket_).native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  if (n == 0) return true;  // end of stream: the client has closed its side
  return n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
}

}  // namespace headgrader::server
