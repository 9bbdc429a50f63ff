// Session's streamed bodies (Routed::stream, body_stream.h): the CSV export of every record is
// far larger than any other answer (300 000 records, about 36 MB), so it is never held whole.
// The head goes first; then each piece is read on the long-work threads (a store read must not
// hold an io thread) and written on the strand, the next read only once the previous piece is
// written: a client that reads slowly, or not at all, holds one piece, not the whole CSV.
#include <chrono>
#include <exception>
#include <string>
#include <utility>

#include "access_log.h"
#include "headgrader/limits.h"
#include "session.h"

namespace headgrader::server {
namespace {

// The next piece, or why not: on a long-work thread nothing may escape (an exception there
// would end the process), so a failure to build a piece (memory) cuts the body short instead.
Result<std::optional<std::string>> next_piece(BodyStream& stream) {
  try {
    return stream.next();
  } catch (const std::exception& e) {
    return Error{ErrorCode::kInternalError, std::string("the next piece failed: ") + e.what(), ""};
  }
}

}  // namespace

void Session::write_stream(Routed routed) {
  response_ = std::move(routed.response);  // the head, for the access log's status
  stream_ = std::move(routed.stream);
  const auto& request = parser_->get();
  stream_head_.emplace();
  stream_head_->base() = response_.base();
  stamp_request_id(*stream_head_);
  // HTTP/1.1: chunked, so that the connection can carry the next request. HTTP/1.0 knows no
  // chunks: the body ends with the connection.
  stream_chunked_ = request.version() >= 11;
  if (stream_chunked_) {
    stream_head_->chunked(true);
  } else {
    stream_head_->keep_alive(false);
  }
  if (shutting_down_) stream_head_->keep_alive(false);
  response_.keep_alive(stream_head_->keep_alive());
  set_deadline(std::chrono::steady_clock::now() + limits::kWriteTimeout);
  stream_head_serializer_.emplace(*stream_head_);
  count_answer();
  with_stream([&](auto& stream) {
    http::async_write_header(
        stream, *stream_head_serializer_,
        beast::bind_front_handler(&Session::on_stream_head, shared_from_this()));
  });
}

void Session::on_stream_head(beast::error_code ec, std::size_t) {
  if (ec || parser_->get().method() == http::verb::head) return on_stream_end(ec, 0);
  read_next_piece();
}

void Session::read_next_piece() {
  // The store read is short (one page) and not the client's doing: no deadline meanwhile.
  set_deadline(std::chrono::steady_clock::time_point::max());
  if (long_gradings_ != nullptr) {
    const bool queued =
        long_gradings_->post(address_, [self = shared_from_this(), stream = stream_]() mutable {
          Result<std::optional<std::string>> piece = next_piece(*stream);
          return [self, piece = std::move(piece)]() mutable {
            net::dispatch(self->socket_.get_executor(), [self, piece = std::move(piece)]() mutable {
              self->on_next_piece(std::move(piece));
            });
          };
        });
    if (queued) return;
  }
  // No long-work threads, or all of their places taken (by this client's other requests, or
  // the server's): one page read here, which is short, rather than an export cut off midway.
  on_next_piece(next_piece(*stream_));
}

void Session::on_next_piece(Result<std::optional<std::string>> piece) {
  if (closed_) return;
  if (!piece) {
    // The status is sent: the body is cut short (no last chunk, or the connection closed
    // early), which a client sees as an error rather than a complete CSV.
    stderr_line("export: " + pending_.path + " cut short: " + piece.error().message);
    return on_stream_end(net::error::connection_aborted, 0);
  }
  set_deadline(std::chrono::steady_clock::now() + limits::kWriteTimeout);
  if (!*piece) {
    if (!stream_chunked_) return on_stream_end({}, 0);
    return with_stream([&](auto& stream) {
      net::async_write(stream, http::make_chunk_last(),
                       beast::bind_front_handler(&Session::on_stream_end, shared_from_this()));
    });
  }
  piece_ = std::move(**piece);
  with_stream([&](auto& stream) {
    if (stream_chunked_) {
      net::async_write(stream, http::make_chunk(net::buffer(piece_)),
                       beast::bind_front_handler(&Session::on_piece_written, shared_from_this()));
    } else {
      net::async_write(stream, net::buffer(piece_),
                       beast::bind_front_handler(&Session::on_piece_written, shared_from_this()));
    }
  });
}

void Session::on_piece_written(beast::error_code ec, std::size_t) {
  { const std::string written = std::move(piece_); }  // its memory goes now
  piece_ = {};
  if (ec) return on_stream_end(ec, 0);
  read_next_piece();
}

// The body is whole (or HEAD's head is written), or it cannot go on (ec): as after any answer.
void Session::on_stream_end(beast::error_code ec, std::size_t) {
  stream_ = nullptr;
  stream_head_serializer_.reset();
  stream_head_.reset();
  on_write(ec, 0);
}

}  // namespace headgrader::server
