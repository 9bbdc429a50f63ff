#include "session.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <utility>

#include "headgrader/limit_text.h"
#include "headgrader/limits.h"
#include "request_framing.h"

namespace headgrader::server {
namespace {

bool is_http_parse_error(const beast::error_code& ec) {
  return ec.category() == http::make_error_code(http::error::bad_method).category();
}

// What the parser refused, as the contract's error; nullopt when there is no one to answer
// (the client left, a deadline passed, the server is closing the connection).
// `declared`: the request's Content-Length, when it has one.
std::optional<Error> read_error_answer(const beast::error_code& ec,
                                       std::optional<std::uint64_t> declared) {
  if (ec == http::error::body_limit) {
    std::string message = "the body is larger than the limit of " +
                          std::to_string(limits::kMaxBodyBytes) + " bytes (" +
                          bytes_text(limits::kMaxBodyBytes) + ")";
    if (declared) message += "; the request declares " + std::to_string(*declared) + " bytes";
    return Error{ErrorCode::kBodyTooLarge, std::move(message), ""};
  }
  if (ec == http::error::header_limit) {
    return Error{ErrorCode::kHeaderTooLarge,
                 "the request line and headers are larger than the limit of " +
                     std::to_string(limits::kMaxHeaderBytes) + " bytes",
                 ""};
  }
  if (ec == http::error::end_of_stream || ec == http::error::partial_message ||
      !is_http_parse_error(ec)) {
    return std::nullopt;
  }
  return Error{ErrorCode::kBadRequest, "the request is not valid HTTP/1.1: " + ec.message(), ""};
}

}  // namespace

// --- Session ----------------------------------------------------------------------------------

Session::Session(tcp::socket&& socket, const Router& router, AccessLog& access_log,
                 std::shared_ptr<Connections> connections, SessionTimeouts timeouts,
                 LongGradings* long_gradings, net::ssl::context* tls)
    : socket_(std::move(socket)),
      watchdog_(socket_.get_executor()),
      router_(router),
      long_gradings_(long_gradings),
      access_log_(access_log),
      connections_(std::move(connections)),
      timeouts_(timeouts),
      shortest_timeout_(std::min(
          {timeouts.read, timeouts.idle, std::chrono::milliseconds(limits::kWriteTimeout)})) {
  // For do_write's first attempt; the asynchronous operations work either way.
  beast::error_code ignored;
  socket_.non_blocking(true, ignored);
  address_ = socket_.remote_endpoint(ignored).address();
  if (tls != nullptr) tls_.emplace(socket_, *tls);
}

Session::~Session() {
  // A request read whole whose answer was never written (the client left during a long
  // grading, the connection closed): no longer in flight.
  if (pending_.in_flight) router_.metrics().request_finished();
  connections_->remove(this);
}

void Session::run() {
  net::dispatch(socket_.get_executor(),
                beast::bind_front_handler(&Session::start, shared_from_this()));
}

void Session::reject(Error error) {
  net::dispatch(socket_.get_executor(), [self = shared_from_this(), error = std::move(error)] {
    self->pending_ = {std::chrono::steady_clock::now(),
                      std::chrono::system_clock::now(),
                      "",
                      "",
                      "",
                      std::nullopt,
                      ""};
    if (self->tls_) {
      // Answered in TLS, or the client could not read it.
      self->rejection_ = std::move(error);
      return self->do_await_hello();
    }
    self->do_write(error_response(error, 11, false), /*linger=*/true);
  });
}

void Session::shutdown() {
  net::dispatch(socket_.get_executor(), [self = shared_from_this()] {
    self->shutting_down_ = true;
    // A busy connection sees shutting_down_ when its answer is ready.
    if (!self->idle_) return;
    // A request already in the socket reached the server before it stopped: it is read and
    // answered (Connection: close), since behind a balancer a POST that got no answer is not
    // sent again, and a grading must not be lost.
    beast::error_code ec;
    if (self->socket_.available(ec) > 0 && !ec) return;
    // A new connection was opened to send a request: it gets a moment to.
    if (self->first_request_) {
      self->set_deadline(std::min(
          self->expiry_, std::chrono::steady_clock::now() + limits::kShutdownFirstRequestWait));
      return;
    }
    // Idle between requests: its pending wait completes with operation_aborted and closes.
    self->socket_.cancel(ec);
  });
}

void Session::start() {
  if (tls_) return do_await_hello();
  do_wait();
}

// Step 1: wait for the first byte of the next request, as long as an idle client may.
void Session::do_wait() {
  if (shutting_down_) return do_close();
  parser_.emplace();
  parser_->body_limit(limits::kMaxBodyBytes);
  parser_->header_limit(limits::kMaxHeaderBytes);
  if (buffer_.size() > 0) return start_request();  // pipelined: it is already here

  idle_ = true;
  // Between requests it may be closed to make room for another client; before its first,
  // it is under the read timeout as a request in flight is.
  if (!first_request_) connections_->set_idle(this, true);
  set_deadline(std::chrono::steady_clock::now() +
               (first_request_ ? timeouts_.read : timeouts_.idle));
  with_stream([&](auto& stream) {
    stream.async_read_some(buffer_.prepare(limits::kFirstReadBytes),
                           beast::bind_front_handler(&Session::on_wait, shared_from_this()));
  });
}

void Session::on_wait(beast::error_code ec, std::size_t bytes) {
  idle_ = false;
  if (!first_request_) connections_->set_idle(this, false);
  // The client left, stayed idle too long, or the server is stopping: nothing to answer.
  if (ec) return do_close();
  buffer_.commit(bytes);
  start_request();
}

// Step 2: from its first byte, the whole request must arrive within the read timeout. Most
// requests come whole in the first read, so what is buffered is parsed right here and the
// socket is asked only for what is missing: an asynchronous step that completes at once
// still costs a trip through the strand and the scheduler (with 2 threads, often a wake-up
// of the other one).
void Session::start_request() {
  first_request_ = false;
  pending_ = {std::chrono::steady_clock::now(),
              std::chrono::system_clock::now(),
              "",
              "",
              "",
              std::nullopt,
              ""};
  request_deadline_ = pending_.started + timeouts_.read;
  set_deadline(request_deadline_);
  // The header alone first: its framing is checked before any of the body is parsed.
  parser_->eager(false);
  if (beast::error_code ec = parse_buffered(Upto::kHeader)) return on_read_error(ec);
  if (!parser_->is_header_done()) return do_read_header();
  on_header();
}

beast::error_code Session::parse_buffered(Upto upto) {
  beast::error_code ec;
  // put() stops at each element (the header, a chunk), so the loop says where to stop: what
  // stays in buffer_ is the body, or the next request.
  const auto reached = [&] {
    return upto == Upto::kHeader ? parser_->is_header_done() : parser_->is_done();
  };
  while (buffer_.size() > 0 && !reached()) {
    const std::size_t used = parser_->put(buffer_.data(), ec);
    buffer_.consume(used);
    if (ec == http::error::need_more) return {};
    if (ec || used == 0) break;
  }
  return ec;
}

void Session::do_read_header() {
  with_stream([&](auto& stream) {
    http::async_read_header(
        stream, buffer_, *parser_,
        beast::bind_front_handler(&Session::on_read_header, shared_from_this()));
  });
}

void Session::on_read_header(beast::error_code ec, std::size_t) {
  if (ec) return on_read_error(ec);
  on_header();
}

void Session::on_header() {
  const auto& header = parser_->get();
  pending_.method = std::string(header.method_string());
  pending_.path = std::string(logged_path(header.target()));
  // The first X-Request-Id, if sent; a second one is not looked at.
  const auto sent_id = header.find(kRequestIdHeader);
  pending_.request_id = request_id_for(sent_id != header.end() ? sent_id->value() : "");
  if (std::optional<Error> error = framing_error(header)) {
    Response response = error_response(*error, header.version(), false);
    if (header.method() == http::verb::head) response = headers_only(std::move(response));
    // The body's end is unknown, so the connection cannot carry another request.
    return do_write(std::move(response), /*linger=*/true);
  }
  header_fields_ = static_cast<std::size_t>(std::distance(header.begin(), header.end()));
  // On past the header into the body, as http::read does: what is buffered first.
  parser_->eager(true);
  if (beast::error_code ec = parse_buffered(Upto::kMessage)) return on_read_error(ec);
  if (parser_->is_done()) return answer();
  // RFC 9110 §10.1.1: no 1xx answer to an HTTP/1.0 client, which would not expect one.
  if (header.version() >= 11 && beast::iequals(header[http::field::expect], "100-continue")) {
    // The client waits for this before sending the body (curl does for large bodies).
    continue_ = {http::status::continue_, header.version()};
    set_deadline(std::chrono::steady_clock::now() + limits::kWriteTimeout);
    return with_stream([&](auto& stream) {
      http::async_write(
          stream, continue_,
          beast::bind_front_handler(&Session::on_continue_written, shared_from_this()));
    });
  }
  do_read_body();
}

void Session::on_continue_written(beast::error_code ec, std::size_t) {
  if (ec) return do_close();
  set_deadline(request_deadline_);
  do_read_body();
}

// Step 3: the rest of the body, still under the request's deadline.
void Session::do_read_body() {
  with_stream([&](auto& stream) {
    http::async_read(stream, buffer_, *parser_,
                     beast::bind_front_handler(&Session::on_read_body, shared_from_this()));
  });
}

void Session::on_read_body(beast::error_code ec, std::size_t) {
  if (ec) return on_read_error(ec);
  answer();
}

void Session::answer() {
  router_.metrics().request_started();
  pending_.in_flight = true;
  // Trailer fields are never read as headers (request_framing.h).
  drop_trailer_fields(parser_->get().base(), header_fields_);
  // While the answers that clients have not taken exceed their budget, this address waits
  // if it holds its share of them (answer_budget.h); the deadline keeps running meanwhile.
  connections_->answers().when_room(address_, 0, [self = shared_from_this()] {
    net::dispatch(self->socket_.get_executor(), [self] {
      if (self->closed_) return;
      self->route_here();
    });
  });
}

void Session::write_answer(Routed routed) {
  pending_.problem = std::move(routed.problem);
  pending_.passed = routed.passed;
  if (routed.pending && router_.store() != nullptr) {
    // The record first, then the answer: the store calls back on its committer thread once the
    // record is on disk, and the answer is made and written on this connection's strand (the
    // committer only hands the outcome over: every grading of the server waits for it).
    std::shared_ptr<PendingGrade> grade = std::move(routed.pending);
    store::SubmissionRecord record = std::move(grade->record);
    std::optional<store::PassbackRequest> passback = std::move(grade->passback);
    std::optional<store::CommitLimit> limit;
    if (grade->rate_limit) {
      limit = store::CommitLimit{grade->rate_limit->count, grade->rate_limit->period.count()};
    }
    return router_.store()->commit_limited(
        std::move(record), std::move(passback), limit,
        [self = shared_from_this(), grade](Result<store::CommitOutcome> outcome) {
          net::dispatch(self->socket_.get_executor(),
                        [self, grade, outcome = std::move(outcome)]() mutable {
                          Response response = grade->finish(std::move(outcome));
                          if (self->shutting_down_) response.keep_alive(false);
                          self->do_write(std::move(response), /*linger=*/false);
                        });
        });
  }
  if (routed.stream) return write_stream(std::move(routed));
  if (shutting_down_) routed.response.keep_alive(false);
  do_write(std::move(routed.response), /*linger=*/false);
}

void Session::on_read_error(beast::error_code ec) {
  std::optional<std::uint64_t> declared;
  if (const auto length = parser_->get().find(http::field::content_length);
      length != parser_->get().end()) {
    std::uint64_t value = 0;
    const std::string_view text = length->value();
    if (std::from_chars(text.data(), text.data() + text.size(), value).ec == std::errc()) {
      declared = value;
    }
  }
  std::optional<Error> error = read_error_answer(ec, declared);
  if (!error) return do_close();
  // Whatever of the request line did parse, for the access log.
  const auto& partial = parser_->get();
  if (pending_.method.empty()) pending_.method = std::string(partial.method_string());
  if (pending_.path.empty()) pending_.path = std::string(logged_path(partial.target()));
  const unsigned version = parser_->is_header_done() ? partial.version() : 11;
  Response response = error_response(*error, version, false);
  if (parser_->is_header_done() && partial.method() == http::verb::head) {
    response = headers_only(std::move(response));
  }
  // The rest of the request is not read, so the connection cannot carry another one.
  do_write(std::move(response), /*linger=*/true);
}

// Step 4: the answer; then the next request, or close.
// Most answers fit in the socket's send buffer, so they are written right here and the next
// step follows at once. Only what the socket does not take now is left to an asynchronous
// write: one that completes at once is still handed to the scheduler, and with 2 threads often
// to the other one, which costs more than the write itself (docs/benchmarks.md).
void Session::do_write(Response response, bool linger) {
  response_ = std::move(response);
  stamp_request_id(response_);
  count_answer();
  linger_after_write_ = linger;
  set_deadline(std::chrono::steady_clock::now() + limits::kWriteTimeout);
  serializer_.emplace(response_);
  if (tls_) {
    // Always asynchronously: a TLS write that the socket takes only in part cannot be resumed
    // by a later synchronous one (the engine has handed over the rest of its record), so
    // every answer is counted as unsent until written.
    unsent_held_ = response_.body().size();
    if (unsent_held_ > 0) connections_->answers().hold(address_, unsent_held_);
    return http::async_write(*tls_, *serializer_,
                             beast::bind_front_handler(&Session::on_write, shared_from_this()));
  }
  beast::error_code ec;
  http::write(socket_, *serializer_, ec);  // the socket is non-blocking: never waits
  if (ec == net::error::would_block || ec == net::error::try_again) {
    // What the socket did not take waits in memory for the client: counted until written.
    unsent_held_ = response_.body().size();
    connections_->answers().hold(address_, unsent_held_);
    return http::async_write(socket_, *serializer_,
                             beast::bind_front_handler(&Session::on_write, shared_from_this()));
  }
  if (!ec && buffer_.size() > 0) {
    // A pipelined request is already buffered: through the scheduler, so that a long
    // pipeline does not answer request after request ever deeper on this stack.
    return net::post(socket_.get_executor(),
                     beast::bind_front_handler(&Session::on_write, shared_from_this(), ec, 0));
  }
  on_write(ec, 0);
}

void Session::on_write(beast::error_code ec, std::size_t) {
  log_answer();
  const bool keep_alive = response_.keep_alive();
  // The answer's memory goes now, not when the next one replaces it. Moved out, not assigned
  // an empty response: a string assigned an empty one keeps its capacity, so every idle
  // keep-alive connection held its last answer's buffer (150 × 700 KB answers: RSS +113 MB).
  serializer_.reset();
  { const Response released = std::move(response_); }
  response_ = {};
  if (unsent_held_ > 0) {
    connections_->answers().release(address_, unsent_held_);
    unsent_held_ = 0;
  }
  if (ec) return do_close();
  if (linger_after_write_) return do_linger();
  if (!keep_alive) {
    send_close_notify();
    return do_close();
  }
  do_wait();
}

// Closes our side, then reads and drops what the client still sends until it closes too
// (or limits::kLingerTimeout / kMaxLingerBytes): closing with unread input would reset the
// connection and could destroy the answer before the client reads it.
void Session::do_linger() {
  send_close_notify();  // HTTPS: what follows is read from the socket, TLS or not
  beast::error_code ignored;
  socket_.shutdown(tcp::socket::shutdown_send, ignored);
  set_deadline(std::chrono::steady_clock::now() + limits::kLingerTimeout);
  socket_.async_read_some(net::buffer(discard_),
                          beast::bind_front_handler(&Session::on_linger, shared_from_this()));
}

void Session::on_linger(beast::error_code ec, std::size_t bytes) {
  lingered_bytes_ += bytes;
  if (ec || lingered_bytes_ > limits::kMaxLingerBytes) return do_close();
  socket_.async_read_some(net::buffer(discard_),
                          beast::bind_front_handler(&Session::on_linger, shared_from_this()));
}

void Session::do_close() {
  closed_ = true;
  beast::error_code ignored;
  socket_.shutdown(tcp::socket::shutdown_send, ignored);
  socket_.close(ignored);
  watchdog_.cancel();  // its wait holds the session alive
}

// Before the first byte of the answer is written: a client that has its answer finds it
// counted in the next scrape.
void Session::count_answer() {
  Metrics& metrics = router_.metrics();
  const std::span<const RouteRow> rows = route_table();
  metrics.count_request(pending_.row != nullptr
                            ? static_cast<std::size_t>(pending_.row - rows.data())
                            : metrics.other_route(),
                        static_cast<unsigned>(response_.result_int()));
  if (pending_.in_flight) {
    metrics.request_finished();
    pending_.in_flight = false;
  }
}

void Session::log_answer() const {
  const auto latency = std::chrono::steady_clock::now() - pending_.started;
  access_log_.write({pending_.started_wall, pending_.method, pending_.path,
                     static_cast<unsigned>(response_.result_int()),
                     std::chrono::duration<double, std::milli>(latency).count(), pending_.problem,
                     pending_.passed, pending_.request_id});
}

}  // namespace headgrader::server
