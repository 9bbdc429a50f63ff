// Helpers for the tests that start the real headgrader-server binary on port 0 and speak to
// it over loopback TCP: the process (listening line, stderr log, exit status), a blocking
// HTTP client, and raw-bytes exchanges for requests no well-behaved client would send.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/connect.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace headgrader::server::harness {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using namespace std::chrono_literals;
using HttpResponse = http::response<http::string_body>;

// --- The server process -----------------------------------------------------------------------

struct ExitStatus {
  bool exited = false;
  int code = -1;
};

// Where the server's stderr (its access log) goes.
enum class StderrTo {
  kFile,        // read back with stderr_text()
  kClosedPipe,  // a pipe whose reader has gone: every write fails
};

// Runs the binary with `args`; stdout is a pipe (for the listening line), stderr a file.
class ServerProcess {
 public:
  // `working_dir`: where the server runs (empty: the tests' own working directory).
  // `store_none`: unless `args` name a --store, the server keeps no record (HEADGRADER_STORE
  // =none), so that the Part 1 tests compare answers byte for byte and leave no database
  // behind; false runs it with its real default (sqlite:headgrader.db in `working_dir`).
  explicit ServerProcess(std::vector<std::string> args, StderrTo stderr_to = StderrTo::kFile,
                         const std::filesystem::path& working_dir = {}, bool store_none = true) {
    static int counter = 0;
    stderr_path_ =
        std::filesystem::temp_directory_path() /
        ("headgrader-e2e-" + std::to_string(getpid()) + "-" + std::to_string(counter++) + ".log");
    int out[2], err_pipe[2] = {-1, -1};
    if (pipe(out) != 0) throw std::runtime_error("pipe");
    if (stderr_to == StderrTo::kClosedPipe && pipe(err_pipe) != 0) {
      throw std::runtime_error("pipe");
    }
    // HEADGRADER_TEST_SERVER_BIN runs the tests against another build's server, e.g. to see
    // a new test fail on the code before its fix (CONTRIBUTING.md).
    const char* other_bin = std::getenv("HEADGRADER_TEST_SERVER_BIN");
    args.insert(args.begin(),
                other_bin != nullptr && *other_bin != '\0' ? other_bin : HEADGRADER_SERVER_BIN);
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], STDOUT_FILENO);
      const int err = stderr_to == StderrTo::kClosedPipe
                          ? err_pipe[1]
                          : open(stderr_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(err, STDERR_FILENO);
      if (err_pipe[0] >= 0) close(err_pipe[0]);
      close(out[0]);
      close(out[1]);
      if (!working_dir.empty() && chdir(working_dir.c_str()) != 0) _exit(127);
      if (store_none) {
        setenv("HEADGRADER_STORE", "none", 0);
      } else {
        unsetenv("HEADGRADER_STORE");
      }
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(out[1]);
    stdout_ = out[0];
    if (err_pipe[0] >= 0) {  // nobody reads the server's stderr from here on
      close(err_pipe[0]);
      close(err_pipe[1]);
    }
  }
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  ~ServerProcess() {
    if (!reaped_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    close(stdout_);
    std::error_code ignored;
    std::filesystem::remove(stderr_path_, ignored);
  }

  // The next line on stdout, without its newline (what came of it after `timeout`).
  std::string read_line(std::chrono::milliseconds timeout = 10s) {
    // One byte per read, so that nothing after the newline is consumed.
    std::string line =
        read_stdout(timeout, 1, [](const std::string& text) { return text.ends_with('\n'); });
    if (line.ends_with('\n')) line.pop_back();
    return line;
  }

  // Everything on stdout until the process closes it (or `timeout`).
  std::string read_all(std::chrono::milliseconds timeout = 10s) {
    return read_stdout(timeout, 4096, [](const std::string&) { return false; });
  }

  // Waits for the listening line (http://, or https:// with --tls-cert); returns the port,
  // or 0.
  std::uint16_t wait_listening() {
    const std::string line = read_line();
    if (!line.starts_with("listening on http://") && !line.starts_with("listening on https://")) {
      ADD_FAILURE() << "no listening line; got \"" << line << "\"; stderr: " << stderr_text();
      return 0;
    }
    return static_cast<std::uint16_t>(std::stoi(line.substr(line.rfind(':') + 1)));
  }

  void signal(int sig) { kill(pid_, sig); }
  pid_t pid() const { return pid_; }

  ExitStatus wait(std::chrono::milliseconds timeout = 10s) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    int status = 0;
    while (std::chrono::steady_clock::now() < deadline) {
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        reaped_ = true;
        return {WIFEXITED(status), WIFEXITED(status) ? WEXITSTATUS(status) : -1};
      }
      std::this_thread::sleep_for(10ms);
    }
    return {};
  }

  // stderr_text() once `done(text)` holds for it, or after `timeout` (the access log is
  // written in batches, shortly after each answer).
  template <class Done>
  std::string stderr_text_when(Done done, std::chrono::milliseconds timeout = 10s) const {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::string text = stderr_text();
    while (!done(text) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(5ms);
      text = stderr_text();
    }
    return text;
  }

  std::string stderr_text() const {
    std::ifstream in(stderr_path_);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

 private:
  // Reads stdout, at most `chunk` (≤ 4096) bytes a read, until `done(text so far)`, the
  // process closes it, or `timeout`.
  template <class Done>
  std::string read_stdout(std::chrono::milliseconds timeout, std::size_t chunk, Done done) {
    std::string text;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!done(text) && std::chrono::steady_clock::now() < deadline) {
      pollfd fd{stdout_, POLLIN, 0};
      if (poll(&fd, 1, 50) <= 0) continue;
      char buffer[4096];
      const ssize_t n = read(stdout_, buffer, std::min(chunk, sizeof buffer));
      if (n <= 0) break;
      text.append(buffer, static_cast<std::size_t>(n));
    }
    return text;
  }

  pid_t pid_ = -1;
  int stdout_ = -1;
  bool reaped_ = false;
  std::filesystem::path stderr_path_;
};

// --- A blocking HTTP client (reads give up after 10 s) -----------------------------------------

class Client {
 public:
  explicit Client(std::uint16_t port) : stream_(ioc_) {
    stream_.connect(tcp::endpoint(net::ip::address_v4::loopback(), port));
    timeval timeout{10, 0};
    setsockopt(stream_.socket().native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  }

  HttpResponse send(http::verb method, const std::string& target, const std::string& body = "",
                    const std::string& content_type = "application/json") {
    write(method, target, body, content_type);
    return read();
  }

  void write(http::verb method, const std::string& target, const std::string& body = "",
             const std::string& content_type = "application/json") {
    http::request<http::string_body> request{method, target, 11};
    request.set(http::field::host, "localhost");
    if (!body.empty() || method == http::verb::post) {
      request.set(http::field::content_type, content_type);
      if (content_type.empty()) request.erase(http::field::content_type);
      request.body() = body;
      request.prepare_payload();
    }
    http::write(stream_, request);
  }

  void write_raw(std::string_view bytes) { net::write(stream_.socket(), net::buffer(bytes)); }

  HttpResponse read() {
    HttpResponse response;
    http::read(stream_, buffer_, response);
    return response;
  }

  // True when something from the server (an answer, or its closing) is there to read.
  bool readable(std::chrono::milliseconds timeout = 0ms) {
    pollfd entry{stream_.socket().native_handle(), POLLIN, 0};
    return poll(&entry, 1, static_cast<int>(timeout.count())) == 1;
  }

  // True when the server has closed the connection (a read sees end of stream).
  bool closed_by_server() {
    char byte;
    beast::error_code ec;
    stream_.socket().read_some(net::buffer(&byte, 1), ec);
    return ec == net::error::eof || ec == net::error::connection_reset;
  }

 private:
  net::io_context ioc_;
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
};

// --- Raw bytes --------------------------------------------------------------------------------

// Sends `bytes` on a fresh connection and reads one response (nullopt when the server closes
// without one, or after `timeout`).
inline std::optional<HttpResponse> exchange_raw(std::uint16_t port, std::string_view bytes,
                                                std::chrono::milliseconds timeout = 10s) {
  net::io_context ioc;
  beast::tcp_stream stream(ioc);
  beast::error_code ec;
  stream.socket().connect(tcp::endpoint(net::ip::address_v4::loopback(), port), ec);
  if (ec) return std::nullopt;
  const timeval tv{static_cast<time_t>(timeout.count() / 1000),
                   static_cast<suseconds_t>(timeout.count() % 1000 * 1000)};
  setsockopt(stream.socket().native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(stream.socket().native_handle(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  // The server may answer (and stop reading) before all is sent: a failed write is fine.
  net::write(stream.socket(), net::buffer(bytes.data(), bytes.size()), ec);
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(16 * 1024 * 1024);
  parser.skip(bytes.starts_with("HEAD "));  // an answer to HEAD has no body
  http::read(stream.socket(), buffer, parser, ec);
  if (ec) return std::nullopt;
  return parser.release();
}

// One request on a fresh connection (Connection: close), with a bearer `key` when not empty
// and the `headers` given ("Name: value"). A body goes as application/json unless `headers`
// names its Content-Type. Throws when no answer comes.
inline HttpResponse call(std::uint16_t port, const std::string& method, const std::string& target,
                         const std::string& key = "", const std::string& body = "",
                         const std::vector<std::string>& headers = {}) {
  std::string raw = method + " " + target + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n";
  if (!key.empty()) raw += "Authorization: Bearer " + key + "\r\n";
  bool typed = false;
  for (const std::string& header : headers) {
    raw += header + "\r\n";
    typed = typed || beast::iequals(header.substr(0, header.find(':')), "Content-Type");
  }
  if (!body.empty() || method == "POST" || method == "PUT") {
    if (!typed) raw += "Content-Type: application/json\r\n";
    raw += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  }
  raw += "\r\n" + body;
  std::optional<HttpResponse> response = exchange_raw(port, raw);
  if (!response) throw std::runtime_error("no answer to " + method + " " + target);
  return *response;
}

// The error object of an error answer (API.md §5), and its code.
inline nlohmann::json error_of(const HttpResponse& response) {
  return nlohmann::json::parse(response.body())["error"];
}
inline std::string code_of(const HttpResponse& response) {
  return error_of(response)["code"].get<std::string>();
}

// --- One server for a whole test suite -------------------------------------------------------

// A fixture whose suite shares one server on the bundled problems (for tests that do not
// stop it or change its flags): started before the suite's first test, stopped after its last.
class SharedServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new ServerProcess({"--port", "0", "--address", "127.0.0.1", "--threads", "2",
                                 "--problems", HEADGRADER_SOURCE_DIR "/problems"});
    port_ = server_->wait_listening();
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override { ASSERT_NE(port_, 0); }

  static inline ServerProcess* server_ = nullptr;
  static inline std::uint16_t port_ = 0;
};

}  // namespace headgrader::server::harness
