// The bodies of the three libFuzzer harnesses, shared with tests/fuzz/fuzz_regression_test.cc so
// that every input a fuzzer ever crashed on is replayed by the normal test suite (and under
// the sanitizers). Each returns normally on any input; a broken invariant calls abort().
// Thread-safety: pure functions of their arguments.
#pragma once

#include <algorithm>
#include <boost/asio/buffer.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http.hpp>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "access_log.h"
#include "headgrader/grade.h"
#include "headgrader/limits.h"
#include "headgrader/problem.h"
#include "headgrader/report.h"
#include "headgrader/submission.h"
#include "request_framing.h"
#include "router.h"
#include "static_files.h"
#include "submission_readers.h"

namespace headgrader::fuzz {

// Whether `j` has, at any depth, a member named `key`.
inline bool has_member(const Json& j, std::string_view key) {
  if (j.is_object()) {
    for (const auto& [name, value] : j.items()) {
      if (name == key || has_member(value, key)) return true;
    }
  } else if (j.is_array()) {
    for (const auto& value : j) {
      if (has_member(value, key)) return true;
    }
  }
  return false;
}

// (a) Raw request bytes through Beast's request parser, with the limits a Session sets, and
// each request that parses through the Router, as the server would, then into an access-log
// line: pipelined requests one after another, at most 8 per input.
inline void http_request(const server::Router& router, std::string_view input) {
  namespace http = boost::beast::http;
  for (int request = 0; request < 8 && !input.empty(); ++request) {
    http::request_parser<http::string_body> parser;
    parser.body_limit(limits::kMaxBodyBytes);
    parser.header_limit(limits::kMaxHeaderBytes);
    // As the Session reads: the header alone, its framing checked (a refused one ends the
    // connection), then the body, its trailer fields dropped.
    boost::beast::error_code ec;
    std::size_t used = parser.put(boost::asio::buffer(input.data(), input.size()), ec);
    if (ec || !parser.is_header_done()) return;
    if (const auto refused = server::framing_error(parser.get())) {
      if (refused->code != ErrorCode::kBadRequest) std::abort();
      return;
    }
    const auto header_fields =
        static_cast<std::size_t>(std::distance(parser.get().begin(), parser.get().end()));
    parser.eager(true);
    if (!parser.is_done()) {
      used += parser.put(boost::asio::buffer(input.data() + used, input.size() - used), ec);
    }
    if (ec == http::error::need_more) ec = {};
    if (!ec && !parser.is_done()) parser.put_eof(ec);  // the connection ends here
    if (ec || !parser.is_done()) return;
    input.remove_prefix(used);
    server::drop_trailer_fields(parser.get().base(), header_fields);
    const server::Routed routed = router.route(parser.get());
    // Every answer is a status the contract knows, with a JSON body.
    const unsigned status = routed.response.result_int();
    if (status < 200 || status >= 600) std::abort();
    // Every answer is JSON but the student page's files (API.md §10), each exactly as embedded.
    if (routed.response[http::field::content_type] != "application/json") {
      const auto& r = routed.response;
      const bool page_file = std::any_of(
          server::web_assets().begin(), server::web_assets().end(), [&](const auto& asset) {
            return r[http::field::content_type] == asset.content_type &&
                   ((status == 200 && r.body() == asset.body) ||
                    (status == 304 && r.body().empty()) ||
                    (parser.get().method() == http::verb::head && r.body().empty()));
          });
      if (!page_file) std::abort();
    }
    // A reference's weights never leave the server: no JSON answer has a member named
    // "reference", at any depth, and each is one JSON text. (The word itself may appear: the
    // OpenAPI document names the field in the schema that forbids it.)
    if (routed.response[http::field::content_type] == "application/json" &&
        !routed.response.body().empty()) {
      const Json answer = Json::parse(routed.response.body(), nullptr, false);
      if (answer.is_discarded() || has_member(answer, "reference")) std::abort();
    }
    // A HEAD answer has no body, whatever its status: bytes after it would be read as the
    // next answer on the connection.
    if (parser.get().method() == http::verb::head && !routed.response.body().empty()) {
      std::abort();
    }
    // Its access-log line is one valid JSON text (UTF-8 included) whatever the client sent.
    server::AccessLogEntry entry;
    entry.method = parser.get().method_string();
    entry.path = parser.get().target();
    entry.status = status;
    entry.problem = routed.problem;
    entry.passed = routed.passed;
    const std::string line = server::format_access_log(entry);
    if (!Json::accept(line) || line.find('\n') != std::string::npos) std::abort();
  }
}

// (b) A submission body through parse_submission and, once accepted, grade(); the first byte
// picks the problem. An accepted submission must grade exactly as the definition does
// (grade_each_string): a wrong grade is a finding too.
inline void submission(const ProblemSet& problems, std::string_view input) {
  if (input.empty() || problems.problems().empty()) return;
  const auto& all = problems.problems();
  const Problem& problem = *all[static_cast<unsigned char>(input[0]) % all.size()];
  const std::string_view body = input.substr(1);
  // Wherever the event reader answers, the tree reader must give the same submission
  // (grader/submission_readers.h); parse_submission takes the first when it can.
  if (const auto events = read_submission_events(problem, body)) {
    const Result<Submission> tree = read_submission_tree(problem, body);
    if (!tree || !same_submission(*events, tree.value())) {
      std::fprintf(stderr, "read_submission_events differs from read_submission_tree\n");
      std::abort();
    }
  }
  const Result<Submission> parsed = parse_submission(problem, body);
  if (!parsed) {
    if (code_name(parsed.error().code).empty() || parsed.error().message.empty()) std::abort();
    return;
  }
  const GradeReport report = grade(problem, parsed->weights, parsed->max_failures);
  const std::string json = report_json(problem, report);
  const GradeReport slow = grade_each_string(problem, parsed->weights, parsed->max_failures);
  if (report_json(problem, slow) != json) {
    std::fprintf(stderr, "grade() differs from grade_each_string()\n");
    std::abort();
  }
}

// The value of the first "id": "…" of a problem text when it is [a-z0-9-]+, else "fuzz", so
// that inputs get past the check that the id is the file's name.
inline std::string id_of(std::string_view text) {
  const std::size_t key = text.find("\"id\"");
  if (key == std::string_view::npos) return "fuzz";
  const std::size_t open = text.find('"', key + 4);
  if (open == std::string_view::npos) return "fuzz";
  std::string id;
  for (std::size_t i = open + 1; i < text.size() && text[i] != '"'; ++i) {
    const char c = text[i];
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-') || id.size() > 64) {
      return "fuzz";
    }
    id += c;
  }
  return id.empty() ? "fuzz" : id;
}

// (c) A problem file's text through load_problem_text: JSON, fields, shapes, the `expected`
// language, the tested-set budget and the proof that the reference passes.
inline void problem_file(std::string_view text) {
  const ProblemOrDefects loaded = load_problem_text(text, id_of(text) + ".json");
  if (const auto* defects = std::get_if<std::vector<Defect>>(&loaded)) {
    if (defects->empty()) std::abort();  // refused without a reason
    for (const Defect& defect : *defects) {
      if (defect.message.empty()) std::abort();
    }
  }
}

// The bundled problems (a ProblemSet that lives for the whole process).
inline const ProblemSet& bundled_problems(const char* dir) {
  static const ProblemSet* set = [dir] {
    auto loaded = ProblemSet::load(dir);
    if (!std::holds_alternative<ProblemSet>(loaded)) std::abort();
    return new ProblemSet(std::get<ProblemSet>(std::move(loaded)));
  }();
  return *set;
}

}  // namespace headgrader::fuzz
