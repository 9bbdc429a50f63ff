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
    held_[address] += bytes;
    total_ += bytes;
  }

  void release(const boost::asio::ip::address& address, std::size_t bytes) {
    std::vector<std::function<void()>> ready;
    {
      const std::lock_guard lock(mutex_);
      if (const auto it = held_.find(address); it != held_.end()) {
        it->second -= std::min(it->second, bytes);
        if (it->second == 0) held_.erase(it);
      }
      total_ -= std::min(total_, bytes);
      if (total_ < budget_) ready.swap(waiting_);
    }
    for (auto& resume : ready) resume();
  }

  // Calls resume() now (on this thread) when `address` may have its next answer, else once
  // the budget has room (on the thread that makes it). resume() must re-check.
  void when_room(const boost::asio::ip::address& address, std::function<void()> resume) {
    {
      const std::lock_guard lock(mutex_);
      if (must_wait(address)) {
        waiting_.push_back(std::move(resume));
        return;
      }
    }
    resume();
  }

  std::size_t held() const {
    const std::lock_guard lock(mutex_);
    return total_;
  }

 private:
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
  std::vector<std::function<void()>> waiting_;
};

}  // namespace headgrader::server
