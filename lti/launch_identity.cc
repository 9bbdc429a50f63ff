#include "launch_identity.h"

#include <cctype>

namespace headgrader::lti {
namespace {

bool starts_with_any_case(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i]) return false;
  }
  return true;
}

}  // namespace

std::string launch_identity(std::string_view issuer, std::string_view subject) {
  return std::string(issuer) + "#" + std::string(subject);
}

bool is_launch_identity(std::string_view student, const std::vector<std::string>& issuers) {
  const std::size_t hash = student.find('#');
  if (hash != std::string_view::npos) {
    const std::string_view before = student.substr(0, hash);
    // Any URL, not only the configured issuers: a platform added later, or one a store shared
    // with another server knows, must not find its students' names taken already.
    if (starts_with_any_case(before, "http://") || starts_with_any_case(before, "https://")) {
      return true;
    }
  }
  for (const std::string& issuer : issuers) {
    if (student.size() > issuer.size() && student.starts_with(issuer) &&
        student[issuer.size()] == '#') {
      return true;
    }
  }
  return false;
}

}  // namespace headgrader::lti
