#include "headgrader/pool.h"

#include <algorithm>

#include "headgrader/json_input.h"
#include "headgrader/limits.h"
#include "hmac_stream.h"
#include "matrix_json.h"
#include "problem_fields.h"

namespace headgrader {
namespace {

constexpr const char* kPoolFields[] = {"id", "title", "pool", "$schema"};

}  // namespace

bool is_pool_text(std::string_view text) {
  // Through the checked parser: a hostile file (an object of a million keys) is refused as
  // quickly as when it is read as a problem.
  const Result<Json> json = parse_json_checked(text, limits::kMaxJsonDepth, "the file");
  return json && json->is_object() && json->contains("pool");
}

std::variant<ProblemPool, std::vector<Defect>> load_pool_text(std::string_view text,
                                                              const std::string& file_name) {
  DefectList defects(file_name);
  auto json = parse_json_checked(text, limits::kMaxJsonDepth, "the file");
  if (!json || !json->is_object()) {
    defects.add(json ? "" : json.error().field,
                json ? "must hold one JSON object (a pool)" : json.error().message);
    return defects.take();
  }
  check_unknown_keys(*json, kPoolFields, "", defects);
  ProblemPool pool;
  const auto text_field = [&](const char* name) -> std::string {
    const auto found = json->find(name);
    if (found == json->end()) {
      defects.add(name, "is missing");
    } else if (!found->is_string()) {
      defects.add(name, "must be a string; it is " + describe_json_type(*found));
    } else {
      return found->get<std::string>();
    }
    return "";
  };
  pool.id = text_field("id");
  // Unnamed (a staff `validate`): the file the pool would be saved as.
  const auto slash = file_name.find_last_of('/');
  const std::string base_name = file_name.empty()
                                    ? pool.id + ".json"
                                    : file_name.substr(slash == std::string::npos ? 0 : slash + 1);
  if (!pool.id.empty()) {
    if (!is_problem_id(pool.id)) {
      defects.add("id", "must be 1 to " + std::to_string(limits::kMaxProblemIdBytes) +
                            " lowercase letters, digits and \"-\"; it is \"" + pool.id + "\"");
    } else if (base_name != pool.id + ".json") {
      defects.add("id", "is \"" + pool.id + "\" but the file is " + base_name +
                            "; the id must equal the file name without .json");
    }
  }
  pool.title = text_field("title");
  const Json& members = (*json)["pool"];
  if (!members.is_array() || members.empty() || members.size() > limits::kMaxPoolMembers) {
    defects.add("pool", "must be a list of 1 to " + std::to_string(limits::kMaxPoolMembers) +
                            " problem ids, each student's problem drawn from it; it is " +
                            (members.is_array() ? std::to_string(members.size()) + " ids"
                                                : describe_json_type(members)));
    return defects.take();
  }
  for (std::size_t i = 0; i < members.size(); ++i) {
    const std::string field = "pool[" + std::to_string(i) + "]";
    if (!members[i].is_string() || !is_problem_id(members[i].get<std::string>())) {
      defects.add(field, "must be the id of a problem in this folder; it is " +
                             (members[i].is_string() ? "\"" + members[i].get<std::string>() + "\""
                                                     : describe_json_type(members[i])));
      continue;
    }
    const std::string member = members[i].get<std::string>();
    if (member == pool.id) {
      defects.add(field, "is the pool itself; a pool's members are problems");
    } else if (std::find(pool.members.begin(), pool.members.end(), member) != pool.members.end()) {
      defects.add(field, "names \"" + member + "\" again; each problem once");
    }
    pool.members.push_back(member);
  }
  if (!defects.empty()) return defects.take();
  return pool;
}

std::size_t pool_member(std::string_view secret, const ProblemPool& pool,
                        std::string_view student) {
  std::string message = pool.id;
  message += '\0';
  message += student;
  return HmacStream(secret, message).below(pool.members.size());
}

}  // namespace headgrader
