// Submission checking, in the order a student would fix things: the JSON itself, then which
// keys are there, then each matrix, then how the matrices fit the problem and each other.
#include "headgrader/submission.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <map>

#include "headgrader/limits.h"
#include "json_input.h"
#include "matrix_json.h"
#include "message_text.h"
#include "submission_paths.h"

namespace headgrader {
namespace {

// The names a matrix may be sent under (API.md §5), canonical name first.
constexpr std::array<std::array<const char*, 2>, 3> kAliases = {{
    {"W_q", "W_Q"},
    {"W_k", "W_K"},
    {"W_V", "W_v"},
}};

}  // namespace

const char* canonical_weight_name(std::string_view key) {
  for (const auto& names : kAliases) {
    if (key == names[0] || key == names[1]) return names[0];
  }
  return nullptr;
}

namespace {

std::string lowercase(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

Error unknown_key(const Problem& problem, const std::string& key) {
  const std::string shown = shorten_for_message(key);
  std::string hint;
  for (const auto& name : problem.submit) {
    if (lowercase(key) == lowercase(name)) hint = " (did you mean " + name + "?)";
  }
  if (const char* canonical = canonical_weight_name(key);
      canonical && problem.given.count(canonical)) {
    return key_error(ErrorCode::kUnknownField,
                     key + " is given by this problem, not chosen by you; send only " +
                         list_names(problem.submit),
                     key);
  }
  return key_error(ErrorCode::kUnknownField,
                   "unknown field \"" + shown + "\"" + hint + "; this problem takes " +
                       list_names(problem.submit) + ", and optionally student and max_failures",
                   key);
}

}  // namespace

Result<int> parse_max_failures(const Json& value) {
  const std::string want = "max_failures must be a whole number from 0 to " +
                           std::to_string(limits::kMaxMaxFailures) + "; it is ";
  if (!value.is_number()) {
    return Error{ErrorCode::kWrongType, want + describe_json_type(value), "max_failures"};
  }
  const double x = value.get<double>();
  if (!(x >= 0 && x <= limits::kMaxMaxFailures && x == std::floor(x)) ||
      (value.is_number_integer() && !value.is_number_unsigned() && value.get<std::int64_t>() < 0)) {
    return Error{ErrorCode::kOutOfRange, want + value.dump(), "max_failures"};
  }
  return static_cast<int>(x);
}

std::optional<Error> check_shapes(const Problem& problem, const HeadWeights& w,
                                  const std::array<std::string, 3>& sent_as) {
  const auto n_e = static_cast<Eigen::Index>(problem.n_e);
  const auto n_v = static_cast<Eigen::Index>(problem.n_v);
  // Every name asked for here is one of kWeightNames.
  const auto shown = [&](const char* name) -> const std::string& {
    return sent_as[weight_index(name)];
  };
  const auto submitted = [&](const char* name) { return !shown(name).empty(); };
  const std::array<std::pair<const char*, const Matrix*>, 3> all = {
      {{"W_q", &w.W_q}, {"W_k", &w.W_k}, {"W_V", &w.W_V}}};
  for (const auto& [name, m] : all) {
    if (!submitted(name) || m->cols() == n_e) continue;
    return Error{ErrorCode::kWrongShape,
                 shown(name) + " must have " + count_of(problem.n_e, "column", "columns") +
                     " (one per embedding feature, n_e = " + std::to_string(n_e) + "); it has " +
                     std::to_string(m->cols()),
                 shown(name)};
  }
  if (submitted("W_V") && w.W_V.rows() != n_v) {
    return Error{ErrorCode::kWrongShape,
                 shown("W_V") + " must have " + count_of(problem.n_v, "row", "rows") +
                     " (one per component of the expected output, n_v = " + std::to_string(n_v) +
                     "); it has " + std::to_string(w.W_V.rows()),
                 shown("W_V")};
  }
  if (w.W_q.rows() != w.W_k.rows()) {
    // Blame the second of the pair the student sent (or the only one sent).
    const char* blamed = submitted("W_k") ? "W_k" : "W_q";
    const char* other = blamed == std::string("W_k") ? "W_q" : "W_k";
    const Matrix& b = blamed == std::string("W_k") ? w.W_k : w.W_q;
    const Matrix& o = blamed == std::string("W_k") ? w.W_q : w.W_k;
    const std::string other_shown =
        submitted(other) ? shown(other) : "the given " + std::string(other);
    return Error{ErrorCode::kWrongShape,
                 shown(blamed) + " must have " +
                     count_of(static_cast<std::size_t>(o.rows()), "row", "rows") + ", as many as " +
                     other_shown + " (queries and keys share the size n_q); it has " +
                     std::to_string(b.rows()),
                 shown(blamed)};
  }
  return std::nullopt;
}

Result<Submission> parse_submission(const Problem& problem, std::string_view body) {
  if (auto submission = parse_well_formed_submission(problem, body)) return std::move(*submission);
  return parse_submission_tree(problem, body);
}

Result<Submission> parse_submission_tree(const Problem& problem, std::string_view body) {
  auto parsed = parse_json_checked(body, limits::kMaxJsonDepth, "the body");
  if (!parsed) return parsed.error();
  const Json& json = parsed.value();
  if (!json.is_object()) {
    return Error{ErrorCode::kNotAnObject,
                 "the body must be a JSON object such as {\"W_q\": [[1, 1]], …}; it is " +
                     describe_json_type(json),
                 ""};
  }

  // Which keys came, under which spelling.
  std::map<std::string, std::string> sent_as;  // canonical -> as sent
  for (const auto& [key, value] : json.items()) {
    if (key == "student" || key == "max_failures") continue;
    const char* canonical = canonical_weight_name(key);
    if (!canonical || problem.given.count(canonical)) return unknown_key(problem, key);
    if (auto [it, fresh] = sent_as.emplace(canonical, key); !fresh) {
      return key_error(ErrorCode::kDuplicateField,
                       it->second + " and " + key + " name the same matrix; send it once", key);
    }
  }
  for (const auto& name : problem.submit) {
    if (!sent_as.count(name)) {
      return Error{ErrorCode::kMissingField,
                   name + " is missing; this problem asks for " + list_names(problem.submit), name};
    }
  }

  Submission submission;
  for (const auto& [name, m] : problem.given) submission.weights.by_name(name) = m;
  for (const char* name : kWeightNames) {  // W_q, W_k, W_V: the order a student reads them
    const auto sent = sent_as.find(name);
    if (sent == sent_as.end()) continue;
    auto m = parse_matrix(json.at(sent->second), sent->second);
    if (!m) return m.error();
    submission.weights.by_name(name) = std::move(m).value();
  }
  std::array<std::string, 3> sent_under;
  for (const auto& [canonical, as_sent] : sent_as) sent_under[weight_index(canonical)] = as_sent;
  if (auto error = check_shapes(problem, submission.weights, sent_under)) return *error;

  if (json.contains("max_failures")) {
    auto n = parse_max_failures(json.at("max_failures"));
    if (!n) return n.error();
    submission.max_failures = n.value();
  } else {
    submission.max_failures = limits::kDefaultMaxFailures;
  }
  if (json.contains("student")) {
    const auto& student = json.at("student");
    if (!student.is_string()) {
      return Error{
          ErrorCode::kWrongType,
          "student must be a string (a name or an id); it is " + describe_json_type(student),
          "student"};
    }
    submission.student = student.get<std::string>();
  }
  return submission;
}

}  // namespace headgrader
