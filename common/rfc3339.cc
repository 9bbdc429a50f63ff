#include "common/rfc3339.h"

namespace headgrader {
namespace {

// `value` in `width` digits at least, zero-padded; returns the end.
char* write_digits(char* at, long long value, int width) {
  char digits[20];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value > 0 || n < width);
  while (n > 0) *at++ = digits[--n];
  return at;
}

}  // namespace

std::string_view write_rfc3339_ms(std::chrono::system_clock::time_point time, Rfc3339Text& text) {
  using namespace std::chrono;
  const auto millis = floor<milliseconds>(time);
  const auto day = floor<days>(millis);
  const year_month_day date(day);
  const hh_mm_ss clock(millis - day);
  char* at = text.data();
  at = write_digits(at, static_cast<int>(date.year()), 4);
  *at++ = '-';
  at = write_digits(at, static_cast<unsigned>(date.month()), 2);
  *at++ = '-';
  at = write_digits(at, static_cast<unsigned>(date.day()), 2);
  *at++ = 'T';
  at = write_digits(at, clock.hours().count(), 2);
  *at++ = ':';
  at = write_digits(at, clock.minutes().count(), 2);
  *at++ = ':';
  at = write_digits(at, clock.seconds().count(), 2);
  *at++ = '.';
  at = write_digits(at, clock.subseconds().count(), 3);
  *at++ = 'Z';
  return {text.data(), static_cast<std::size_t>(at - text.data())};
}

std::string rfc3339_millis(std::chrono::system_clock::time_point time) {
  Rfc3339Text text;
  return std::string(write_rfc3339_ms(time, text));
}

std::string format_rfc3339_ms(UnixMs time) {
  return rfc3339_millis(std::chrono::system_clock::time_point(std::chrono::milliseconds(time)));
}

std::optional<UnixMs> parse_rfc3339(std::string_view text) {
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
  return ((static_cast<UnixMs>(days) * 86400 + hour * 3600 + minute * 60 + second) -
          offset_minutes * 60) *
             1000 +
         millis;
}

}  // namespace headgrader
