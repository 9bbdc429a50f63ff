// Connections to one database, lent one at a time: opened when none is idle (up to a cap,
// beyond which a borrower waits), returned when the lease ends, dropped when broken so that
// the next borrower connects again (a PostgreSQL server that restarted).
// Thread-safety: every method may be called from any thread.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "sql_connection.h"

namespace headgrader::store {

class ConnectionPool {
 public:
  using Opener = std::function<Result<std::unique_ptr<SqlConnection>>()>;

  // A borrowed connection; returned to the pool (or dropped, when broken) on destruction.
  class Lease {
   public:
    Lease(ConnectionPool* pool, std::unique_ptr<SqlConnection> connection)
        : pool_(pool), connection_(std::move(connection)) {}
    Lease(Lease&&) = default;
    Lease& operator=(Lease&&) = delete;
    ~Lease() {
      if (connection_) pool_->give_back(std::move(connection_));
    }
    SqlConnection& operator*() const { return *connection_; }
    SqlConnection* operator->() const { return connection_.get(); }

   private:
    ConnectionPool* pool_;
    std::unique_ptr<SqlConnection> connection_;
  };

  ConnectionPool(Opener opener, std::size_t capacity)
      : opener_(std::move(opener)), capacity_(capacity) {}

  // An idle connection, a new one, or (at the cap) the next one returned.
  Result<Lease> borrow();

 private:
  void give_back(std::unique_ptr<SqlConnection> connection);

  const Opener opener_;
  const std::size_t capacity_;
  std::mutex mutex_;
  std::condition_variable returned_;
  std::vector<std::unique_ptr<SqlConnection>> idle_;
  std::size_t open_ = 0;  // idle and lent
};

}  // namespace headgrader::store
