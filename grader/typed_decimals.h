// How many decimals a student typed for each number of a check-steps body (API.md §10): the
// tree nlohmann builds keeps a number's value, not how it was written, so a second SAX pass
// over the same text reads each literal of `steps` as typed. "0.50" has 2, "5" has 0,
// "3.3e-1" has 2 (the digits after the point less the exponent), "1e2" has -2.
// Thread-safety: pure function.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace headgrader {

// step name -> row -> column -> decimals of the number there (0 for null and non-numbers).
using TypedDecimals = std::map<std::string, std::vector<std::vector<int>>>;

// The decimals of every entry of every matrix under the root object's "steps" key. The text
// must already have passed parse_json_checked; on anything unexpected the map is partial
// (a missing entry reads as 0 decimals).
TypedDecimals read_typed_decimals(std::string_view body);

// The decimals of one JSON number literal as written.
int literal_decimals(std::string_view literal);

}  // namespace headgrader
