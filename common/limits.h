// Every limit of the service in one place: what a submission, a problem file and an HTTP
// request may be, and what the server, the record and LTI may hold, wait and spend (a flag's
// default and bounds included). The contract (API.md) fixes some; the rest are ours,
// documented in docs/http.md (Limits). Changing one here changes it everywhere, including the
// error messages (headgrader/limit_text.h writes them).
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
inline constexpr std::size_t kMaxStringLength = 64;  // strings.max_length
// A problem's id names its file (ID.json) and appears in paths and records: far longer than
// any real name, far shorter than a file name may be (255 bytes), so an over-long id in a
// path is a 404 and never an ENAMETOOLONG.
inline constexpr std::size_t kMaxProblemIdBytes = 64;
inline constexpr std::size_t kMaxAlphabetSize = 256;
inline constexpr std::size_t kMaxExamples = 1000;
inline constexpr std::uint64_t kMaxRandomStrings = 10000;
// The tested set (exhaustive + examples + random, counted before duplicates are dropped).
// Admits every string up to length 24 over two groups (33 554 430) with room for examples
// and random strings; length 25 over two groups (67 108 862) is refused.
inline constexpr std::uint64_t kTestedStringBudget = 40'000'000;
inline constexpr std::size_t kMaxExpectedLength = 4096;  // characters of `expected`
// Each level of nesting in `expected` costs the parser about ten stack frames; a cap keeps
// hostile input from overflowing the stack of a server thread. No real expression comes near it.
inline constexpr std::size_t kMaxExpectedNesting = 100;
// A problem's count states (grader/count_states.h) are kept when their (state, last group)
// pairs times the output size stay within this many numbers (8 MiB); beyond, each grade
// finds the states it needs as it goes.
inline constexpr std::size_t kMaxCountStateNumbers = std::size_t{1} << 20;
// A prefix whose positions do not compress (grader/token_kinds.h) reads its q, k, v, scores
// and softmax exponentials from tables of (group, position) keys (grader/prefix_head.h)
// when there are at most this many keys (e.g. 4 groups at 64 positions): their scores are
// keys² numbers, half a megabyte, and each query keeps at most kPrefixExpRowsPerQuery rows
// of exponentials (a row's maximum is nearly always one of a few keys; past that they are
// computed each time, the same bits).
inline constexpr std::size_t kMaxPrefixTableKeys = 256;
inline constexpr std::size_t kPrefixExpRowsPerQuery = 4;
// With those tables, a prefix's row is first computed from running sums per (query key,
// depth) (grader/prefix_head.h): max_length × keys × (2 + n_v) numbers. 2 MiB admits 256 keys
// at 64 positions with n_v ≤ 14, and the previous-letter problem at length 20 needs 3 200.
inline constexpr std::size_t kMaxPrefixRunningNumbers = std::size_t{1} << 18;
// `expected` that reads only a window of positions is kept per (length, groups read)
// (grader/prefix_expected.h) when there are at most this many: a grade makes one such table
// (and a failure's trace another), so it stays small; the previous-letter problem at length
// 20 needs 80 rows.
inline constexpr std::size_t kMaxExpectedWindowRows = 4096;
inline constexpr std::size_t kMaxProblemFileBytes = 4 * 1024 * 1024;
// Mistakes a problem's author names (API.md §14): each is derived at load like the problem
// itself (one more grading of the reference, one more per failing submission's diagnosis),
// so a handful; a name is a word, a message or hint a few sentences.
inline constexpr std::size_t kMaxAuthorMistakes = 8;
inline constexpr std::size_t kMaxMistakeNameBytes = 64;
inline constexpr std::size_t kMaxMistakeTextBytes = 2000;

// --- Submissions (API.md §5) -----------------------------------------------------------------
inline constexpr int kDefaultMaxFailures = 3;
inline constexpr int kMaxMaxFailures = 100;
// Failures kept for a platform's answer (headgrader gradescope / prairielearn): the first of
// each kind is shown.
inline constexpr int kPlatformMaxFailures = 1;
// A platform's file naming the student (Gradescope's submission_metadata.json, PrairieLearn's
// data.json), read when grading a variant: a few kilobytes, though Gradescope's lists the
// earlier submissions with their results; far longer is a wrong file, refused before it is read.
inline constexpr std::size_t kMaxPlatformMetadataBytes = 16 * 1024 * 1024;
// JSON nesting accepted in any body or file, checked on the SAX events before the tree grows.
// A submission needs 3 (object, matrix, row).
inline constexpr std::size_t kMaxJsonDepth = 32;
// Keys in one JSON object of any body or file, checked the same way. The contract's objects
// are small (a submission has at most 5 keys, a problem file 14, `given` and `reference` 3,
// `classes` one per class over at most 256 characters); a body of 1 MiB could hold 131 072.
inline constexpr std::size_t kMaxJsonObjectKeys = 1024;

// --- Named mistakes (API.md §13; grader/diagnosis.cc) ---------------------------------------
// What diagnosing one failing grade may spend, in tested strings judged: each grading of a
// changed copy costs the problem's tested strings when they are judged string by string, or
// its count-state slots when grading runs over those. A mistake whose gradings would pass the
// budget is not tried and is named in the answer's "diagnosis_not_tried". Counted in strings,
// not seconds, so that the same submission always gets the same answer; it is the size of a
// grading that still runs on the server's own threads (kLongGradingCost), about 10 ms on
// the development VM (docs/diagnosis.md).
inline constexpr std::uint64_t kDiagnosisBudgetStrings = 32'768;
// The largest factor key_too_soft / query_too_soft look for (doubling from 2).
inline constexpr double kMaxScoreFactor = 1024;
// value_rows_swapped tries the exchanges of two rows of W_V up to this many rows, and
// value_wrong names the off components up to this many (one grading each).
inline constexpr std::size_t kMaxDiagnosedValueRows = 8;
// A margin's score gap is computed when the (token, position) pairs a query can be are at
// most this many (groups × positions with W_P, groups without); beyond, it is left out.
inline constexpr std::size_t kMaxScoreGapTokens = 1024;

// --- Problems that prove themselves (API.md §14; grader/obstacles.cc, grader/solve*.cc) -----
// The obstacles' linear programs are a few tokens by a few features: a pivot tolerance far
// below any tolerance a problem uses, and a pivot cap no such program comes near (Bland's
// rule ends, this only bounds a degenerate input's cost).
inline constexpr double kObstacleLpEpsilon = 1e-10;
inline constexpr int kObstacleLpMaxPivots = 20'000;
// An obstacle is reported only when the least error any head can reach passes the tolerance
// by more than this: the programs are solved in doubles, and a false obstacle would refuse a
// solvable problem, while a target this close to the tolerance is a head the search finds.
inline constexpr double kObstacleProofSlack = 1e-7;
// Obstacles reported per kind: each names an input to change; past a few the rest say the same.
inline constexpr std::size_t kMaxObstaclesPerKind = 5;
// outside_values checks the tested prefixes of at most this many strings (shortest first), a
// few milliseconds; a larger tested set is checked up to the longest length that fits.
inline constexpr std::uint64_t kObstacleStringBudget = 20'000;
// `headgrader solve --seconds`: its default (API.md §14) and bound.
inline constexpr int kSolveDefaultSeconds = 30;
inline constexpr int kSolveMaxSeconds = 3600;
// The search's fixed schedule (the same steps on every machine; seconds only stop it between
// restarts): restarts per n_q, gradient steps per round, rounds per restart (each adds the
// failing strings the grader found to the strings trained on), the strings trained on at the
// start and the failing ones added per round. A restart ends early after a round that did
// not lower the number of failing strings.
inline constexpr int kSolveRestarts = 4;
inline constexpr int kSolveStepsPerRound = 300;
inline constexpr int kSolveRounds = 6;
inline constexpr std::size_t kSolveStartStrings = 160;
inline constexpr int kSolveAddedFailures = 32;
// n_q tried in turn when --n-q is not given, and the bound of --n-q.
inline constexpr int kSolveMaxDefaultNq = 3;
inline constexpr int kSolveMaxNq = 16;
// Failing strings listed in a not-found answer.
inline constexpr int kSolveMaxFailingListed = 10;
// POST /v1/problems/solve (the staff's page, API.md §16): `?seconds=` by default and at most.
// A search holds one of the long-grading threads for its whole budget, so the route's is a
// fraction of the command's: long enough for the bundled problems (well under a second each),
// short enough that a page waiting on it does not look hung. Longer searches: the command.
inline constexpr int kSolveRouteDefaultSeconds = 10;
inline constexpr int kSolveRouteMaxSeconds = 60;

// --- A problem for each student (API.md §15; grader/variant.cc, server/catalog/) -----------
// `variants.feature_scales`: a handful of scales to draw each row's from; the variant id
// writes one index per row, so a few suffice to make rows differ.
inline constexpr std::size_t kMaxFeatureScales = 16;
// A `feature_names` entry labels a row on the student's page: a word or two.
inline constexpr std::size_t kMaxFeatureNameBytes = 64;
// A variant id (grader/variant.h) writes a permutation of n_e (≤ kMaxMatrixColumns) rows, a
// scale index per row and a permutation of n_v (≤ kMaxMatrixRows) outputs, each number at
// most two digits and a dot: about 600 bytes at worst. Longer is refused before it is read.
inline constexpr std::size_t kMaxVariantIdBytes = 1024;
// --variant-secret: the HMAC key of a student's variant (API.md §15 fixes 32 bytes or more);
// a file far longer than any key is a wrong file.
inline constexpr std::size_t kMinVariantSecretBytes = 32;
inline constexpr std::size_t kMaxVariantSecretBytes = 64 * 1024;
// Proved variants kept per server, keyed by (problem, variant id), not by student: a problem
// has n_e!·|feature_scales|^n_e·n_v! variants at most, a dozen or so for the handout's, so a
// class of any size costs a few proofs; the bound keeps a large problem's from growing.
inline constexpr std::size_t kMaxCachedVariants = 1024;
// Students whose variant a server remembers per problem set, so that a student's next grading
// costs a lookup, not an HMAC (about 3 µs of a 30 µs grading): a class of 1 000 on 10 problems
// is 10 000; each costs about 100 bytes.
inline constexpr std::size_t kMaxCachedStudentVariants = 65536;
// Members of a pool (API.md §15): the evidence is for pools of 2–4 problems; a few dozen is a
// course's whole bank.
inline constexpr std::size_t kMaxPoolMembers = 64;

// --- HTTP (API.md §5, §6) --------------------------------------------------------------------
// The port when --port is not given (API.md §6).
inline constexpr std::uint16_t kDefaultPort = 8080;
// --threads at most: more threads than this buys nothing and hints at a typo.
inline constexpr unsigned kMaxThreads = 256;
// The hidden millisecond flags of the tests (--read-timeout-ms, docs/hardening.md;
// --lti-keyset-refetch-ms and --lti-backoff-ms, docs/lti.md) at most: ten minutes, longer
// than any test waits.
inline constexpr unsigned kMaxTestFlagMs = 600'000;
inline constexpr std::size_t kMaxBodyBytes = 1024 * 1024;
inline constexpr std::size_t kMaxHeaderBytes = 16 * 1024;
// What a connection's first read asks of the socket: enough for a whole small request in one
// read; bigger ones continue in the parser.
inline constexpr std::size_t kFirstReadBytes = 4096;
inline constexpr std::chrono::seconds kReadTimeout{10};  // whole request, from its first byte
inline constexpr std::chrono::seconds kIdleTimeout{30};  // keep-alive between requests
inline constexpr std::chrono::seconds kWriteTimeout{10};
inline constexpr std::chrono::seconds kShutdownGrace{5};  // in-flight requests on SIGTERM
// On SIGTERM, a connection accepted but without its first request yet was opened to send one
// (a balancer sends at once): it has this long to, before it is closed unanswered.
inline constexpr std::chrono::milliseconds kShutdownFirstRequestWait{250};
// How often a stopping server looks whether its last connection has closed.
inline constexpr std::chrono::milliseconds kDrainPollInterval{20};
// --healthcheck: connecting, sending GET /healthz and reading the answer, all within this.
inline constexpr std::chrono::seconds kHealthcheckTimeout{3};
// When accepting fails (out of descriptors or memory), the listener waits this long rather
// than spin on the same error.
inline constexpr std::chrono::milliseconds kAcceptRetryDelay{100};
// After answering with an error and closing our side, how long unread input from the client
// is drained so that the answer is not lost to a TCP reset, and how much of it at most.
inline constexpr std::chrono::seconds kLingerTimeout{2};
inline constexpr std::size_t kMaxLingerBytes = 4 * 1024 * 1024;
inline constexpr std::size_t kMaxConnections = 2048;
// The most connections one client address may hold (a client at it that opens another has
// its own longest-idle keep-alive connection closed, else gets 503). Half the cap: one client
// never holds every connection, whatever it sends. Behind a proxy every client shares the
// proxy's address; the hidden --max-connections-per-address flag raises it there.
inline constexpr std::size_t kMaxConnectionsPerAddress = kMaxConnections / 2;
// Bytes of answers written but not yet taken by their clients, over all connections. Beyond
// it, a client address holding at least an equal share waits before its next answer is
// computed (server/transport/answer_budget.h). One failing answer can be 5 MB (max_failures 100 on
// a problem with max_length 64), so this admits a dozen such at once.
inline constexpr std::size_t kUnsentAnswerBudget = 64 * 1024 * 1024;
// An answer built off the io threads (Routed::rest) is counted against the budget while it
// is built, at this many bytes for each number it may hold (headgrader/grading_cost.h:
// answer_cost; a number takes about 5.5 bytes of JSON on average, 24 at most), so that an
// address whose big answers are still being built waits as one whose answers are unread.
inline constexpr std::size_t kReservedBytesPerNumber = 8;
// A grading takes long when its estimated cost (headgrader/grading_cost.h: the attention
// work of a problem graded string by string, for the largest submission the contract
// allows) is over this, about 10 ms on the development VM (a problem at the budget takes
// seconds). It then runs on threads of its own, so that /healthz, the other connections and
// SIGTERM are answered meanwhile (docs/http.md, Long gradings).
inline constexpr std::uint64_t kLongGradingCost = 4'000'000;
// A grading is long too when its answer may hold more numbers than this (grading_cost.h:
// answer_cost), about 5 ms to compute and write: decided once the submission is read, since
// the submission's max_failures and n_q make most of an answer's size. The bundled problems'
// answers stay under it at max_failures 100 for a head of up to 8 query rows.
inline constexpr std::uint64_t kLongAnswerNumbers = 50'000;
// Long gradings queued or running at once, in all and per client address; one more is
// answered 429 rate_limited with Retry-After (seconds). A long grading holds its request's
// body (up to 1 MiB) until it runs, so these bound that memory too.
inline constexpr std::size_t kMaxLongGradings = 32;
// Behind a proxy every client shares its address: --max-long-gradings-per-address raises it.
inline constexpr std::size_t kMaxLongGradingsPerAddress = 2;
inline constexpr std::chrono::seconds kLongGradingRetryAfter{2};
// The nice value of the threads that run long gradings and problem loads
// (server/transport/background_priority.h): the io threads (nice 0) weigh about ten times as much
// with the scheduler, so /healthz and short gradings are answered while proofs take the cores.
inline constexpr int kBackgroundNice = 10;
// The access log is written in batches (server/http/access_log.h): a line reaches stderr at most
// this long after its request was answered, and lines waiting to be written take at most this
// much memory (beyond it, requests wait for the log, as with unbuffered writes).
inline constexpr std::chrono::milliseconds kAccessLogFlushInterval{10};
inline constexpr std::size_t kAccessLogMaxPendingBytes = 4 * 1024 * 1024;
// A logged path longer than this is cut (at a character boundary): a line stays a few hundred
// bytes whatever the client asks for.
inline constexpr std::size_t kMaxLoggedPathBytes = 256;
// An X-Request-Id sent by a client is kept up to this length (server/http/request_id.h): room
// for a UUID, a W3C traceparent or a proxy's id with a prefix, while a log line stays short.
inline constexpr std::size_t kMaxRequestIdBytes = 128;

// --- The submission record (API.md §8) ------------------------------------------------------
// Gradings committed in one transaction at most (group commit: the committer takes whatever
// waits, up to this many).
inline constexpr std::size_t kMaxCommitBatch = 256;
// How long a SQLite write waits for another writer (another server on the same file) before
// the store reports itself unavailable.
inline constexpr std::chrono::milliseconds kStoreBusyTimeout{5000};
// PostgreSQL: committer threads, each with its connection and a batch of its own. One: a
// PostgreSQL cluster flushes its WAL one transaction at a time (a second lane's commit waits
// for the first's sync), and a transaction has a fixed cost of about 480 µs of the database's
// CPU against about 7 µs a record, so two lanes only split what waits into two smaller
// batches: one lane was faster in every alternated round, with a 0.2 ms and with a 4 ms
// sync (docs/benchmarks-store.md, 2026-12-04). More may pay where a round trip to a distant
// database, not its sync, is what a batch waits for.
inline constexpr std::size_t kPostgresCommitterLanes = 1;
// SQLite: the WAL is copied back into the database file by a thread of its own each time
// commits have added this many pages to it (SQLite's own default threshold); once the WAL
// holds the third figure, the committer copies what is left by itself, which restarts the
// WAL from its first page; from the third figure less the second on, the thread is asked
// after every commit, so that what is left for the committer is a commit or two
// (store/sqlite/wal_checkpointer.h, docs/benchmarks-store.md).
inline constexpr int kSqliteCheckpointPages = 1000;
inline constexpr int kSqliteCheckpointCatchUpPages = 256;
inline constexpr int kSqliteCommitterCheckpointPages = 16000;
// SQLite: consecutive writes to a WAL file gathered into one write of at most this many bytes
// (a group commit of 30 pages is about 124 KB; store/sqlite/wal_write_gathering.h).
inline constexpr std::size_t kSqliteWalGatherBytes = 1 << 20;
// Connections a store opens at most for reads and small writes, beside the committers' own.
inline constexpr std::size_t kStorePoolConnections = 8;
// PostgreSQL: connecting, and any one statement, give up after these.
inline constexpr std::chrono::seconds kPostgresConnectTimeout{5};
inline constexpr std::chrono::seconds kPostgresStatementTimeout{10};
// Idempotency-Key: 1 to this many visible ASCII characters.
inline constexpr std::size_t kMaxIdempotencyKeyLength = 200;
// GET /v1/submissions: the page size by default and at most.
inline constexpr int kDefaultListLimit = 100;
inline constexpr int kMaxListLimit = 1000;
// GET /v1/submissions.csv of every record: the records read from the store and written as one
// piece of the streamed body. A page of about 120 KB: the most an export holds at once, and
// few enough store reads that 300 000 records take 300 of them.
inline constexpr int kCsvExportPageRecords = 1000;
// --rate-limit: an lms key may send this many times the per-student limit in a window.
inline constexpr std::int64_t kKeyRateMultiple = 100;
// --rate-limit N/PERIOD: N and PERIOD at most these (a year of 366 days).
inline constexpr std::int64_t kMaxRateLimitCount = 1'000'000;
inline constexpr std::chrono::seconds kMaxRateLimitPeriod{366 * 86400};
// GET /v1/problems/{id}/stats: the most common failures listed (API.md §9: top 10).
inline constexpr std::size_t kMaxCommonFailures = 10;

// --- Operations on the record (API.md §17) ----------------------------------------------------
// `headgrader backup` copies this many pages (4 KiB each: 4 MiB) per step of SQLite's backup
// API and holds the database's read lock only during a step, so servers writing the file wait
// for a step at most, never for the whole copy; a step that finds the file locked sleeps this
// long and tries again.
inline constexpr int kBackupStepPages = 1024;
inline constexpr std::chrono::milliseconds kBackupBusySleep{20};
// --retain-days N at most (a century): more is a typo, and N days in milliseconds stays far
// from the range of a 64-bit time.
inline constexpr int kMaxRetainDays = 36'600;
// Retention runs at start and then this often.
inline constexpr std::chrono::hours kRetentionInterval{24};
// Records deleted per transaction by retention: a transaction holds the database's write
// lock, so gradings wait at most one batch's deletes (a few milliseconds) rather than the
// whole sweep.
inline constexpr int kDeleteBatchRecords = 1000;

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
inline constexpr std::size_t kLtiStudentTokenBytes = 32;  // random: 43 base64url characters
// An id_token, a JWKS or a token endpoint's answer larger than this is refused.
inline constexpr std::size_t kLtiMaxTokenBytes = 64 * 1024;
inline constexpr std::size_t kLtiMaxFetchBytes = 1024 * 1024;
// JSON nesting accepted in a JWT's header and payload (checked before parsing).
inline constexpr std::size_t kLtiMaxJsonDepth = 16;
// JSON nesting accepted in the --lti file, a platform's JWKS and a token endpoint's answer
// (each needs at most 4 levels).
inline constexpr std::size_t kLtiMaxConfigDepth = 8;
inline constexpr std::size_t kLtiMaxKeysetDepth = 8;
inline constexpr std::size_t kLtiMaxTokenAnswerDepth = 8;
// RSA moduli accepted from a platform's JWKS (and, at least, of our own private_key).
inline constexpr int kLtiMinRsaBits = 2048;
inline constexpr int kLtiMaxRsaBits = 8192;
// The tool's own key, as `headgrader lti keygen` makes it.
inline constexpr int kLtiGeneratedRsaBits = 2048;
// Our JWKS (GET /lti/jwks) may be cached this long (Cache-Control: max-age).
inline constexpr std::chrono::seconds kLtiJwksMaxAge{300};
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
// A token whose answer gives no expires_in is kept this long (RFC 6749 leaves it open); a
// longer expires_in than the cap counts as the cap.
inline constexpr std::chrono::seconds kLtiDefaultTokenLifetime{300};
inline constexpr std::chrono::seconds kLtiMaxTokenLifetime{86400};
// The in-process MemoryOnceSet (lti/once_set.h) drops its expired records every this many
// inserts, so memory stays bounded by the values of one lifetime.
inline constexpr std::size_t kLtiOnceSweepInserts = 1024;
// The store's single-use values (a state put for one take) are dropped by the next put once
// they expired this long before that put's own expiry: values live an hour at most, so a
// day's margin keeps the table small and never drops one a slow clock could still ask for.
inline constexpr std::chrono::hours kStoreOnceRetention{24};
// Score passback back-off: the first retry after this, doubling up to the cap; retried until
// the platform takes the score or refuses it with a 4xx other than 401/429.
inline constexpr std::chrono::milliseconds kPassbackFirstBackoff{1000};
inline constexpr std::chrono::milliseconds kPassbackMaxBackoff{15 * 60 * 1000};
// Scores claimed per round, and how long a claim keeps them from other workers: longer than
// the token request and the score post of each can take.
inline constexpr std::size_t kPassbackClaimBatch = 16;
inline constexpr std::chrono::seconds kPassbackLease{5 * 60};
// The longest one score's send can take: a token request and the post, then after a 401 a
// new token and the post again, each within kLtiFetchTimeout. A claimed score is sent only
// while at least this much of its lease is left (else it is left for the next claim).
inline constexpr std::chrono::seconds kPassbackWorstSend{4 * kLtiFetchTimeout};
static_assert(kPassbackLease > 2 * kPassbackWorstSend);
// Scores are sent by host lanes (lti/passback_worker.h): one score at a time per line-item
// host, on at most this many threads, so that a host that never answers holds back only its
// own scores (and one thread) while the others' go out.
inline constexpr std::size_t kPassbackSenders = 4;
// Claimed scores waiting in the lanes, all hosts together; the worker claims no more past it.
inline constexpr std::size_t kPassbackMaxQueued = 256;
// GET /v1/passback lists at most this many items, newest first.
inline constexpr std::size_t kMaxPassbackListed = 1000;

}  // namespace headgrader::limits
