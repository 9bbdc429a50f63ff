#include "auth.h"

#include <algorithm>
#include <cctype>

#include "headgrader/limits.h"

namespace headgrader::server {
namespace {

// One message whatever was wrong with the credentials, so that it says nothing of which
// keys exist.
constexpr const char* kNeedKey =
    "this needs a valid key or student token, sent as Authorization: Bearer KEY";

Error unauthorized() { return {ErrorCode::kUnauthorized, kNeedKey, ""}; }

}  // namespace

Result<Principal> authenticate(const Request& request, const KeyRing* keys,
                               const StudentTokens* tokens) {
  const auto header = request.find(http::field::authorization);
  if (header == request.end()) return Principal{};
  std::string_view value = header->value();
  constexpr std::string_view kScheme = "bearer ";
  if (value.size() <= kScheme.size() ||
      !std::equal(kScheme.begin(), kScheme.end(), value.begin(), [](char a, char b) {
        return a == std::tolower(static_cast<unsigned char>(b));
      })) {
    return unauthorized();
  }
  value.remove_prefix(kScheme.size());
  while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
  if (value.empty() || value.size() > limits::kMaxBearerBytes) return unauthorized();
  if (keys != nullptr) {
    if (const KeyEntry* entry = keys->find(value)) {
      Principal who;
      who.kind = Principal::Kind::kKey;
      who.role = entry->role;
      who.key_name = entry->name;
      return who;
    }
  }
  if (tokens != nullptr) {
    if (std::optional<StudentGrant> grant = tokens->find(value)) {
      Principal who;
      who.kind = Principal::Kind::kStudent;
      who.student = std::move(*grant);
      return who;
    }
  }
  return unauthorized();
}

std::optional<Error> may_grade(const Principal& who, std::string_view problem,
                               GradingAccess access) {
  switch (who.kind) {
    case Principal::Kind::kKey:
      return std::nullopt;  // both roles grade
    case Principal::Kind::kStudent:
      if (who.student.problem == problem) return std::nullopt;
      return Error{ErrorCode::kForbidden,
                   "this student token is for the problem \"" + who.student.problem +
                       "\" only; open this problem from its own link in your course",
                   ""};
    case Principal::Kind::kNobody:
      break;
  }
  if (access == GradingAccess::kOpen) return std::nullopt;
  return unauthorized();
}

std::optional<Error> may_use_staff_route(const Principal& who, bool staff_enabled) {
  if (!staff_enabled) {
    return Error{ErrorCode::kStaffDisabled,
                 "staff routes are off: the server was started without --keys", ""};
  }
  if (who.kind == Principal::Kind::kNobody) return unauthorized();
  if (who.is_staff()) return std::nullopt;
  return Error{ErrorCode::kForbidden, "this needs a key with the staff role", ""};
}

Response unauthorized_response(const Error& error, unsigned version, bool keep_alive) {
  Response response = error_response(error, version, keep_alive);
  response.set(http::field::www_authenticate, "Bearer");
  return response;
}

}  // namespace headgrader::server
