// Gradings that take long (Router::grades_long: seconds, for a problem near the string budget
// that is graded string by string) run here, on threads of their own, instead of on the
// threads that read and write: there they would hold up /healthz, every other connection
// and the handling of SIGTERM until they finished (README, Long gradings).
// Thread-safety: post() and running() from any thread.
#pragma once

#include <atomic>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <utility>

namespace headgrader::server {

class LongGradings {
 public:
  explicit LongGradings(unsigned threads) : pool_(threads) {}

  // Runs work() on one of the threads, after the gradings posted before it.
  template <class Work>
  void post(Work work) {
    running_.fetch_add(1);
    boost::asio::post(pool_, [this, work = std::move(work)]() mutable {
      work();
      running_.fetch_sub(1);
    });
  }

  // Posted and not finished: a stopping server cannot wait for these (each can take seconds)
  // nor free what they read.
  int running() const { return running_.load(); }

 private:
  boost::asio::thread_pool pool_;
  std::atomic<int> running_{0};
};

}  // namespace headgrader::server
