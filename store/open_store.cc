// open_store(), record ids and the record's times.
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <random>

#include "postgres_connection.h"
#include "sql_store.h"
#include "sqlite_connection.h"
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

std::string format_rfc3339_ms(TimeMs time) {
  const std::time_t seconds = static_cast<std::time_t>(time / 1000);
  const int millis = static_cast<int>(time % 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[96];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, millis);
  return text;
}

std::optional<TimeMs> parse_rfc3339(std::string_view text) {
  // YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)
  const auto digits = [&](std::size_t at, std::size_t n, int& out) {
    if (at + n > text.size()) return false;
    out = 0;
    for (std::size_t i = at; i < at + n; ++i) {
      if (text[i] < '0' || text[i] > '9') return false;
      out = out * 10 + (text[i] - '0');
    }
    return true;
  };
  int year, month, day, hour, minute, second;
  if (!digits(0, 4, year) || text.size() < 20 || text[4] != '-' || !digits(5, 2, month) ||
      text[7] != '-' || !digits(8, 2, day) || (text[10] != 'T' && text[10] != 't') ||
      !digits(11, 2, hour) || text[13] != ':' || !digits(14, 2, minute) || text[16] != ':' ||
      !digits(17, 2, second)) {
    return std::nullopt;
  }
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    return std::nullopt;
  }
  std::size_t at = 19;
  int millis = 0;
  if (text[at] == '.') {
    ++at;
    int place = 100, count = 0;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
      millis += (text[at] - '0') * place;
      place /= 10;
      ++at;
      ++count;
    }
    if (count == 0) return std::nullopt;
  }
  int offset_minutes = 0;
  if (at < text.size() && (text[at] == 'Z' || text[at] == 'z')) {
    ++at;
  } else if (at < text.size() && (text[at] == '+' || text[at] == '-')) {
    int oh, om;
    if (!digits(at + 1, 2, oh) || at + 3 >= text.size() || text[at + 3] != ':' ||
        !digits(at + 4, 2, om) || oh > 23 || om > 59) {
      return std::nullopt;
    }
    offset_minutes = (text[at] == '+' ? 1 : -1) * (oh * 60 + om);
    at += 6;
  } else {
    return std::nullopt;
  }
  if (at != text.size()) return std::nullopt;
  const std::chrono::year_month_day date{std::chrono::year(year), std::chrono::month(month),
                                         std::chrono::day(day)};
  if (!date.ok()) return std::nullopt;
  const auto days = std::chrono::sys_days(date).time_since_epoch().count();
  return ((static_cast<TimeMs>(days) * 86400 + hour * 3600 + minute * 60 + second) -
          offset_minutes * 60) *
             1000 +
         millis;
}

}  // namespace headgrader::store
