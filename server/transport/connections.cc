#include "connections.h"

#include <algorithm>
#include <string>
#include <vector>

namespace headgrader::server {

Connections::Connections(std::size_t capacity, std::size_t per_address,
                         std::size_t unsent_answer_budget)
    : capacity_(capacity),
      per_address_(std::clamp<std::size_t>(per_address, 1, std::max<std::size_t>(capacity, 1))),
      answers_(unsent_answer_budget) {}

std::optional<Error> Connections::add(const std::shared_ptr<Connection>& session,
                                      const boost::asio::ip::address& address) {
  std::shared_ptr<Connection> closing;
  {
    const std::lock_guard lock(mutex_);
    const std::size_t held = per_address_count_[address];
    if (held >= per_address_ || counted_ >= capacity_) {
      Entry* idle = pick_idle(address, /*only_from=*/held >= per_address_);
      if (idle == nullptr) {
        if (held == 0) per_address_count_.erase(address);
        if (held >= per_address_) {
          return Error{ErrorCode::kTooManyConnections,
                       "this client address holds its share of " + std::to_string(per_address_) +
                           " of the server's " + std::to_string(capacity_) +
                           " connections, each with a request in flight; try again shortly",
                       ""};
        }
        return Error{ErrorCode::kTooManyConnections,
                     "the server is serving its maximum of " + std::to_string(capacity_) +
                         " connections; try again shortly",
                     ""};
      }
      closing = idle->session.lock();
      evict(*idle);
    }
    sessions_.emplace(session.get(), Entry{session, address, std::nullopt, false});
    ++per_address_count_[address];
    ++counted_;
  }
  // Outside the lock: shutdown() may run the session's handler at once.
  if (closing) closing->shutdown();
  return std::nullopt;
}

Connections::Entry* Connections::pick_idle(const boost::asio::ip::address& from, bool only_from) {
  Entry* best = nullptr;
  std::size_t best_held = 0;
  for (auto& [key, entry] : sessions_) {
    if (entry.evicted || !entry.idle_since) continue;
    if (only_from && entry.address != from) continue;
    const std::size_t held = per_address_count_[entry.address];
    // The address that holds the most first, then the one idle the longest.
    if (best == nullptr || held > best_held ||
        (held == best_held && *entry.idle_since < *best->idle_since)) {
      best = &entry;
      best_held = held;
    }
  }
  return best;
}

void Connections::evict(Entry& entry) {
  entry.evicted = true;
  entry.idle_since.reset();
  --counted_;
  if (auto it = per_address_count_.find(entry.address); it != per_address_count_.end()) {
    if (--it->second == 0) per_address_count_.erase(it);
  }
}

void Connections::remove(const Connection* session) {
  const std::lock_guard lock(mutex_);
  const auto it = sessions_.find(session);
  if (it == sessions_.end()) return;
  if (!it->second.evicted) evict(it->second);
  sessions_.erase(it);
}

void Connections::set_idle(const Connection* session, bool idle) {
  const std::lock_guard lock(mutex_);
  const auto it = sessions_.find(session);
  if (it == sessions_.end() || it->second.evicted) return;
  if (idle) {
    it->second.idle_since = Clock::now();
  } else {
    it->second.idle_since.reset();
  }
}

std::size_t Connections::size() const {
  const std::lock_guard lock(mutex_);
  return sessions_.size();
}

void Connections::shutdown_all() {
  std::vector<std::shared_ptr<Connection>> open;
  {
    const std::lock_guard lock(mutex_);
    for (const auto& [key, entry] : sessions_) {
      if (auto session = entry.session.lock()) open.push_back(std::move(session));
    }
  }
  for (const auto& session : open) session->shutdown();
}

}  // namespace headgrader::server
