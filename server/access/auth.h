// Who sent a request (API.md §7): an `lms` or `staff` key from the keys file, a student token
// of an LTI launch (§11), or nobody, read from `Authorization: Bearer …`; and what each may
// do. Messages never say whether a key exists. Keys are looked up by their hash in constant
// time (keys.h).
// Thread-safety: pure functions over immutable inputs.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "error_response.h"
#include "headgrader/result.h"
#include "keys.h"

namespace headgrader::server {

// What a student token (§11) grants: gradings of one problem, recorded as this student.
struct StudentGrant {
  std::string student;  // ISSUER#sub
  std::string problem;  // the problem of the launch
  std::string launch;   // opaque id of the launch (for grade passback), may be empty
};

// Student tokens are issued by LTI launches; the server wires the store that keeps them.
class StudentTokens {
 public:
  virtual ~StudentTokens() = default;
  // The grant of a valid, unexpired token, else nullopt.
  virtual std::optional<StudentGrant> find(std::string_view token) const = 0;
};

struct Principal {
  enum class Kind { kNobody, kKey, kStudent };
  Kind kind = Kind::kNobody;
  Role role = Role::kLms;  // kKey only
  std::string key_name;    // kKey: the key's name, as in records
  StudentGrant student;    // kStudent only

  bool is_staff() const { return kind == Kind::kKey && role == Role::kStaff; }
};

// Grading without a key (§7 --grading): open without --keys, key with it.
enum class GradingAccess { kOpen, kKey };

// The credentials of a request. No Authorization header: Nobody. A Bearer value that is
// neither a key of `keys` nor a token of `tokens` (either may be null), or another scheme:
// 401 unauthorized.
Result<Principal> authenticate(const Request& request, const KeyRing* keys,
                               const StudentTokens* tokens);

// May `who` grade `problem`? Errors are 401 (nobody, where a key is needed) or 403.
std::optional<Error> may_grade(const Principal& who, std::string_view problem,
                               GradingAccess access);
// May `who` use a staff route? `staff_enabled` is false without --keys (403 staff_disabled).
std::optional<Error> may_use_staff_route(const Principal& who, bool staff_enabled);

// The 401 answer: the error body and WWW-Authenticate: Bearer (RFC 6750 §3).
Response unauthorized_response(const Error& error, unsigned version, bool keep_alive);

}  // namespace headgrader::server
