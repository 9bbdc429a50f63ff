#include "server.h"

#include <pthread.h>
#include <unistd.h>

#include <boost/asio/signal_set.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "access_log.h"
#include "background_priority.h"
#include "headgrader/limits.h"
#include "listener.h"
#include "long_gradings.h"
#include "metrics.h"
#include "problem_watcher.h"
#include "route_table.h"

namespace headgrader::server {
namespace {

std::string url_host(const net::ip::address& address) {
  if (!address.is_v6()) return address.to_string();
  std::string host(1, '[');
  host += address.to_string();
  host += ']';
  return host;
}

// Polls until no connection is left or the grace period is over, then stops the loop.
void drain(const std::shared_ptr<net::steady_timer>& timer,
           const std::shared_ptr<Listener>& listener,
           std::chrono::steady_clock::time_point deadline, net::io_context& ioc) {
  if (listener->connections() == 0 || std::chrono::steady_clock::now() >= deadline) {
    ioc.stop();
    return;
  }
  timer->expires_after(limits::kDrainPollInterval);
  timer->async_wait([timer, listener, deadline, &ioc](beast::error_code) {
    drain(timer, listener, deadline, ioc);
  });
}

// One line on stderr, written whole, so that it does not interleave with the access log's.
void log_line(const std::string& text) {
  const std::string line = text + '\n';
  (void)!::write(STDERR_FILENO, line.data(), line.size());
}

// Loads the problems folder again and says what came of it (API.md §9).
void reload_problems(ProblemCatalog& catalog, Metrics& metrics) {
  const auto started = std::chrono::steady_clock::now();
  const std::vector<Defect> defects = catalog.reload();
  metrics.count_reload(defects.empty(), std::chrono::steady_clock::now() - started);
  if (defects.empty()) {
    log_line("problems: loaded " + std::to_string(catalog.current()->problems().problems().size()) +
             " from " + catalog.path().string());
    return;
  }
  for (const Defect& defect : defects) log_line(defect.to_string());
  log_line("problems: " + catalog.path().string() + ": " + std::to_string(defects.size()) +
           (defects.size() == 1 ? " defect" : " defects") +
           "; the problems loaded before go on serving");
}

void reload_keys(KeySource& keys) {
  Result<bool> reloaded = keys.reload();
  log_line(reloaded ? "keys: loaded " + keys.path().string()
                    : reloaded.error().message + "; the keys read before stay in use");
}

// SIG_BLOCK or SIG_UNBLOCK SIGHUP in the calling thread (threads started later inherit it).
void mask_hangups(int how) {
  sigset_t hangup;
  sigemptyset(&hangup);
  sigaddset(&hangup, SIGHUP);
  pthread_sigmask(how, &hangup, nullptr);
}

}  // namespace

void hold_hangups_until_serving() { mask_hangups(SIG_BLOCK); }

int serve(const Service& given, const std::string& address, std::uint16_t port, unsigned threads,
          std::ostream& out, std::ostream& err, const ConnectionTuning& tuning,
          net::ssl::context* tls, const Observability& observability) {
  beast::error_code ec;
  const net::ip::address ip = net::ip::make_address(address, ec);
  if (ec) {
    err << "--address: \"" << address << "\" is not an IP address\n";
    return 1;
  }
  std::optional<net::ip::address> metrics_ip;
  if (observability.metrics_address) {
    metrics_ip = net::ip::make_address(observability.metrics_address->first, ec);
    if (ec) {
      err << "--metrics-address: \"" << observability.metrics_address->first
          << "\" is not an IP address\n";
      return 1;
    }
  }
  // One registry for both listeners' routers.
  Service service = given;
  std::optional<Metrics> own_metrics;
  if (service.metrics == nullptr) service.metrics = &own_metrics.emplace(route_patterns());
  const Router router(service);
  const Router metrics_router(service, RouterScope::kMetricsOnly);
  // Declared before the loop and the listener so that it outlives every session; on return
  // it writes the lines still waiting.
  AccessLog access_log(STDERR_FILENO, std::chrono::milliseconds(limits::kAccessLogFlushInterval),
                       observability.log_format);
  // Before the loop: a session's last handler may still post a grading while the loop runs.
  LongGradings long_gradings(threads, limits::kMaxLongGradings,
                             tuning.max_long_gradings_per_address);
  // A log whose reader has gone (stderr a closed pipe) must not end the process: its
  // writes fail with EPIPE instead. Sockets are written with MSG_NOSIGNAL already.
  std::signal(SIGPIPE, SIG_IGN);
  net::io_context ioc(static_cast<int>(threads));
  // A test that shortens the read timeout wants idle connections gone as soon.
  const bool shortened = tuning.read_timeout < limits::kReadTimeout;
  const SessionTimeouts timeouts{tuning.read_timeout,
                                 shortened ? std::chrono::milliseconds(tuning.read_timeout)
                                           : std::chrono::milliseconds(limits::kIdleTimeout)};
  Result<std::shared_ptr<Listener>> opened = Listener::open(
      ioc, {ip, port}, router, access_log, tuning.max_connections, timeouts, &long_gradings,
      {tuning.max_connections_per_address, tuning.unsent_answer_budget}, tls);
  if (!opened) {
    err << opened.error().message << '\n';
    return 1;
  }
  const std::shared_ptr<Listener> listener = opened.value();
  std::shared_ptr<Listener> metrics_listener;
  if (metrics_ip) {
    Result<std::shared_ptr<Listener>> metrics_opened =
        Listener::open(ioc, {*metrics_ip, observability.metrics_address->second}, metrics_router,
                       access_log, tuning.max_connections, timeouts, &long_gradings,
                       {tuning.max_connections_per_address, tuning.unsent_answer_budget}, nullptr);
    if (!metrics_opened) {
      err << "--metrics-address: " << metrics_opened.error().message << '\n';
      return 1;
    }
    metrics_listener = metrics_opened.value();
  }
  // Read when scraped (on the io threads); set before the first request is answered, cleared
  // once those threads have stopped, before what they read goes.
  service.metrics->set_sources(
      {[listener = listener.get()] { return listener->connections(); },
       [&long_gradings] { return static_cast<std::size_t>(long_gradings.running()); }});
  listener->run();
  if (metrics_listener) metrics_listener->run();

  // Reloads run here, off the threads that answer requests: proving a problem's reference can
  // take seconds.
  net::thread_pool reloads(1);
  net::signal_set hangups(ioc, SIGHUP);
  std::function<void()> wait_for_hangup = [&] {
    hangups.async_wait([&](beast::error_code wait_ec, int) {
      if (wait_ec) return;
      net::post(reloads, [&service] {
        run_at_background_priority();
        reload_problems(*service.problems, *service.metrics);
        if (service.keys != nullptr) reload_keys(*service.keys);
      });
      wait_for_hangup();
    });
  };
  wait_for_hangup();
  // From here a SIGHUP has its handler: let this thread (and the io threads it starts) take
  // it, the one held since main()'s first line included.
  mask_hangups(SIG_UNBLOCK);
  std::optional<ProblemWatcher> watcher;
  if (service.problems->is_folder()) {
    watcher.emplace(*service.problems, [&service] {
      run_at_background_priority();
      reload_problems(*service.problems, *service.metrics);
    });
  }

  net::signal_set signals(ioc, SIGINT, SIGTERM);
  signals.async_wait([&](beast::error_code wait_ec, int) {
    if (wait_ec) return;
    listener->shutdown();
    if (metrics_listener) metrics_listener->shutdown();
    hangups.cancel();
    drain(std::make_shared<net::steady_timer>(ioc), listener,
          std::chrono::steady_clock::now() + tuning.shutdown_grace, ioc);
  });

  if (metrics_listener) {
    out << "metrics on http://" << url_host(*metrics_ip) << ':'
        << metrics_listener->local_endpoint().port() << std::endl;
  }
  out << (tls != nullptr ? "listening on https://" : "listening on http://") << url_host(ip) << ':'
      << listener->local_endpoint().port() << std::endl;

  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (unsigned i = 1; i < threads; ++i) pool.emplace_back([&ioc] { ioc.run(); });
  ioc.run();
  for (std::thread& thread : pool) thread.join();
  service.metrics->set_sources({});
  // Commits already queued still reach the disk; their answers can no longer be written.
  if (service.records.store != nullptr) service.records.store->close();
  if (long_gradings.running() > 0) {
    // A grading outlived the grace period; its answer can no longer be written. Returning
    // would wait for it (seconds) and free the problems it reads: end here, with the log
    // written out.
    access_log.close();
    out.flush();
    std::_Exit(0);
  }
  return 0;
}

int healthcheck(const std::string& address, std::uint16_t port, std::ostream& err, bool tls) {
  beast::error_code ec;
  net::ip::address ip = net::ip::make_address(address, ec);
  if (ec) {
    err << "healthcheck: \"" << address << "\" is not an IP address\n";
    return 1;
  }
  if (ip.is_unspecified()) {
    ip = ip.is_v6() ? net::ip::address(net::ip::address_v6::loopback())
                    : net::ip::address(net::ip::address_v4::loopback());
  }

  net::io_context ioc;
  beast::tcp_stream stream(ioc);
  net::ssl::context client(net::ssl::context::tls_client);
  std::optional<beast::ssl_stream<beast::tcp_stream&>> secure;
  if (tls) secure.emplace(stream, client);
  beast::flat_buffer buffer;
  http::request<http::empty_body> request{http::verb::get, "/healthz", 11};
  request.set(http::field::host, url_host(ip));
  request.keep_alive(false);
  http::response<http::string_body> response;
  beast::error_code failure;

  // connect → (handshake →) write → read, all within one deadline.
  const auto exchange = [&](auto& http_stream) {
    http::async_write(http_stream, request, [&](beast::error_code write_ec, std::size_t) {
      if (write_ec) {
        failure = write_ec;
        return;
      }
      http::async_read(http_stream, buffer, response,
                       [&](beast::error_code read_ec, std::size_t) { failure = read_ec; });
    });
  };
  stream.expires_after(limits::kHealthcheckTimeout);
  stream.async_connect(tcp::endpoint(ip, port), [&](beast::error_code connect_ec) {
    if (connect_ec) {
      failure = connect_ec;
      return;
    }
    if (!secure) return exchange(stream);
    secure->async_handshake(net::ssl::stream_base::client, [&](beast::error_code handshake_ec) {
      if (handshake_ec) {
        failure = handshake_ec;
        return;
      }
      exchange(*secure);
    });
  });
  ioc.run();

  if (failure) {
    err << "healthcheck: " << url_host(ip) << ':' << port << ": " << failure.message() << '\n';
    return 1;
  }
  if (response.result() != http::status::ok) {
    err << "healthcheck: GET /healthz answered " << response.result_int() << '\n';
    return 1;
  }
  return 0;
}

}  // namespace headgrader::server
