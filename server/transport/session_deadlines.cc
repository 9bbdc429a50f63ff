// Session's deadlines (session.h): one timer per connection, moved only when a step's
// deadline comes earlier than the one it is armed for, and closing the session when one
// passes.
#include <algorithm>
#include <chrono>

#include "session.h"

namespace headgrader::server {

void Session::set_deadline(std::chrono::steady_clock::time_point deadline) {
  if (closed_) return;  // a new wait would keep a closed session alive until it fires
  expiry_ = deadline;
  // Later than the timer: on_watchdog will find it. Earlier: the timer must move.
  if (deadline < armed_at_) arm_watchdog(deadline);
}

void Session::arm_watchdog(std::chrono::steady_clock::time_point at) {
  armed_at_ = at;
  watchdog_.expires_at(at);  // cancels a wait already pending: its handler sees aborted
  watchdog_.async_wait(beast::bind_front_handler(&Session::on_watchdog, shared_from_this()));
}

void Session::on_watchdog(beast::error_code ec) {
  if (ec == net::error::operation_aborted || closed_) return;  // moved, or closing
  armed_at_ = std::chrono::steady_clock::time_point::max();
  const auto now = std::chrono::steady_clock::now();
  if (now < expiry_) {
    // Not before the next step's deadline can be either, so that step need not move it.
    return arm_watchdog(std::min(expiry_, now + shortest_timeout_));
  }
  // Late: the pending read or write completes with operation_aborted and the session closes.
  do_close();
}

}  // namespace headgrader::server
