#include "lti_store_adapter.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "ags_client.h"
#include "headgrader/limits.h"

namespace headgrader::server {
namespace {

using Json = nlohmann::ordered_json;
using lti::Clock;

store::TimeMs ms(Clock::time_point time) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(time.time_since_epoch()).count();
}

Clock::time_point time_of(store::TimeMs ms) {
  return Clock::time_point(
      std::chrono::duration_cast<Clock::duration>(std::chrono::milliseconds(ms)));
}

std::optional<std::string> unless_empty(const std::string& text) {
  return text.empty() ? std::nullopt : std::optional<std::string>(text);
}

// What the student_tokens columns do not hold, as StudentToken::details.
std::string details_of(const lti::LaunchBinding& binding) {
  Json details = Json::object();
  details["deployment_id"] = binding.deployment_id;
  details["subject"] = binding.subject;
  details["name"] = binding.name;
  details["context_title"] = binding.context_title;
  details["deep_link_return_url"] = binding.deep_link_return_url;
  details["deep_link_data"] = binding.deep_link_data;
  return details.dump(-1, ' ', false, Json::error_handler_t::replace);
}

lti::LaunchBinding binding_of(const store::StudentToken& token) {
  lti::LaunchBinding binding;
  binding.student = token.student;
  binding.issuer = token.issuer;
  binding.client_id = token.client_id;
  binding.problem = token.problem;
  binding.context_id = token.context.value_or("");
  binding.resource_link_id = token.resource_link.value_or("");
  binding.lineitem = token.lineitem.value_or("");
  binding.expires = time_of(token.expires);
  // Written by details_of(); a row another version wrote without it keeps the columns' part.
  const Json details = Json::parse(token.details, nullptr, /*allow_exceptions=*/false);
  if (details.is_object()) {
    const auto text = [&](const char* name) {
      const auto it = details.find(name);
      return it != details.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    binding.deployment_id = text("deployment_id");
    binding.subject = text("subject");
    binding.name = text("name");
    binding.context_title = text("context_title");
    binding.deep_link_return_url = text("deep_link_return_url");
    binding.deep_link_data = text("deep_link_data");
  }
  return binding;
}

// The score an outbox item carries, read back from the payload passback_request() wrote.
lti::OutboxEntry entry_of(const store::PassbackItem& item) {
  lti::OutboxEntry entry;
  entry.id = item.id;
  entry.submission_id = item.submission_id;
  entry.issuer = item.request.issuer;
  entry.client_id = item.request.client_id;
  entry.score.lineitem = item.request.lineitem;
  const Json payload = Json::parse(item.request.payload, nullptr, /*allow_exceptions=*/false);
  if (payload.is_object()) {
    if (const auto it = payload.find("userId"); it != payload.end() && it->is_string()) {
      entry.score.user_id = it->get<std::string>();
    }
    if (const auto it = payload.find("scoreGiven"); it != payload.end() && it->is_number()) {
      entry.score.score_given = it->get<double>();
    }
    if (const auto it = payload.find("timestamp"); it != payload.end() && it->is_string()) {
      entry.score.timestamp = it->get<std::string>();
    }
  }
  entry.status = std::string(store::to_string(item.status));
  entry.attempts = item.attempts;
  entry.last_status = item.last_status.value_or(0);
  entry.last_error = item.last_error;
  entry.next_attempt = time_of(item.next_attempt);
  return entry;
}

std::optional<int> answered(int status) {
  return status == 0 ? std::nullopt : std::optional<int>(status);
}

}  // namespace

Result<bool> StoreOnceSet::consume(std::string_view kind, std::string_view value,
                                   Clock::time_point expires, Clock::time_point now) {
  return store_.use_once(lti::once_key(kind, value), ms(expires), ms(now));
}

Result<std::string> StoreLaunchTokens::issue(const lti::LaunchBinding& binding) {
  Result<std::string> made = lti::new_launch_token();
  if (!made) return made.error();
  std::string token = std::move(made).value();
  store::StudentToken row;
  row.token_sha256 = lti::token_hash(token);
  row.student = binding.student;
  row.problem = binding.problem;
  row.issuer = binding.issuer;
  row.client_id = binding.client_id;
  row.context = unless_empty(binding.context_id);
  row.resource_link = unless_empty(binding.resource_link_id);
  row.lineitem = unless_empty(binding.lineitem);
  row.expires = ms(binding.expires);
  row.details = details_of(binding);
  Result<bool> put = store_.put_student_token(row);
  if (!put) return put.error();
  return token;
}

Result<std::optional<lti::LaunchBinding>> StoreLaunchTokens::find(std::string_view token,
                                                                  Clock::time_point now) {
  return find_launch(lti::token_hash(token), now);
}

Result<std::optional<lti::LaunchBinding>> StoreLaunchTokens::find_launch(std::string_view launch_id,
                                                                         Clock::time_point now) {
  Result<std::optional<store::StudentToken>> found = store_.find_student_token(launch_id, ms(now));
  if (!found) return found.error();
  if (!*found) return std::optional<lti::LaunchBinding>();
  return std::optional<lti::LaunchBinding>(binding_of(**found));
}

Result<std::string> StoreScoreOutbox::enqueue(lti::OutboxEntry) {
  return Error{ErrorCode::kInternalError,
               "with a store, a score is queued with its record (SubmissionStore::commit)", ""};
}

Result<std::vector<lti::OutboxEntry>> StoreScoreOutbox::claim_due(Clock::time_point now,
                                                                  Clock::time_point lease_until,
                                                                  std::size_t max) {
  Result<std::vector<store::PassbackItem>> items =
      store_.claim_passbacks(ms(now), ms(lease_until) - ms(now), static_cast<int>(max));
  if (!items) return items.error();
  std::vector<lti::OutboxEntry> entries;
  for (const store::PassbackItem& item : *items) entries.push_back(entry_of(item));
  return entries;
}

Result<bool> StoreScoreOutbox::mark_sent(const std::string& id, int status) {
  return store_.mark_passback_sent(id, status);
}

Result<bool> StoreScoreOutbox::mark_retry(const std::string& id, Clock::time_point next_attempt,
                                          int status, const std::string& error) {
  return store_.mark_passback_retry(id, answered(status), error, ms(next_attempt));
}

Result<bool> StoreScoreOutbox::mark_failed(const std::string& id, int status,
                                           const std::string& error) {
  return store_.mark_passback_failed(id, answered(status), error);
}

Result<std::vector<lti::OutboxEntry>> StoreScoreOutbox::list(std::string_view status) {
  Result<std::vector<store::PassbackItem>> items =
      store_.list_passbacks(status.empty() ? std::nullopt : store::parse_passback_status(status),
                            static_cast<int>(limits::kMaxPassbackListed));
  if (!items) return items.error();
  std::vector<lti::OutboxEntry> entries;
  for (const store::PassbackItem& item : *items) entries.push_back(entry_of(item));
  return entries;
}

Result<bool> StoreScoreOutbox::retry(const std::string& id, Clock::time_point now) {
  return store_.retry_passback(id, ms(now));
}

store::PassbackRequest passback_request(const lti::LaunchBinding& binding,
                                        const lti::Score& score) {
  return {binding.issuer, binding.client_id, binding.lineitem, lti::score_body(score), nullptr};
}

}  // namespace headgrader::server
