#include "connection_pool.h"

namespace headgrader::store {

Result<ConnectionPool::Lease> ConnectionPool::borrow() {
  {
    std::unique_lock lock(mutex_);
    returned_.wait(lock, [&] { return !idle_.empty() || open_ < capacity_; });
    if (!idle_.empty()) {
      std::unique_ptr<SqlConnection> connection = std::move(idle_.back());
      idle_.pop_back();
      return Lease(this, std::move(connection));
    }
    ++open_;  // reserved while connecting, outside the lock
  }
  Result<std::unique_ptr<SqlConnection>> opened = opener_();
  if (!opened) {
    const std::lock_guard lock(mutex_);
    --open_;
    returned_.notify_one();
    return opened.error();
  }
  return Lease(this, std::move(opened).value());
}

void ConnectionPool::give_back(std::unique_ptr<SqlConnection> connection) {
  const std::lock_guard lock(mutex_);
  if (connection->broken()) {
    --open_;
  } else {
    idle_.push_back(std::move(connection));
  }
  returned_.notify_one();
}

}  // namespace headgrader::store
