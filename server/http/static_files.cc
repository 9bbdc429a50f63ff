#include "static_files.h"

#include <algorithm>

namespace headgrader::server {

// Defined in the file web/embed.cmake generates.
extern const WebAsset kWebAssets[];
extern const std::size_t kWebAssetCount;

namespace {

// Everything the page needs comes from its own origin; nothing inline runs (the page has no
// inline script or style attribute), and no other site may be contacted. No frame-ancestors:
// an LMS shows the page in its own frame (API.md §11).
constexpr std::string_view kPagePolicy =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'";

// The staff's page (API.md §16) under the same rules, and framed by nobody: an LMS has no
// reason to show it, and a page of another site that framed it could trick a signed-in
// instructor's clicks (save, regrade). It frames the student page itself, for the preview.
constexpr std::string_view kStaffPagePolicy =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'";

// If-None-Match holds a list of ETags (or "*"); weak ones (W/"…") match too (RFC 9110 §13.1.2).
bool etag_listed(std::string_view header, std::string_view etag) {
  return header.find('*') != std::string_view::npos || header.find(etag) != std::string_view::npos;
}

}  // namespace

std::string_view page_policy() { return kPagePolicy; }

std::span<const WebAsset> web_assets() { return {kWebAssets, kWebAssetCount}; }

const WebAsset* find_web_asset(std::string_view path) {
  const WebAsset* end = kWebAssets + kWebAssetCount;
  const WebAsset* found =
      std::find_if(kWebAssets, end, [&](const WebAsset& asset) { return asset.path == path; });
  return found == end ? nullptr : found;
}

Response web_asset_response(const WebAsset& asset, const Request& request) {
  const auto if_none_match = request.find(http::field::if_none_match);
  const bool unchanged =
      if_none_match != request.end() && etag_listed(if_none_match->value(), asset.etag);
  Response response{unchanged ? http::status::not_modified : http::status::ok, request.version()};
  response.set(http::field::server, "headgrader");
  response.set(http::field::content_type, asset.content_type);
  response.set(http::field::cache_control, "no-cache");
  response.set(http::field::etag, asset.etag);
  response.set("X-Content-Type-Options", "nosniff");
  if (asset.path == "/") response.set("Content-Security-Policy", kPagePolicy);
  if (asset.path == "/staff") {
    response.set("Content-Security-Policy", kStaffPagePolicy);
    // For browsers that predate frame-ancestors.
    response.set("X-Frame-Options", "DENY");
    // The key is typed into this page: nothing of it goes to another site in a Referer.
    response.set("Referrer-Policy", "no-referrer");
  }
  response.keep_alive(request.keep_alive());
  if (!unchanged) response.body() = std::string(asset.body);
  response.prepare_payload();
  return response;
}

}  // namespace headgrader::server
