#include "lti_pages.h"

#include "static_files.h"

namespace headgrader::server {
namespace {

std::string page(std::string_view title, std::string_view head, std::string_view body) {
  std::string html = "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  html += head;
  html += "<title>" + html_escape(title) + "</title>\n</head>\n<body>\n";
  html += body;
  html += "</body>\n</html>\n";
  return html;
}

}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string lti_refused_page(std::string_view check, std::string_view advice,
                             std::string_view detail) {
  std::string body = "<h1>The grader could not open this problem</h1>\n<p>";
  body += html_escape(advice);
  body += "</p>\n<p>Check that failed: <code id=\"lti-check\">" + html_escape(check) +
          "</code></p>\n<p>Details: " + html_escape(detail) + "</p>\n";
  return page("Launch refused", "", body);
}

std::string lti_student_page(std::string_view token, std::string_view problem_id,
                             std::string_view student_name) {
  // The student page of API.md §10 itself, told by three meta tags which problem it is for,
  // whose name to show and which token to grade with (web/api.js, web/app.js).
  std::string head = "<meta name=\"headgrader-token\" content=\"" + html_escape(token) + "\">\n";
  head += "<meta name=\"headgrader-problem\" content=\"" + html_escape(problem_id) + "\">\n";
  head += "<meta name=\"headgrader-student\" content=\"" + html_escape(student_name) + "\">\n";
  std::string html(find_web_asset("/")->body);
  constexpr std::string_view kHead = "<head>\n";
  const std::size_t at = html.find(kHead);
  html.insert(at == std::string::npos ? 0 : at + kHead.size(), head);
  return html;
}

std::string lti_picker_page(std::string_view action, std::string_view token,
                            const std::vector<std::pair<std::string, std::string>>& problems) {
  std::string body = "<h1>Choose the problem to link</h1>\n<ul>\n";
  for (const auto& [id, title] : problems) {
    body += "<li><form method=\"post\" action=\"" + html_escape(action) + "\">";
    body += "<input type=\"hidden\" name=\"token\" value=\"" + html_escape(token) + "\">";
    body += "<input type=\"hidden\" name=\"problem\" value=\"" + html_escape(id) + "\">";
    body += "<button type=\"submit\">" + html_escape(title) + "</button> <code>" + html_escape(id) +
            "</code></form></li>\n";
  }
  body += "</ul>\n";
  return page("Link a problem", "", body);
}

std::string lti_autopost_page(std::string_view action, std::string_view field,
                              std::string_view value) {
  std::string body = "<form id=\"autopost\" method=\"post\" action=\"" + html_escape(action) +
                     "\">\n<input type=\"hidden\" name=\"" + html_escape(field) + "\" value=\"" +
                     html_escape(value) +
                     "\">\n<button type=\"submit\">Continue to the course</button>\n</form>\n"
                     "<script>document.getElementById('autopost').submit();</script>\n";
  return page("Returning to the course", "", body);
}

}  // namespace headgrader::server
