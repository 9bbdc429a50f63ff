// The open connections of a listener: so that shutdown can reach each one, and so that no
// client can hold them all. At the cap, the connection that has waited longest between
// requests (keep-alive, nothing in flight) is closed to make room, taken from the address
// that holds the most; one address holds at most its share of the cap whatever it does. A
// connection with a request in flight, or one still to send its first request (it is under
// the read timeout), is never closed to make room.
// Thread-safety: every member may be called from any thread.
#pragma once

#include <boost/asio/ip/address.hpp>
#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "answer_budget.h"
#include "headgrader/result.h"

namespace headgrader::server {

// What Connections holds of a connection: a way to close it. Session (session.h) is one, and
// this file needs nothing else of it.
class Connection {
 public:
  virtual ~Connection() = default;
  // Closes the connection; may be called from any thread.
  virtual void shutdown() = 0;
};

class Connections {
 public:
  // `per_address`: the most one client address may hold (clamped to 1..capacity).
  Connections(std::size_t capacity, std::size_t per_address, std::size_t unsent_answer_budget);

  // Admits `session`, from `address`, closing an idle connection to make room when needed;
  // the error (too_many_connections) when there is no room.
  std::optional<Error> add(const std::shared_ptr<Connection>& session,
                           const boost::asio::ip::address& address);
  void remove(const Connection* session);
  // Whether `session` waits between requests (keep-alive) and may be closed to make room.
  void set_idle(const Connection* session, bool idle);
  // Connections open, those closed to make room but not yet gone included.
  std::size_t size() const;
  std::size_t capacity() const { return capacity_; }
  std::size_t per_address() const { return per_address_; }
  // Connection::shutdown() on every open connection.
  void shutdown_all();
  // The answers written to clients that have not taken them yet.
  AnswerBudget& answers() { return answers_; }

 private:
  using Clock = std::chrono::steady_clock;
  struct Entry {
    std::weak_ptr<Connection> session;
    boost::asio::ip::address address;
    std::optional<Clock::time_point> idle_since;  // set while waiting between requests
    bool evicted = false;                         // closed to make room; no longer counted
  };

  // The idle connection to close for a newcomer from `from` (only from it when `only_from`),
  // or nullptr. Called with mutex_ held.
  Entry* pick_idle(const boost::asio::ip::address& from, bool only_from);
  void evict(Entry& entry);  // with mutex_ held

  const std::size_t capacity_;
  const std::size_t per_address_;
  AnswerBudget answers_;
  mutable std::mutex mutex_;
  std::unordered_map<const Connection*, Entry> sessions_;
  std::map<boost::asio::ip::address, std::size_t> per_address_count_;  // not evicted
  std::size_t counted_ = 0;                                            // not evicted
};

}  // namespace headgrader::server
