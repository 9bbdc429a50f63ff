#include "login_state.h"

#include <openssl/x509.h>

#include <charconv>
#include <stdexcept>

#include "common/base64url.h"
#include "common/limits.h"
#include "common/secrets.h"
#include "jws.h"
#include "lti_check.h"

namespace headgrader::lti {
namespace {

constexpr std::string_view kStatePurpose = "headgrader lti login state v1\n";
constexpr std::size_t kCookieIdChars = 16;

}  // namespace

LoginStates::LoginStates(const RsaKey& tool_key) {
  unsigned char* der = nullptr;
  const int length = i2d_PrivateKey(tool_key.get(), &der);
  if (length <= 0) throw std::runtime_error("the tool's private key cannot be encoded");
  secret_ = sha256(std::string(kStatePurpose) + std::string(reinterpret_cast<const char*>(der),
                                                            static_cast<std::size_t>(length)));
  OPENSSL_clear_free(der, static_cast<std::size_t>(length));
}

std::string LoginStates::mac(std::string_view what) const {
  return base64url_encode(hmac_sha256(secret_, what));
}

std::string LoginStates::cookie_name(std::string_view state) {
  return "lti_state_" + std::string(state.substr(0, kCookieIdChars));
}

// state = RANDOM "." EXPIRY "." MAC("state" RANDOM EXPIRY); nonce = MAC("nonce" state).
LoginStates::Issued LoginStates::issue(Clock::time_point now) const {
  Issued issued;
  issued.expires = now + limits::kLtiStateLifetime;
  // Issued's callers read it whole (server/lti_tool/lti_service.cc): a generator that fails throws
  // std::bad_optional_access here, which the session answers 500, never a guessable state.
  const std::string body =
      random_token(24).value() + "." + std::to_string(unix_seconds(issued.expires));
  issued.state = body + "." + mac("state." + body);
  issued.nonce = mac("nonce." + issued.state);
  issued.cookie_name = cookie_name(issued.state);
  return issued;
}

Result<std::string> LoginStates::check(std::string_view state,
                                       std::optional<std::string_view> cookie, OnceSet& once,
                                       Clock::time_point now) const {
  if (state.empty()) return check_failure(check::kState, "the launch has no state");
  const std::size_t last_dot = state.rfind('.');
  const std::size_t first_dot = state.find('.');
  if (last_dot == std::string_view::npos || first_dot == last_dot ||
      !constant_time_equal(mac("state." + std::string(state.substr(0, last_dot))),
                           state.substr(last_dot + 1))) {
    return check_failure(check::kState, "the state was not issued by this tool");
  }
  const std::string_view expiry_text = state.substr(first_dot + 1, last_dot - first_dot - 1);
  long long expiry = 0;
  const auto [end, ec] =
      std::from_chars(expiry_text.data(), expiry_text.data() + expiry_text.size(), expiry);
  if (ec != std::errc() || end != expiry_text.data() + expiry_text.size()) {
    return check_failure(check::kState, "the state was not issued by this tool");
  }
  const Clock::time_point expires{std::chrono::seconds(expiry)};
  if (expires <= now) {
    return check_failure(check::kState, "the state has expired (a login is good for " +
                                            std::to_string(limits::kLtiStateLifetime.count()) +
                                            " s)");
  }
  if (cookie && !constant_time_equal(*cookie, state)) {
    return check_failure(check::kState, "the state is not the one this browser's cookie holds");
  }
  Result<bool> first = once.consume("state", state, expires, now);
  if (!first) return first.error();
  if (!*first) return check_failure(check::kState, "the state was used already");
  return mac("nonce." + std::string(state));
}

}  // namespace headgrader::lti
