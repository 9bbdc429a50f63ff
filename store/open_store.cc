// open_store(), record ids and the time they start with.
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <random>

#include "postgres/postgres_connection.h"
#include "sql_store.h"
#include "sqlite/sqlite_connection.h"
#include "submission_store.h"

namespace headgrader::store {

Result<std::unique_ptr<SubmissionStore>> open_store(std::string_view url) {
  const auto with_field = [](Error error) {
    error.field = "store";
    return error;
  };
  Result<std::unique_ptr<SubmissionStore>> opened = store_error("");
  if (url.starts_with("sqlite:")) {
    const std::filesystem::path path(std::string(url.substr(7)));
    if (path.empty()) {
      return with_field(store_error("sqlite: needs a file, e.g. sqlite:headgrader.db"));
    }
    auto identity = std::make_shared<SqliteFileIdentity>();
    opened = SqlStore::open(Dialect::kSqlite,
                            [path, identity] { return SqliteConnection::open(path, identity); });
  } else if (url.starts_with("postgresql://") || url.starts_with("postgres://")) {
    const std::string uri(url);
    opened = SqlStore::open(Dialect::kPostgres, [uri] { return PostgresConnection::open(uri); });
  } else {
    return with_field(store_error(
        "the store must be sqlite:PATH, postgresql://USER:PASSWORD@HOST:PORT/DB or none"));
  }
  if (!opened) return with_field(opened.error());
  return opened;
}

std::string new_submission_id(TimeMs time) {
  // Monotonic within a millisecond: an id made in the same millisecond as the last one
  // continues from it, so that one server's records of one millisecond sort in the order
  // they were made ("newest first" means it) and never collide; between servers the random
  // part keeps them apart, and ids of different times sort by time.
  static std::mutex mutex;
  static std::mt19937_64 random([] {
    std::random_device device;
    return (static_cast<std::uint64_t>(device()) << 32) ^ device();
  }());
  static std::uint64_t last_time = 0, last_random = 0;
  std::uint64_t ms = static_cast<std::uint64_t>(time) & 0xffffffffffffULL, tail = 0;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (ms == last_time && last_random != UINT64_MAX) {
      tail = last_random + 1;
    } else {
      tail = random() >> 1;  // room to count up within a millisecond
    }
    last_time = ms;
    last_random = tail;
  }
  char id[29];
  std::snprintf(id, sizeof id, "%012llx%016llx", static_cast<unsigned long long>(ms),
                static_cast<unsigned long long>(tail));
  return id;
}

TimeMs now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace headgrader::store
