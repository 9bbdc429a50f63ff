// The export of the whole record (GET /v1/submissions.csv, API.md §8) against the real
// binaries: streamed off the io threads page by page (healthz stays fast), chunked over
// HTTP/1.1, unframed over HTTP/1.0, a head alone for HEAD, the same bytes as its pages, and
// about one page held for a client that reads slowly.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "csv_reader.h"
#include "hostile_client.h"
#include "record_routes_support.h"
#include "server_harness.h"
#include "test_support.h"

namespace headgrader::server {
namespace {

using testing::kGradePath;
using testing::kHandoutSolution;
using testing::kSwappedValues;
using testing::kWrongKey;
using testing::with_student;

using namespace harness;
using record_routes_testing::get_whole;
using record_routes_testing::RecordRoutes;
using store::testing::Backend;

// A large record, exported twice at once: the exports run off the io threads, so /healthz
// stays fast (a generous bound: on the io threads it waited for the exports, seconds), and
// the CSV written page by page holds every record, the same bytes in each export.
TEST_P(RecordRoutes, TwoExportsOfALargeRecordLeaveHealthzFast) {
  if (GetParam() != Backend::kSqlite) GTEST_SKIP() << "the record is filled with SQLite's SQL";
  const std::uint16_t port = start({"--threads", "2"});
  ASSERT_NE(port, 0);
  ASSERT_EQ(grade(port, with_student(kWrongKey, "template")).result(), http::status::ok);
  // 200 000 copies of that record, each with an id of its own, written directly. Under
  // AddressSanitizer a tenth: still 20 pages each way, and a minute less of the sanitizer stage.
  constexpr int kRecords = testing::full_or_sanitized(200000, 20000);
  ASSERT_NO_FATAL_FAILURE(copy_the_record(kRecords));
  std::string exports[2];
  std::thread exporters[2];
  std::atomic<int> done{0};
  for (int i = 0; i < 2; ++i) {
    exporters[i] = std::thread([&, i] {
      try {
        const HttpResponse answer = get_whole(port, "/v1/submissions.csv", staff_);
        if (answer.result() == http::status::ok) exports[i] = answer.body();
      } catch (const std::exception&) {
        // no answer: exports[i] stays empty and the test says so below
      }
      ++done;
    });
  }
  auto slowest = std::chrono::steady_clock::duration::zero();
  int asked = 0;
  while (done.load() < 2) {
    const auto before = std::chrono::steady_clock::now();
    const HttpResponse health = call(port, "GET", "/healthz");
    slowest = std::max(slowest, std::chrono::steady_clock::now() - before);
    EXPECT_EQ(health.result(), http::status::ok);
    ++asked;
    std::this_thread::sleep_for(20ms);
  }
  for (auto& exporter : exporters) exporter.join();
  EXPECT_GT(asked, 0);
  EXPECT_LT(slowest, 1500ms)
      << "/healthz waited "
      << std::chrono::duration_cast<std::chrono::milliseconds>(slowest).count()
      << " ms behind two exports";
  ASSERT_FALSE(exports[0].empty());
  EXPECT_EQ(exports[0], exports[1]);
  const auto rows = testing_csv::parse_csv(exports[0]);
  ASSERT_EQ(rows.size(), static_cast<std::size_t>(kRecords) + 2);  // the header and the template
  EXPECT_EQ(rows[0][0], "id");
  // The same rows as the pages of the paged CSV, one after the other.
  const std::string paged = paged_export(port);
  EXPECT_TRUE(paged == exports[0]) << "the export differs from its pages";
}

// What a raw HTTP client gets for `request` until the server closes the connection, or until
// `enough` bytes when that comes first.
std::string read_raw(std::uint16_t port, const std::string& request,
                     std::size_t enough = std::string::npos) {
  net::io_context ioc;
  tcp::socket socket(ioc);
  socket.connect(tcp::endpoint(net::ip::address_v4::loopback(), port));
  timeval timeout{60, 0};
  ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  net::write(socket, net::buffer(request));
  std::string got;
  char buffer[65536];
  beast::error_code ec;
  while (got.size() < enough) {
    const std::size_t n = socket.read_some(net::buffer(buffer), ec);
    if (ec) break;
    got.append(buffer, n);
  }
  return got;
}

std::string export_request(const std::string& version, const std::string& key,
                           const std::string& method = "GET") {
  return method + " /v1/submissions.csv HTTP/" + version + "\r\nHost: x\r\nAuthorization: Bearer " +
         key + "\r\nConnection: close\r\n\r\n";
}

TEST_P(RecordRoutes, AnExportIsStreamedChunkedAndTheSameOverHttp10AndHead) {
  if (GetParam() != Backend::kSqlite) GTEST_SKIP() << "the record is filled with SQLite's SQL";
  const std::uint16_t port = start();
  ASSERT_NE(port, 0);
  ASSERT_EQ(grade(port, with_student(kWrongKey, "template")).result(), http::status::ok);
  // More than one page of the export (limits::kCsvExportPageRecords).
  ASSERT_NO_FATAL_FAILURE(copy_the_record(2500));
  const HttpResponse whole = get_whole(port, "/v1/submissions.csv", staff_);
  ASSERT_EQ(whole.result(), http::status::ok);
  EXPECT_EQ(whole[http::field::transfer_encoding], "chunked");
  EXPECT_EQ(whole.find(http::field::content_length), whole.end());
  EXPECT_EQ(whole[http::field::content_type], "text/csv; charset=utf-8");
  EXPECT_EQ(testing_csv::parse_csv(whole.body()).size(), 2502u);  // header, template, copies
  // The same bytes as the pages of the paged CSV, one after the other.
  const std::string paged = paged_export(port);
  EXPECT_TRUE(paged == whole.body()) << "the export differs from its pages";
  EXPECT_EQ(whole.find("X-Next-Cursor"), whole.end());

  // HTTP/1.0 knows no chunks: the body, unframed, ends with the connection.
  const std::string old = read_raw(port, export_request("1.0", staff_));
  const std::size_t head_end = old.find("\r\n\r\n");
  ASSERT_NE(head_end, std::string::npos) << old.substr(0, 200);
  EXPECT_TRUE(old.starts_with("HTTP/1.0 200")) << old.substr(0, head_end);
  EXPECT_EQ(old.substr(0, head_end).find("chunked"), std::string::npos);
  EXPECT_TRUE(old.substr(head_end + 4) == whole.body()) << "HTTP/1.0's export differs";

  // HEAD: the head alone.
  const std::string head = read_raw(port, export_request("1.1", staff_, "HEAD"));
  EXPECT_TRUE(head.starts_with("HTTP/1.1 200")) << head.substr(0, 200);
  EXPECT_NE(head.find("text/csv"), std::string::npos);
  EXPECT_TRUE(head.ends_with("\r\n\r\n")) << "a HEAD answer with a body: " << head.size();
}

TEST_P(RecordRoutes, AnExportReadSlowlyHoldsAboutOnePageNotTheWholeCsv) {
  if (testing::kUnderAddressSanitizer) {
    GTEST_SKIP() << "RSS under AddressSanitizer counts its quarantine";
  }
  if (GetParam() != Backend::kSqlite) GTEST_SKIP() << "the record is filled with SQLite's SQL";
  const std::uint16_t port = start({"--threads", "2"});
  ASSERT_NE(port, 0);
  ASSERT_EQ(grade(port, with_student(kWrongKey, "template")).result(), http::status::ok);
  // 200 000 records: a CSV of about 24 MB.
  ASSERT_NO_FATAL_FAILURE(copy_the_record(200000));
  // The store and the code paths warmed by pages of the CSV, which the server always held.
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(get_whole(port, "/v1/submissions.csv?limit=1000", staff_).result(), http::status::ok);
  }
  const std::size_t before = rss_bytes(server_->pid());
  // A client that reads 1 MB of the export, then nothing for a while.
  net::io_context ioc;
  tcp::socket socket(ioc);
  socket.open(tcp::v4());
  int receive_buffer = 64 * 1024;
  ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVBUF, &receive_buffer,
               sizeof receive_buffer);
  socket.connect(tcp::endpoint(net::ip::address_v4::loopback(), port));
  timeval timeout{60, 0};
  ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  net::write(socket,
             net::buffer("GET /v1/submissions.csv HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
                         staff_ + "\r\n\r\n"));
  std::string got;
  char buffer[16384];
  while (got.size() < (1u << 20)) {
    beast::error_code ec;
    const std::size_t n = socket.read_some(net::buffer(buffer), ec);
    ASSERT_FALSE(ec) << ec.message() << " after " << got.size() << " bytes";
    got.append(buffer, n);
  }
  ASSERT_TRUE(got.starts_with("HTTP/1.1 200")) << got.substr(0, 200);
  std::this_thread::sleep_for(2s);
  const std::size_t during = rss_bytes(server_->pid());
  EXPECT_LT(during, before + 8 * 1024 * 1024)
      << "the server's RSS grew by " << (during - before) / 1024
      << " KB while one export of about 24 MB was held half-read";
  EXPECT_LT(health_ms(port), 1500.0);
  socket.close();
  // The client that hung up ends the export; the server goes on.
  EXPECT_EQ(call(port, "GET", "/healthz").result(), http::status::ok);
}

}  // namespace
}  // namespace headgrader::server
