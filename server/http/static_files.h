// The student page (API.md §10) and the staff's page (§16) as the server serves them: every
// file of web/, embedded in the binary at build time (web/embed.cmake), index.html at "/",
// staff.html at "/staff" and the rest under /static/.
// Nothing is read from disk at run time, so the page works from any working directory.
// Thread-safety: the table is constant; the functions are pure.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "error_response.h"

namespace headgrader::server {

struct WebAsset {
  std::string_view path;          // "/", "/staff" or "/static/NAME"
  std::string_view content_type;  // with "; charset=utf-8" for text
  std::string_view body;
  std::string_view etag;  // quoted, as the ETag header carries it
};

// The Content-Security-Policy of the page (also when a launch serves it, API.md §11).
std::string_view page_policy();

// Every file of the page.
std::span<const WebAsset> web_assets();

// The asset served at `path` (already without its query), or nullptr.
const WebAsset* find_web_asset(std::string_view path);

// 200 with the asset, or 304 when the request's If-None-Match names its ETag. Each answer
// says `Cache-Control: no-cache` (the names do not change with the content, so a browser
// asks again each time and gets a 304 while nothing changed) and `nosniff`; the page itself
// also carries a Content-Security-Policy that lets it load and call only its own origin.
Response web_asset_response(const WebAsset& asset, const Request& request);

}  // namespace headgrader::server
