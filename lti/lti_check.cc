#include "lti_check.h"

#include <cstring>

namespace headgrader::lti {

Error check_failure(const char* which, std::string message) {
  const bool forbidden =
      std::strcmp(which, check::kDeployment) == 0 || std::strcmp(which, check::kProblem) == 0;
  return Error{forbidden ? ErrorCode::kForbidden : ErrorCode::kUnauthorized, std::move(message),
               which};
}

std::string shown(std::string_view text, std::size_t max) {
  std::string out;
  for (const char c : text.substr(0, max)) out += c >= ' ' && c <= '~' ? c : '?';
  if (text.size() > max) out += "...";
  return out;
}

std::string_view instructor_advice(std::string_view which) {
  if (which == check::kState || which == check::kNonce) {
    return "The launch could not be tied to this browser (it was used already, is too old, or "
           "the login was not started here). Go back to the course and open the link again; if "
           "it keeps failing, tell the instructor that the grader refused the launch's "
           "state or nonce.";
  }
  if (which == check::kDeployment) {
    return "Tell the instructor that this deployment of the tool is not registered in the "
           "grader's LTI configuration (its deployment id must be added to deployment_ids).";
  }
  if (which == check::kProblem) {
    return "Tell the instructor that this link does not name a problem the grader serves: the "
           "link's custom parameter problem=ID must be one of the grader's problem ids.";
  }
  if (which == check::kExpiry || which == check::kIssuedAt) {
    return "The launch was too old or dated in the future. Open the link again from the course; "
           "if it keeps failing, tell the instructor that the clocks of the LMS and the grader "
           "may differ by more than a minute.";
  }
  if (which == check::kKeyset) {
    return "The grader could not fetch the LMS's public keys. Try again in a minute; if it "
           "keeps failing, tell the instructor that the platform's keyset_url is unreachable.";
  }
  if (which == check::kLogin) {
    return "Tell the instructor that the LMS started the login with parameters the grader does "
           "not accept (the issuer, client id or deployment is not registered).";
  }
  return "Tell the instructor that the grader refused the launch from the LMS because its "
         "id_token failed the check named below; the tool's registration (issuer, client id, "
         "keyset URL) may not match the grader's LTI configuration.";
}

}  // namespace headgrader::lti
