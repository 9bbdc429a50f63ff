// read_submission_tree (submission_readers.h): the body through a JSON tree, checked in the
// order a student would fix things: the JSON itself, then which keys are there, then each
// matrix, then how the matrices fit the problem and each other. Every fault is worded here.
#include <array>
#include <cctype>
#include <map>
#include <string>

#include "headgrader/json_input.h"
#include "headgrader/limits.h"
#include "matrix_json.h"
#include "message_text.h"
#include "submission_readers.h"
#include "submission_rules.h"

namespace headgrader {
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

Result<Submission> read_submission_tree(const Problem& problem, std::string_view body) {
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
    if (key == kStudentKey || key == kMaxFailuresKey) continue;
    const char* canonical = canonical_weight_name(key);
    if (!canonical || !is_submitted(problem, canonical)) return unknown_key(problem, key);
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

  if (const auto max_failures = json.find(kMaxFailuresKey); max_failures != json.end()) {
    auto n = parse_max_failures(*max_failures);
    if (!n) return n.error();
    submission.max_failures = n.value();
  } else {
    submission.max_failures = limits::kDefaultMaxFailures;
  }
  if (const auto found = json.find(kStudentKey); found != json.end()) {
    const Json& student = *found;
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
