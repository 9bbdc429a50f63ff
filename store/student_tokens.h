// The student tokens of LTI launches (API.md §11), kept by their hash so that a launch's token
// is good on every server of the database until it expires.
// Thread-safety: every method may be called from any thread at once.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "store_time.h"

namespace headgrader::store {

// The bearer token a launch hands the student page (§11), kept by its hash only.
struct StudentToken {
  std::string token_sha256;  // hex
  std::string student;       // ISSUER#sub
  std::string problem;
  std::string issuer;
  std::string client_id;
  std::optional<std::string> context;
  std::optional<std::string> resource_link;
  std::optional<std::string> lineitem;  // AGS line item URL, when the launch may post scores
  TimeMs expires = 0;
  // The rest of what the launch established, as its owner (server/lti_tool/lti_store_adapter.h)
  // writes it: JSON text, "" when nothing more (schema version 2).
  std::string details;
};

class StudentTokens {
 public:
  virtual ~StudentTokens() = default;

  virtual Result<bool> put_student_token(const StudentToken& token) = 0;
  // The unexpired token with this hash.
  virtual Result<std::optional<StudentToken>> find_student_token(std::string_view token_sha256,
                                                                 TimeMs now) = 0;
};

}  // namespace headgrader::store
