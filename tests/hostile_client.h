// A client for the hostile-traffic tests: a plain socket bound to a chosen loopback address
// (127.0.0.2 stands for another machine: the server sees a different client address), raw
// bytes out, one parsed answer in, and what the server process holds (RSS, descriptors).
#pragma once

#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <chrono>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>

#include "server_harness.h"

namespace headgrader::server::harness {

class SourcedClient {
 public:
  // `receive_buffer` > 0 shrinks the socket's receive buffer (a client that reads slowly).
  SourcedClient(std::uint16_t port, const std::string& from, int receive_buffer = 0)
      : socket_(ioc_) {
    socket_.open(tcp::v4());
    if (receive_buffer > 0) {
      setsockopt(socket_.native_handle(), SOL_SOCKET, SO_RCVBUF, &receive_buffer,
                 sizeof receive_buffer);
    }
    socket_.bind({net::ip::make_address(from), 0});
    socket_.connect({net::ip::address_v4::loopback(), port});
    timeval timeout{10, 0};
    setsockopt(socket_.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  }

  void write(std::string_view bytes) { net::write(socket_, net::buffer(bytes)); }

  // One answer, or nullopt when the server closes first (or after 10 s).
  std::optional<HttpResponse> read(bool head = false) {
    http::response_parser<http::string_body> parser;
    parser.body_limit(64 * 1024 * 1024);
    parser.skip(head);
    beast::error_code ec;
    http::read(socket_, buffer_, parser, ec);
    if (ec) return std::nullopt;
    return parser.release();
  }

  std::optional<HttpResponse> send(std::string_view bytes) {
    write(bytes);
    return read();
  }

  // True when the server has closed the connection within `timeout` (nothing else came).
  bool closed_within(std::chrono::milliseconds timeout) {
    if (buffer_.size() > 0) return false;
    pollfd p{socket_.native_handle(), POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return false;
    char byte;
    return recv(socket_.native_handle(), &byte, 1, MSG_DONTWAIT) <= 0;
  }

  // Whether any byte from the server arrives within `timeout`.
  bool anything_within(std::chrono::milliseconds timeout) {
    if (buffer_.size() > 0) return true;
    pollfd p{socket_.native_handle(), POLLIN, 0};
    return poll(&p, 1, static_cast<int>(timeout.count())) > 0;
  }

  void close() {
    beast::error_code ignored;
    socket_.close(ignored);
  }

 private:
  net::io_context ioc_;
  tcp::socket socket_;
  beast::flat_buffer buffer_;
};

inline std::string get_request(const std::string& path) {
  return "GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n";
}

inline std::string post_request(const std::string& path, const std::string& body) {
  return "POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
         "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

// Milliseconds for a GET /healthz on a fresh connection from `from`, or a large number when
// it is not answered 200.
inline double health_ms(std::uint16_t port, const std::string& from = "127.0.0.1") {
  const auto start = std::chrono::steady_clock::now();
  try {
    SourcedClient client(port, from);
    const std::optional<HttpResponse> answer = client.send(get_request("/healthz"));
    if (!answer || answer->result() != http::status::ok) return 1e9;
  } catch (const std::exception&) {
    return 1e9;
  }
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// The server's resident memory, in bytes (VmRSS).
inline std::size_t rss_bytes(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with("VmRSS:")) return std::stoul(line.substr(6)) * 1024;
  }
  return 0;
}

// Descriptors the server holds open (its sockets among them).
inline int open_descriptors(pid_t pid) {
  const std::string dir = "/proc/" + std::to_string(pid) + "/fd";
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return -1;
  int n = 0;
  while (readdir(d) != nullptr) ++n;
  closedir(d);
  return n - 2;
}

}  // namespace headgrader::server::harness
