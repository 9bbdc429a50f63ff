#include "lti_service.h"

#include <algorithm>
#include <cctype>

#include "access_log.h"
#include "common/secrets.h"
#include "common/url_encoding.h"
#include "deep_linking.h"
#include "headgrader/limits.h"
#include "jws.h"
#include "launch_identity.h"
#include "launch_verifier.h"
#include "lti_check.h"
#include "lti_pages.h"
#include "lti_store_adapter.h"
#include "static_files.h"

namespace headgrader::server {
namespace {

// Where the picker page posts the choice: the deep-link route of the route table
// (server/routes/route_table.cc).
constexpr std::string_view kDeepLinkPath = "/lti/deep-link";

std::string_view query_of(std::string_view target) {
  const std::size_t q = target.find('?');
  return q == std::string_view::npos ? std::string_view() : target.substr(q + 1);
}

Response html_response(const Request& request, http::status status, std::string body) {
  Response response{status, request.version()};
  response.set(http::field::server, "headgrader");
  response.set(http::field::content_type, "text/html; charset=utf-8");
  // The pages carry tokens: never cached, never leaked through a Referer.
  response.set(http::field::cache_control, "no-store");
  response.set("Referrer-Policy", "no-referrer");
  response.keep_alive(request.keep_alive());
  response.body() = std::move(body);
  response.prepare_payload();
  return response;
}

bool is_form(const Request& request) {
  std::string type(request[http::field::content_type]);
  type = type.substr(0, type.find(';'));
  std::transform(type.begin(), type.end(), type.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  while (!type.empty() && type.back() == ' ') type.pop_back();
  return type == "application/x-www-form-urlencoded";
}

// The value of cookie `name` in the request's Cookie headers.
std::optional<std::string> cookie(const Request& request, std::string_view name) {
  const auto [first, last] = request.equal_range(http::field::cookie);
  for (auto field = first; field != last; ++field) {
    std::string_view rest = field->value();
    while (!rest.empty()) {
      const std::size_t semi = rest.find(';');
      std::string_view pair = rest.substr(0, semi);
      rest = semi == std::string_view::npos ? std::string_view() : rest.substr(semi + 1);
      while (!pair.empty() && pair.front() == ' ') pair.remove_prefix(1);
      const std::size_t eq = pair.find('=');
      if (eq != std::string_view::npos && pair.substr(0, eq) == name) {
        return std::string(pair.substr(eq + 1));
      }
    }
  }
  return std::nullopt;
}

std::string cookie_attributes(bool https, std::chrono::seconds max_age) {
  // Cross-site (the platform posts the launch) needs SameSite=None, which browsers only take
  // with Secure; on plain http (tests) the cookie is Lax and the signed state alone binds it.
  return "; Path=/lti/; Max-Age=" + std::to_string(max_age.count()) + "; HttpOnly" +
         (https ? "; SameSite=None; Secure" : "; SameSite=Lax");
}

// The score of one grading for the launch's line item: the same timestamp on every retry.
lti::Score score_of(const lti::LaunchBinding& binding, double score, Clock::time_point time) {
  return {binding.lineitem, binding.subject, score, rfc3339_millis(time)};
}

}  // namespace

bool names_launched_student(const LtiService* lti, std::string_view student) {
  std::vector<std::string> issuers;
  if (lti != nullptr) {
    for (const lti::Platform& platform : lti->config().platforms)
      issuers.push_back(platform.issuer);
  }
  return lti::is_launch_identity(student, issuers);
}

Error launched_identity_refusal() {
  return {ErrorCode::kForbidden,
          "student has the form ISSUER#sub (a URL, '#', an id) that names a student launched "
          "from the LMS, and only the launch itself may name that student; send another name, "
          "or open the problem from the LMS",
          "student"};
}

Result<std::unique_ptr<LtiService>> LtiService::open(const LtiOptions& options,
                                                     ProblemCatalog& problems,
                                                     store::SubmissionStore* store,
                                                     std::function<void(const std::string&)> log) {
  Result<lti::LtiConfig> config = lti::load_lti_config(options.file, options.allow_http);
  if (!config) return config.error();
  return std::unique_ptr<LtiService>(
      new LtiService(std::move(config).value(), problems, store, options, std::move(log)));
}

LtiService::LtiService(lti::LtiConfig config, ProblemCatalog& problems,
                       store::SubmissionStore* store, const LtiOptions& options,
                       std::function<void(const std::string&)> log)
    : config_(std::move(config)),
      problems_(problems),
      log_(std::move(log)),
      http_(options.allow_http),
      keys_(http_, options.keyset_refetch),
      states_(config_.private_key),
      once_(store != nullptr ? std::unique_ptr<lti::OnceSet>(new StoreOnceSet(*store))
                             : std::make_unique<lti::MemoryOnceSet>()),
      tokens_(store != nullptr ? std::unique_ptr<lti::LaunchTokens>(new StoreLaunchTokens(*store))
                               : std::make_unique<lti::MemoryLaunchTokens>()),
      outbox_(store != nullptr ? std::unique_ptr<lti::ScoreOutbox>(new StoreScoreOutbox(*store))
                               : std::make_unique<lti::MemoryScoreOutbox>()),
      ags_(config_, http_) {
  jwks_json_ =
      Json{{"keys", Json::array({lti::public_jwk(config_.private_key, config_.kid)})}}.dump();
  lti::BackoffPolicy policy;
  policy.first = options.first_backoff;
  worker_ = std::make_unique<lti::PassbackWorker>(config_, *outbox_, ags_, policy, log_);
}

LtiService::~LtiService() = default;

Response LtiService::launch(const Request& request) { return launch(request, held_keys_); }

bool LtiService::waits_on_platform(const Request& request) const {
  const std::optional<FormFields> fields =
      is_form(request) ? parse_form(request.body()) : std::nullopt;
  const auto id_token = fields ? fields->find("id_token") : FormFields::const_iterator();
  if (!fields || id_token == fields->end()) return false;
  // A token refused before any key is looked at (its form, alg, kid; an unknown issuer)
  // needs no fetch. Otherwise every platform of its issuer must hold its kid fresh.
  Result<lti::Jws> jws = lti::parse_rs256_jws(id_token->second);
  if (!jws) return false;
  const auto issuer = jws->payload.find("iss");
  if (issuer == jws->payload.end() || !issuer->is_string()) return false;
  const Clock::time_point now = Clock::now();
  for (const lti::Platform& platform : config_.platforms) {
    if (platform.issuer == *issuer && !keys_.answers_at_once(platform, jws->kid, now)) return true;
  }
  return false;
}

Result<lti::RsaKey> LtiService::HeldKeys::key(const lti::Platform& platform, const std::string& kid,
                                              Clock::time_point) {
  if (std::optional<lti::RsaKey> key = cache_.held(platform, kid)) return *key;
  // Only when the platform replaced its keyset between waits_on_platform() and here.
  return lti::check_failure(lti::check::kKeyId,
                            "the platform's keyset has no key \"" + lti::shown(kid) + "\"");
}

Response LtiService::launch_fetching(const Request& request) { return launch(request, keys_); }

Response LtiService::jwks(const Request& request) const {
  Response response =
      json_response(http::status::ok, jwks_json_, request.version(), request.keep_alive());
  response.set(http::field::cache_control,
               "max-age=" + std::to_string(limits::kLtiJwksMaxAge.count()));
  return response;
}

Response LtiService::refused(const Request& request, const Error& error, std::string_view route) {
  // The log says which check failed and why; never a token, a state or a nonce.
  log_(Json{{"lti", route},
            {"refused", error.field},
            {"status", status_for(error.code)},
            {"reason", error.message}}
           .dump(-1, ' ', false, Json::error_handler_t::replace));
  // 401/403 for failed checks, 400 for a bad login, 503 when a store cannot answer.
  const http::status status = status_for(error.code);
  return html_response(
      request, status,
      lti_refused_page(error.field, lti::instructor_advice(error.field), error.message));
}

Response LtiService::login(const Request& request) {
  const std::optional<FormFields> fields =
      request.method() == http::verb::post
          ? (is_form(request) ? parse_form(request.body()) : std::nullopt)
          : parse_form(query_of(request.target()));
  const auto bad = [&](std::string message) {
    return refused(request, Error{ErrorCode::kBadRequest, std::move(message), lti::check::kLogin},
                   "login");
  };
  if (!fields) return bad("the login initiation is not a well-formed form or query");
  const auto field = [&](const char* name) {
    const auto it = fields->find(name);
    return it == fields->end() ? std::string() : it->second;
  };
  const std::string issuer = field("iss"), login_hint = field("login_hint");
  const std::string target = field("target_link_uri"), client_id = field("client_id");
  const std::string deployment = field("lti_deployment_id");
  if (issuer.empty() || login_hint.empty()) {
    return bad("the login initiation needs iss and login_hint");
  }
  const lti::Platform* platform = config_.find(issuer, client_id);
  if (platform == nullptr) {
    return bad("no platform with issuer \"" + lti::shown(issuer) + "\"" +
               (client_id.empty() ? "" : " and client id \"" + lti::shown(client_id) + "\"") +
               " is registered (or several are and no client_id was sent)");
  }
  if (!deployment.empty() && !platform->knows_deployment(deployment)) {
    return refused(
        request,
        lti::check_failure(lti::check::kDeployment, "the deployment \"" + lti::shown(deployment) +
                                                        "\" is not registered for this platform"),
        "login");
  }
  // target_link_uri is where the platform will send the launch; Canvas calls it optional.
  if (!target.empty() && !target.starts_with(config_.base_url + "/") &&
      target != config_.base_url) {
    return bad("target_link_uri is not this tool's (" + config_.base_url + ")");
  }
  const lti::LoginStates::Issued issued = states_.issue(Clock::now());
  FormFields redirect{{"scope", "openid"},
                      {"response_type", "id_token"},
                      {"response_mode", "form_post"},
                      {"prompt", "none"},
                      {"client_id", platform->client_id},
                      {"redirect_uri", config_.launch_url()},
                      {"state", issued.state},
                      {"nonce", issued.nonce},
                      {"login_hint", login_hint}};
  if (const std::string hint = field("lti_message_hint"); !hint.empty()) {
    redirect["lti_message_hint"] = hint;
  }
  Response response{http::status::found, request.version()};
  response.set(http::field::server, "headgrader");
  response.set(http::field::location, with_query(platform->auth_login_url, redirect));
  response.set(http::field::cache_control, "no-store");
  response.set(http::field::set_cookie,
               issued.cookie_name + "=" + issued.state +
                   cookie_attributes(config_.https(), limits::kLtiStateLifetime));
  response.keep_alive(request.keep_alive());
  response.prepare_payload();
  return response;
}

Response LtiService::launch(const Request& request, lti::KeySource& keys) {
  const std::optional<FormFields> fields =
      is_form(request) ? parse_form(request.body()) : std::nullopt;
  if (!fields) {
    return refused(request,
                   lti::check_failure(lti::check::kFormat,
                                      "the launch is not a form post (id_token and state)"),
                   "launch");
  }
  const auto field = [&](const char* name) {
    const auto it = fields->find(name);
    return it == fields->end() ? std::string() : it->second;
  };
  const std::string state = field("state");
  const Clock::time_point now = Clock::now();
  Result<std::string> nonce =
      states_.check(state, cookie(request, lti::LoginStates::cookie_name(state)), *once_, now);
  if (!nonce) return refused(request, nonce.error(), "launch");
  const std::shared_ptr<const CatalogSnapshot> snapshot = problems_.current();
  // A link may name a problem or a pool (API.md §15).
  const lti::LaunchContext context{config_, keys, *once_, [snapshot](std::string_view id) {
                                     return snapshot->find(id) != nullptr ||
                                            snapshot->find_pool(id) != nullptr;
                                   }};
  Result<lti::VerifiedLaunch> verified =
      lti::verify_launch(context, field("id_token"), *nonce, now);
  if (!verified) return refused(request, verified.error(), "launch");

  lti::LaunchBinding binding = verified->binding;
  binding.expires = now + limits::kLtiStudentTokenLifetime;
  Result<std::string> token = tokens_->issue(binding);
  if (!token) return refused(request, token.error(), "launch");
  std::string body;
  if (verified->message_type == lti::kDeepLinkingRequest) {
    std::vector<std::pair<std::string, std::string>> choices;
    for (const auto& problem : snapshot->problems().problems()) {
      choices.emplace_back(problem->id, problem->title);
    }
    for (const auto& pool : snapshot->problems().pools()) {
      choices.emplace_back(pool->id, pool->title);
    }
    body = lti_picker_page(std::string(kDeepLinkPath), *token, choices);
  } else {
    body = lti_student_page(*token, binding.problem, binding.name);
  }
  Response response = html_response(request, http::status::ok, std::move(body));
  if (verified->message_type != lti::kDeepLinkingRequest) {
    response.set("Content-Security-Policy", page_policy());
  }
  response.set(http::field::set_cookie,
               lti::LoginStates::cookie_name(state) + "=" +
                   cookie_attributes(config_.https(), std::chrono::seconds(0)));
  return response;
}

Response LtiService::deep_link(const Request& request) {
  const std::optional<FormFields> fields =
      is_form(request) ? parse_form(request.body()) : std::nullopt;
  const auto field = [&](const char* name) {
    const auto it = fields ? fields->find(name) : FormFields::const_iterator();
    return fields && it != fields->end() ? it->second : std::string();
  };
  const Clock::time_point now = Clock::now();
  const std::string token = field("token");
  Result<std::optional<lti::LaunchBinding>> found =
      token.empty() ? Result<std::optional<lti::LaunchBinding>>(std::nullopt)
                    : tokens_->find(token, now);
  if (!found) return refused(request, found.error(), "deep-link");
  if (!*found || (*found)->deep_link_return_url.empty()) {
    return refused(request,
                   lti::check_failure(lti::check::kState,
                                      "the choice does not come from a live deep-linking launch"),
                   "deep-link");
  }
  const std::shared_ptr<const CatalogSnapshot> snapshot = problems_.current();
  const CatalogSnapshot::Entry* entry = snapshot->find(field("problem"));
  const ProblemPool* pool = snapshot->find_pool(field("problem"));
  if (entry == nullptr && pool == nullptr) {
    return refused(request,
                   lti::check_failure(lti::check::kProblem, "the chosen problem is not served"),
                   "deep-link");
  }
  // One answer per deep-linking launch: the platform takes one response per request.
  Result<bool> first = once_->consume("deep_link", lti::token_hash(token), (*found)->expires, now);
  if (!first) return refused(request, first.error(), "deep-link");
  if (!*first) {
    return refused(request, lti::check_failure(lti::check::kState, "a problem was chosen already"),
                   "deep-link");
  }
  const std::string& id = entry != nullptr ? entry->problem->id : pool->id;
  const std::string& title = entry != nullptr ? entry->problem->title : pool->title;
  Result<std::string> jwt =
      lti::deep_linking_response(config_, **found, {id, title.empty() ? id : title}, now);
  if (!jwt) return refused(request, jwt.error(), "deep-link");
  return html_response(request, http::status::ok,
                       lti_autopost_page((*found)->deep_link_return_url, "JWT", *jwt));
}

std::optional<StudentGrant> LtiService::Tokens::find(std::string_view token) const {
  const std::string launch = lti::token_hash(token);
  Result<std::optional<lti::LaunchBinding>> found = tokens_.find_launch(launch, Clock::now());
  // A lookup that fails (a store down) grants nothing: the grading is then refused as 401.
  if (!found || !*found || (*found)->problem.empty()) return std::nullopt;
  return StudentGrant{(*found)->student, (*found)->problem, launch};
}

Result<std::string> LtiService::passback_list(std::string_view status) {
  if (status != "" && status != "pending" && status != "sent" && status != "failed") {
    return Error{ErrorCode::kBadRequest,
                 "status must be pending, sent or failed; it is \"" + lti::shown(status) + "\"",
                 "status"};
  }
  Result<std::vector<lti::OutboxEntry>> entries = outbox_->list(status);
  if (!entries) return entries.error();
  // Newest first, with or without a store: what staff look for is the score that just
  // failed. The outbox gives the oldest first (lti::ScoreOutbox::list).
  Json list = Json::array();
  for (auto listed = entries->rbegin(); listed != entries->rend(); ++listed) {
    if (list.size() == limits::kMaxPassbackListed) break;
    const lti::OutboxEntry& entry = *listed;
    Json item = Json::object();
    item["id"] = entry.id;
    item["submission_id"] = entry.submission_id.empty() ? Json() : Json(entry.submission_id);
    item["status"] = entry.status;
    item["attempts"] = entry.attempts;
    item["last_status"] = entry.last_status == 0 ? Json() : Json(entry.last_status);
    item["last_error"] = entry.last_error.empty() ? Json() : Json(entry.last_error);
    list.push_back(std::move(item));
  }
  return Json{{"passback", std::move(list)}}.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Result<bool> LtiService::passback_retry(const std::string& id) {
  Result<bool> requeued = outbox_->retry(id, Clock::now());
  if (requeued && *requeued) worker_->notify();
  return requeued;
}

Result<LtiService::LaunchOfGrading> LtiService::launch_of(const StudentGrant& student, double score,
                                                          store::TimeMs time, PassbackScore kept) {
  const Clock::time_point when{std::chrono::milliseconds(time)};
  Result<std::optional<lti::LaunchBinding>> found = tokens_->find_launch(student.launch, when);
  if (!found) return found.error();
  if (!*found) return LaunchOfGrading{};
  const lti::LaunchBinding& binding = **found;
  LaunchOfGrading launch;
  if (!binding.context_id.empty()) launch.context = binding.context_id;
  if (!binding.resource_link_id.empty()) launch.resource_link = binding.resource_link_id;
  if (binding.lineitem.empty()) return launch;
  launch.passback = passback_request(binding, score_of(binding, score, when));
  if (kept == PassbackScore::kBest) {
    // The best and its timestamp are decided where the record commits, in commit order
    // (PassbackRequest::best_payload): read here, before the commit, an overlapping grading
    // that commits first would be missed, and the score sent last could be below the best.
    launch.passback->best_payload = [binding](double best, store::TimeMs timestamp) {
      const Clock::time_point at{std::chrono::milliseconds(timestamp)};
      return passback_request(binding, score_of(binding, best, at)).payload;
    };
  }
  return launch;
}

void LtiService::score_queued() { worker_->notify(); }

void LtiService::graded(const StudentGrant& student, double score, const std::string& submission_id,
                        Clock::time_point time) {
  Result<std::optional<lti::LaunchBinding>> found = tokens_->find_launch(student.launch, time);
  if (!found) {
    log_("passback: cannot read the launch of a grading: " + found.error().message);
    return;
  }
  if (!*found || (*found)->lineitem.empty()) return;
  const lti::LaunchBinding& binding = **found;
  lti::OutboxEntry entry;
  entry.submission_id = submission_id;
  entry.issuer = binding.issuer;
  entry.client_id = binding.client_id;
  entry.score = score_of(binding, score, time);
  Result<std::string> queued = outbox_->enqueue(entry);
  if (!queued) {
    log_("passback: cannot queue a score: " + queued.error().message);
    return;
  }
  worker_->notify();
}

}  // namespace headgrader::server
