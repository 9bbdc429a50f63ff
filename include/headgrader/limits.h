// Every limit of the service in one place: what a submission, a problem file and an HTTP
// request may be. The contract (API.md) fixes some; the rest are ours, documented in the
// README. Changing one here changes it everywhere, including the error messages.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace headgrader::limits {

// --- Matrices (API.md §5) -----------------------------------------------------------------
inline constexpr std::size_t kMaxMatrixRows = 64;
inline constexpr std::size_t kMaxMatrixColumns = 64;  // n_e of a problem is bounded the same
inline constexpr double kMaxAbsEntry = 1e6;

// --- Problem files and tested strings (API.md §2, §4) ---------------------------------------
inline constexpr std::size_t kMaxStringLength = 64;     // strings.max_length
inline constexpr std::size_t kMaxAlphabetSize = 256;
inline constexpr std::size_t kMaxExamples = 1000;
inline constexpr std::uint64_t kMaxRandomStrings = 10000;
// The tested set (exhaustive + examples + random, counted before duplicates are dropped).
// Admits every string up to length 24 over two groups (33 554 430) with room for examples
// and random strings; length 25 over two groups (67 108 862) is refused.
inline constexpr std::uint64_t kTestedStringBudget = 40'000'000;
inline constexpr std::size_t kMaxExpectedLength = 4096;  // characters of `expected`
// A problem's count states (grader/count_states.h) are kept when their (state, last group)
// pairs times the output size stay within this many numbers (8 MiB); beyond, each grade
// finds the states it needs as it goes.
inline constexpr std::size_t kMaxCountStateNumbers = std::size_t{1} << 20;
inline constexpr std::size_t kMaxProblemFileBytes = 4 * 1024 * 1024;

// --- Submissions (API.md §5) -----------------------------------------------------------------
inline constexpr int kDefaultMaxFailures = 3;
inline constexpr int kMaxMaxFailures = 100;
// JSON nesting accepted in any body or file, checked on the SAX events before the tree grows.
// A submission needs 3 (object, matrix, row).
inline constexpr std::size_t kMaxJsonDepth = 32;

// --- HTTP (API.md §5, §6) --------------------------------------------------------------------
inline constexpr std::size_t kMaxBodyBytes = 1024 * 1024;
inline constexpr std::size_t kMaxHeaderBytes = 16 * 1024;
inline constexpr std::chrono::seconds kReadTimeout{10};   // whole request, from its first byte
inline constexpr std::chrono::seconds kIdleTimeout{30};   // keep-alive between requests
inline constexpr std::chrono::seconds kWriteTimeout{10};
inline constexpr std::chrono::seconds kShutdownGrace{5};  // in-flight requests on SIGTERM
// After answering with an error and closing our side, how long unread input from the client
// is drained so that the answer is not lost to a TCP reset, and how much of it at most.
inline constexpr std::chrono::seconds kLingerTimeout{2};
inline constexpr std::size_t kMaxLingerBytes = 4 * 1024 * 1024;
inline constexpr std::size_t kMaxConnections = 2048;
// A grading takes long when its problem is graded string by string (no count states: W_P, a
// head that is not causal, or `expected` reading positions) over more tested strings than
// this, about 10 ms on the development VM (a problem at the budget takes seconds). It then runs
// on threads of its own, so that /healthz, the other connections and SIGTERM are answered
// meanwhile (README, Long gradings).
inline constexpr std::uint64_t kLongGradingStrings = 32'768;
// The access log is written in batches (server/access_log.h): a line reaches stderr at most
// this long after its request was answered, and lines waiting to be written take at most this
// much memory (beyond it, requests wait for the log, as with unbuffered writes).
inline constexpr std::chrono::milliseconds kAccessLogFlushInterval{10};
inline constexpr std::size_t kAccessLogMaxPendingBytes = 4 * 1024 * 1024;

// --- Keys and roles (API.md §7) ----------------------------------------------------------------
inline constexpr std::size_t kKeyBytes = 32;  // random bytes of a key: 43 base64url characters
inline constexpr std::size_t kMaxKeyNameBytes = 100;
// A key presented in Authorization longer than this cannot be one of ours (nor a token).
inline constexpr std::size_t kMaxBearerBytes = 512;

// --- Problems that change (API.md §9) ---------------------------------------------------------
// After a change in the problems folder, how long the watcher waits for more before loading
// the folder again (an editor's save is several events), and how often it looks at the folder
// when inotify cannot see it (network and container mounts). Both keep a reload within 2 s.
inline constexpr std::chrono::milliseconds kReloadSettle{200};
inline constexpr std::chrono::milliseconds kReloadPollInterval{1000};

// --- LTI 1.3 (API.md §11) --------------------------------------------------------------------
// Clock skew allowed on an id_token's exp and iat.
inline constexpr std::chrono::seconds kLtiClockSkew{60};
// A login's state (and its nonce) can be used this long after /lti/login issued it.
inline constexpr std::chrono::seconds kLtiStateLifetime{600};
// A used nonce is remembered at least this long (an id_token's own exp, plus skew, when later).
inline constexpr std::chrono::seconds kLtiNonceMemory{3600};
// The student token of a launch (API.md §11: 4 h).
inline constexpr std::chrono::seconds kLtiStudentTokenLifetime{4 * 3600};
// An id_token, a JWKS or a token endpoint's answer larger than this is refused.
inline constexpr std::size_t kLtiMaxTokenBytes = 64 * 1024;
inline constexpr std::size_t kLtiMaxFetchBytes = 1024 * 1024;
// JSON nesting accepted in a JWT's header and payload (checked before parsing).
inline constexpr std::size_t kLtiMaxJsonDepth = 16;
// RSA moduli accepted from a platform's JWKS.
inline constexpr int kLtiMinRsaBits = 2048;
inline constexpr int kLtiMaxRsaBits = 8192;
// A platform's keyset is fetched again after this long, and on an unknown kid at most once
// per this interval (key rotation without letting forged kids make us hammer the platform).
inline constexpr std::chrono::seconds kLtiKeysetTtl{3600};
inline constexpr std::chrono::seconds kLtiKeysetRefetchInterval{10};
// Outgoing HTTP calls (JWKS, token, scores): connect + write + read within this.
inline constexpr std::chrono::seconds kLtiFetchTimeout{10};
// Our client assertion's life (client-credentials grant) and the deep-linking response's.
inline constexpr std::chrono::seconds kLtiAssertionLifetime{60};
// An access token is renewed this long before the platform says it expires.
inline constexpr std::chrono::seconds kLtiTokenRenewMargin{60};
// Score passback back-off: the first retry after this, doubling up to the cap; retried until
// the platform takes the score or refuses it with a 4xx other than 401/429.
inline constexpr std::chrono::milliseconds kPassbackFirstBackoff{1000};
inline constexpr std::chrono::milliseconds kPassbackMaxBackoff{15 * 60 * 1000};

}  // namespace headgrader::limits
