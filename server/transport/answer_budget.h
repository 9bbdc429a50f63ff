// The answers written to clients that have not taken them yet (bytes the socket would not
// accept at once), against a budget for the whole server (limits::kUnsentAnswerBudget). While
// it is spent, a connection from an address that holds at least an equal share of what is
// held waits before its next answer is computed, until the budget has room again: a client
// that asks for big answers and never reads them stops itself, not the others, and the
// memory held stays bounded (docs/hardening.md).
// Thread-safety: every member may be called from any thread.
#pragma once

#include <boost/asio/ip/address.hpp>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

namespace headgrader::server {

class AnswerBudget {
 public:
  explicit AnswerBudget(std::size_t budget) : budget_(budget) {}

  void hold(const boost::asio::ip::address& address, std::size_t bytes) {
    const std::lock_guard lock(mutex_);
    hold_locked(address, bytes);
  }

  // Also resumes, in the order they came, the waiters that may go on now (when_room).
  void release(const boost::asio::ip::address& address, std::size_t bytes) {
    std::vector<std::function<void()>> ready;
    {
      const std::lock_guard lock(mutex_);
      if (const auto it = held_.find(address); it != held_.end()) {
        it->second -= std::min(it->second, bytes);
        if (it->second == 0) held_.erase(it);
      }
      total_ -= std::min(total_, bytes);
      // Each checked again, and its reservation held at once, so that the waiters of one
      // address do not all go on together at the first release.
      std::vector<Waiter> still;
      for (Waiter& waiter : waiting_) {
        if (must_wait(waiter.address)) {
          still.push_back(std::move(waiter));
        } else {
          hold_locked(waiter.address, waiter.reserve);
          ready.push_back(std::move(waiter.resume));
        }
      }
      waiting_ = std::move(still);
    }
    for (auto& resume : ready) resume();
  }

  // Calls resume() now (on this thread) when `address` may have its next answer, else once
  // the budget has room for it (on the thread that releases); `reserve` bytes are held for
  // that address from then on (release them when the answer is written or dropped).
  void when_room(const boost::asio::ip::address& address, std::size_t reserve,
                 std::function<void()> resume) {
    {
      const std::lock_guard lock(mutex_);
      if (must_wait(address)) {
        waiting_.push_back({address, reserve, std::move(resume)});
        return;
      }
      hold_locked(address, reserve);
    }
    resume();
  }

  std::size_t held() const {
    const std::lock_guard lock(mutex_);
    return total_;
  }

 private:
  struct Waiter {
    boost::asio::ip::address address;
    std::size_t reserve = 0;
    std::function<void()> resume;
  };

  void hold_locked(const boost::asio::ip::address& address, std::size_t bytes) {
    if (bytes == 0) return;
    held_[address] += bytes;
    total_ += bytes;
  }

  bool must_wait(const boost::asio::ip::address& address) const {
    if (total_ < budget_) return false;
    const auto it = held_.find(address);
    const std::size_t mine = it == held_.end() ? 0 : it->second;
    return mine > 0 && mine * held_.size() >= total_;
  }

  const std::size_t budget_;
  mutable std::mutex mutex_;
  std::map<boost::asio::ip::address, std::size_t> held_;
  std::size_t total_ = 0;
  std::vector<Waiter> waiting_;
};

}  // namespace headgrader::server
