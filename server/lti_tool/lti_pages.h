// The HTML pages of the LTI routes (API.md §11): a refused launch (what to tell the
// instructor, which check failed), the launched student page (until web/'s page is served
// here: the student's name, the problem and the student token as
// <meta name="headgrader-token">), the instructor's problem picker for deep linking, and the
// page that posts a signed message back to the platform. Every value is HTML-escaped.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace headgrader::server {

std::string html_escape(std::string_view text);

std::string lti_refused_page(std::string_view check, std::string_view advice,
                             std::string_view detail);

// The student page (web/index.html) for a launch: its meta tags carry the student token, the
// problem and the student's name (API.md §11).
std::string lti_student_page(std::string_view token, std::string_view problem_id,
                             std::string_view student_name);

// `problems`: (id, title) in the order shown; each choice posts token + problem to `action`.
std::string lti_picker_page(std::string_view action, std::string_view token,
                            const std::vector<std::pair<std::string, std::string>>& problems);

// Posts field=value to `action` as soon as it loads (a button without scripts).
std::string lti_autopost_page(std::string_view action, std::string_view field,
                              std::string_view value);

}  // namespace headgrader::server
