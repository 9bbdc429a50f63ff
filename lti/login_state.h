// The state and nonce of an OIDC login (LTI 1.3 core §5.1.1). A state is made here, signed
// with a key derived from the tool's private key (so that every server of one --lti file
// accepts the others' states), and carries its expiry; the nonce is derived from the state.
// At the launch the state must be ours, unexpired, equal to the browser's state cookie when
// the browser sent one, and not used before (OnceSet), and the id_token's nonce must be the
// state's nonce. Browsers that block the cookie in an LMS iframe (third-party cookies) still
// launch: the signed single-use state and the nonce bind the id_token to this login; the
// cookie, when present, also binds it to this browser (docs/lti.md, State and cookies).
// Thread-safety: immutable after construction; issue() and check() may run on any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "once_set.h"
#include "rsa_key.h"

namespace headgrader::lti {

class LoginStates {
 public:
  explicit LoginStates(const RsaKey& tool_key);

  struct Issued {
    std::string state, nonce;
    std::string cookie_name;  // the state cookie's name, unique to this state
    Clock::time_point expires;
  };
  Issued issue(Clock::time_point now) const;

  // The nonce the id_token of this login must carry, or a check failure naming "state".
  // `cookie`: the value of the state's cookie when the browser sent it.
  Result<std::string> check(std::string_view state, std::optional<std::string_view> cookie,
                            OnceSet& once, Clock::time_point now) const;

  static std::string cookie_name(std::string_view state);

 private:
  std::string mac(std::string_view what) const;  // base64url HMAC under secret_
  std::string secret_;
};

}  // namespace headgrader::lti
