// The LTI 1.3 tool inside the server (API.md §11): the routes /lti/login, /lti/launch,
// /lti/deep-link and /.well-known/jwks.json, the student token's authority over gradings of its
// problem, and the score passback of each such grading. The checks themselves live in lti/;
// this is the wiring, with the single-use values, the student tokens and the outbox behind
// lti/'s interfaces: in the submission record's store (server/lti_tool/lti_store_adapter.h), or in
// memory with --store none (lost when the server stops, and not shared between servers).
// Thread-safety: every method may be called from any thread.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "ags_client.h"
#include "auth.h"
#include "error_response.h"
#include "http_client.h"
#include "keyset_cache.h"
#include "launch_tokens.h"
#include "login_state.h"
#include "lti_config.h"
#include "once_set.h"
#include "passback_worker.h"
#include "problem_catalog.h"
#include "score_outbox.h"
#include "submission_store.h"

namespace headgrader::server {

using lti::Clock;

struct LtiOptions {
  std::filesystem::path file;  // --lti FILE
  bool allow_http = false;     // --lti-allow-http
  // Hidden test flags (--lti-keyset-refetch-ms, --lti-backoff-ms): a shorter rate limit on
  // refetching a keyset and a shorter first back-off, so the e2e suite runs in seconds.
  std::chrono::milliseconds keyset_refetch = limits::kLtiKeysetRefetchInterval;
  std::chrono::milliseconds first_backoff = limits::kPassbackFirstBackoff;
};

class LtiService;

// Whether a grading body's `student` has the shape of a launched student's identity
// (lti/launch_identity.h), with the issuers of `lti` (may be null: without --lti): only a
// launch may name such a student, so a body that does is refused (launched_identity_refusal).
bool names_launched_student(const LtiService* lti, std::string_view student);
// The 403 for such a body, naming the field `student`.
Error launched_identity_refusal();

class LtiService {
 public:
  // Loads the --lti file and its key; an Error names what is wrong (the server then stops).
  // `problems` must outlive the service. `log` gets one line per refused launch and per
  // passback trouble.
  // `store` (may be null: --store none) must outlive the service too.
  static Result<std::unique_ptr<LtiService>> open(const LtiOptions& options,
                                                  ProblemCatalog& problems,
                                                  store::SubmissionStore* store,
                                                  std::function<void(const std::string&)> log);
  ~LtiService();

  // The answers of the LTI routes, whose paths and methods the router has checked
  // (server/routes/route_table.h): GET or POST /lti/login, POST /lti/launch, POST /lti/deep-link,
  // GET /.well-known/jwks.json.
  Response login(const Request& request);
  // launch() never waits on a platform: a launch whose key is not already held fresh (a
  // rotation, the hourly refetch, a made-up kid, which anyone can send) would have to fetch
  // the keyset, which a slow or hanging platform makes take up to limits::kLtiFetchTimeout.
  // For such a launch waits_on_platform() is true, and the router answers it with
  // launch_fetching() off the io threads (Routed::rest) instead.
  Response launch(const Request& request);
  bool waits_on_platform(const Request& launch_request) const;
  Response launch_fetching(const Request& request);
  Response deep_link(const Request& request);
  Response jwks(const Request& request) const;

  // The student tokens of launches, for authenticate() (auth.h): a grant names the student
  // (ISSUER#sub), the problem and the launch (token_hash of the token). Deep-linking tokens
  // grant nothing.
  const StudentTokens* student_tokens() const { return &student_tokens_; }

  // What the record of a launched student's grading carries (with a store): the launch's
  // course and link, and the score to queue in the record's transaction when the launch has a
  // line item. `time`: the grading's (the score's timestamp, the same on every retry). A
  // launch that cannot be read (the store down) gives no passback and a log line.
  struct LaunchOfGrading {
    std::optional<std::string> context, resource_link;
    std::optional<store::PassbackRequest> passback;
  };
  // With `kept` = kBest the score sent is the best of this grading's and the student's earlier
  // ones through the same link (the gradebook keeps the latest it is sent), decided where the
  // record commits (PassbackRequest::best_payload); an Error when the launch cannot be read.
  Result<LaunchOfGrading> launch_of(const StudentGrant& student, double score, store::TimeMs time,
                                    PassbackScore kept);
  // A score was committed to the store's outbox: send it now rather than at the next poll.
  void score_queued();

  // Without a store: a grading by a launched student was answered; queue its score in memory
  // when the launch has a line item.
  void graded(const StudentGrant& student, double score, const std::string& submission_id,
              Clock::time_point time);

  // The bodies of the staff routes GET /v1/passback?status=… ({"passback": [{"id",
  // "submission_id", "status", "attempts", "last_status", "last_error"}…]}, newest first, at
  // most limits::kMaxPassbackListed, with or without a store) and POST
  // /v1/passback/{id}/retry (true: requeued, 202; false: no failed entry with that id, 404).
  // The router answers them for staff keys (§7); an unknown status is a 400.
  Result<std::string> passback_list(std::string_view status);
  Result<bool> passback_retry(const std::string& id);

  lti::ScoreOutbox& outbox() { return *outbox_; }
  const lti::LtiConfig& config() const { return config_; }

 private:
  LtiService(lti::LtiConfig config, ProblemCatalog& problems, store::SubmissionStore* store,
             const LtiOptions& options, std::function<void(const std::string&)> log);

  // The launch, its key looked up in `keys`.
  Response launch(const Request& request, lti::KeySource& keys);
  Response refused(const Request& request, const Error& error, std::string_view route);

  const lti::LtiConfig config_;
  class Tokens final : public StudentTokens {
   public:
    explicit Tokens(lti::LaunchTokens& tokens) : tokens_(tokens) {}
    std::optional<StudentGrant> find(std::string_view token) const override;

   private:
    lti::LaunchTokens& tokens_;
  };

  ProblemCatalog& problems_;
  std::function<void(const std::string&)> log_;
  lti::BeastHttpClient http_;
  lti::KeysetCache keys_;
  // The keys keys_ holds, never fetching: what route() verifies launches with.
  class HeldKeys final : public lti::KeySource {
   public:
    explicit HeldKeys(const lti::KeysetCache& cache) : cache_(cache) {}
    Result<lti::RsaKey> key(const lti::Platform& platform, const std::string& kid,
                            Clock::time_point now) override;

   private:
    const lti::KeysetCache& cache_;
  };
  HeldKeys held_keys_{keys_};
  lti::LoginStates states_;
  std::unique_ptr<lti::OnceSet> once_;
  std::unique_ptr<lti::LaunchTokens> tokens_;
  Tokens student_tokens_{*tokens_};
  std::unique_ptr<lti::ScoreOutbox> outbox_;
  lti::AgsClient ags_;
  std::string jwks_json_;
  std::unique_ptr<lti::PassbackWorker> worker_;  // last: stopped first
};

}  // namespace headgrader::server
