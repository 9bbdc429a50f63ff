// The student a launch names (API.md §11): ISSUER#sub, the platform's issuer (an http(s) URL
// by OpenID Connect) and the user's sub. Only a verified launch may grant such an identity:
// a grading body's `student` of that shape would let anyone record gradings, and spend the
// attempts, of a launched student whose sub is guessable (Moodle's is a number).
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace headgrader::lti {

std::string launch_identity(std::string_view issuer, std::string_view subject);

// Whether `student` has the shape of a launch's identity: the part before its first '#' is
// an http:// or https:// URL (any case), or it starts with one of `issuers` and '#'.
bool is_launch_identity(std::string_view student, const std::vector<std::string>& issuers);

}  // namespace headgrader::lti
