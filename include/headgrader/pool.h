// A pool of problems (API.md §15): a file {"id", "title", "pool": ["problem id"…]} in the
// problems folder. Each student is given one member, drawn from HMAC-SHA256(secret, pool id +
// "\0" + student) as their variant is (headgrader/variant.h), and within it their variant.
// Thread-safety: pure functions of their arguments.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "headgrader/problem.h"

namespace headgrader {

struct ProblemPool {
  std::string id;
  std::string title;
  std::vector<std::string> members;  // problem ids, in the file's order
};

// Whether a problem file's text holds a pool: a JSON object with a "pool" member. Anything
// else (bad JSON included) is read as a problem, whose defects then say what is wrong.
bool is_pool_text(std::string_view text);

// Reads a pool file named `file_name` (ID.json; "" names it after the id it holds, as a file
// not yet saved). Defects (file, field, reason): an unknown
// field, `id` missing, not a problem id or not the file's name, `title` missing, `pool` not a
// list of 1 to limits::kMaxPoolMembers problem ids, a member named twice or the pool itself.
// Whether each member is a problem of the folder is ProblemSet::load's to check.
std::variant<ProblemPool, std::vector<Defect>> load_pool_text(std::string_view text,
                                                              const std::string& file_name);

// The index in pool.members of the member given to `student`: the first number below
// members.size() of the HMAC stream of (secret, pool.id + "\0" + student). Without a secret
// (an empty one) the draw is the same computation with an empty key: students are still
// spread over the members, but anyone can work out who gets which (docs/variants.md).
std::size_t pool_member(std::string_view secret, const ProblemPool& pool, std::string_view student);

}  // namespace headgrader
