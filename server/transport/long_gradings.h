// Gradings that take long (an estimated cost over about 10 ms, or an answer that large) and
// the other work that may (Routed::rest: regrades, problem files to load) run here, on
// threads of their own, instead of on the threads that read and write: there they would hold
// up /healthz, every other connection and the handling of SIGTERM until they finished
// (docs/http.md, Long gradings). Their number is bounded, queued and running together,
// overall and per client address (limits.h), so that one client cannot queue up the others'
// wait; a grading whose client has gone by the time its turn comes is dropped unrun.
// Thread-safety: every member may be called from any thread.
#pragma once

#include <atomic>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <cstddef>
#include <map>
#include <mutex>
#include <utility>

#include "background_priority.h"
#include "headgrader/limits.h"

namespace headgrader::server {

class LongGradings {
 public:
  explicit LongGradings(unsigned threads, std::size_t max_total = limits::kMaxLongGradings,
                        std::size_t max_per_address = limits::kMaxLongGradingsPerAddress)
      : pool_(threads), max_total_(max_total), max_per_address_(max_per_address) {}

  // Runs work() on one of the threads, after the gradings posted before it; false (and
  // nothing runs) when `address` or the server has its maximum queued or running. work()
  // returns what hands its result on (a callable, such as one that posts the answer to its
  // connection), run once the work's place is given back: a client that sends its next long
  // request as soon as it has an answer must find that place free, however long this thread
  // (at a lower priority than the io threads) then waits for a core.
  template <class Work>
  bool post(const boost::asio::ip::address& address, Work work) {
    {
      const std::lock_guard lock(mutex_);
      std::size_t& mine = per_address_[address];
      if (mine >= max_per_address_ || total_ >= max_total_) {
        if (mine == 0) per_address_.erase(address);
        return false;
      }
      ++mine;
      ++total_;
    }
    running_.fetch_add(1);
    boost::asio::post(pool_, [this, address, work = std::move(work)]() mutable {
      run_at_background_priority();
      auto hand_on = work();
      {
        const std::lock_guard lock(mutex_);
        if (--per_address_[address] == 0) per_address_.erase(address);
        --total_;
      }
      hand_on();
      running_.fetch_sub(1);
    });
    return true;
  }

  // Posted and not finished: a stopping server cannot wait for these (each can take seconds)
  // nor free what they read.
  int running() const { return running_.load(); }
  std::size_t max_total() const { return max_total_; }
  std::size_t max_per_address() const { return max_per_address_; }

 private:
  boost::asio::thread_pool pool_;
  const std::size_t max_total_;
  const std::size_t max_per_address_;
  std::mutex mutex_;
  std::map<boost::asio::ip::address, std::size_t> per_address_;
  std::size_t total_ = 0;
  std::atomic<int> running_{0};
};

}  // namespace headgrader::server
