// RFC 3339 times (common/rfc3339.h): a record's `time`, the access log's, a score's timestamp,
// and the reader of a query's since/until.
#include "common/rfc3339.h"

#include <gtest/gtest.h>

#include <chrono>

namespace headgrader {
namespace {

TEST(RecordTime, FormatsAndParsesRfc3339WithMilliseconds) {
  EXPECT_EQ(format_rfc3339_ms(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(format_rfc3339_ms(1'796'083'445'123), "2026-12-01T00:04:05.123Z");
  EXPECT_EQ(parse_rfc3339("2026-12-01T00:04:05.123Z"), 1'796'083'445'123);
  EXPECT_EQ(parse_rfc3339("2026-12-01T01:04:05.1234+01:00"), 1'796'083'445'123);
  EXPECT_EQ(parse_rfc3339("2026-12-01T00:04:05Z"), 1'796'083'445'000);
  EXPECT_FALSE(parse_rfc3339("2026-12-01"));
  EXPECT_FALSE(parse_rfc3339("2026-02-30T00:00:00Z"));
  EXPECT_FALSE(parse_rfc3339("2026-12-01T00:04:05"));
}

// 1'796'083'445'123 ms is 2026-12-01T00:04:05.123Z (20 788 days from 1970 to 2026-12-01, by
// `date -u -d 2026-12-01 +%s` / 86400).
TEST(RecordTime, ATimePointIsWrittenAsItsMilliseconds) {
  const std::chrono::system_clock::time_point at{std::chrono::microseconds(1'796'083'445'123'999)};
  EXPECT_EQ(rfc3339_millis(at), "2026-12-01T00:04:05.123Z");  // cut, not rounded
  Rfc3339Text text;
  EXPECT_EQ(write_rfc3339_ms(at, text), "2026-12-01T00:04:05.123Z");
}

}  // namespace
}  // namespace headgrader
