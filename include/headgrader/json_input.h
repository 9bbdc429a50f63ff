// The one boundary where untrusted JSON text (a request body, a problem file) becomes a tree.
// One SAX pass checks every event before it reaches the tree builder and stops at the
// nesting cap or at a key given twice in one object, so a hostile body never builds a deep
// tree and typos like "W_q" twice are caught (a plain tree parse would keep the last). A
// syntax error says where (line and column) and why in plain words (NaN, Python's True,
// single quotes, a trailing comma, …), and never quotes the input back.
// Public, so that whatever else reads untrusted JSON (a platform's metadata file in the
// command line) reads it by the same rules. Thread-safety: a pure function.
#pragma once

#include <cstddef>
#include <string_view>

#include "headgrader/report.h"
#include "headgrader/result.h"

namespace headgrader {

// Errors: invalid_json (message says where; also a NUL byte), too_deep, duplicate_field
// (field = the key when it is a top-level key, else the top-level key it is inside),
// out_of_range (a number too large for a double). For too_deep and out_of_range, field = the
// top-level key (decoded, possibly "") whose value holds the fault; none when the fault is
// not under a key of a root object. `subject` starts the messages: "the body", "the file".
Result<Json> parse_json_checked(std::string_view text, std::size_t max_depth,
                                std::string_view subject);

}  // namespace headgrader
