#include "problem_fields.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>

#include "headgrader/limit_text.h"
#include "headgrader/limits.h"
#include "matrix_json.h"
#include "message_text.h"

namespace headgrader {
namespace {

// "$schema" is not a problem field: editors read it to find problems/schema/problem.schema.json.
constexpr std::array<const char*, 20> kFields = {
    "id",        "title",    "statement", "alphabet", "classes",       "W_E",       "W_P",
    "submit",    "given",    "scale",     "causal",   "expected",      "tolerance", "strings",
    "reference", "passback", "mistakes",  "variants", "feature_names", "$schema"};

// Levenshtein distance, for "did you mean".
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

}  // namespace

void check_unknown_keys(const Json& object, std::span<const char* const> known,
                        const std::string& prefix, DefectList& defects) {
  for (const auto& [key, value] : object.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string hint;
    // Suggest only names within two edits, the nearest first, or that the key begins
    // (strings.max_len, strings.exhaustive).
    std::size_t nearest = 3;
    for (const char* name : known) {
      const bool abbreviates = key.size() >= 3 && std::string_view(name).starts_with(key);
      if (const auto d = abbreviates ? 1 : edit_distance(key, name); d < nearest) {
        nearest = d;
        hint = " (did you mean \"" + std::string(name) + "\"?)";
      }
    }
    defects.add(prefix + key, "unknown field" + hint +
                                  "; the fields are listed in the authoring "
                                  "guide (problems/README.md)");
  }
}

std::optional<std::int64_t> read_integer(const Json& value, const std::string& field,
                                         std::int64_t low, std::int64_t high, DefectList& defects) {
  const std::string want =
      "must be a whole number from " + std::to_string(low) + " to " + std::to_string(high);
  if (value.is_number_float()) {
    // A whole number written with a fraction or an exponent (4.0, 1e3) counts, as it does for
    // JSON Schema's "integer" (problems/schema/) and for a submission's max_failures, while a
    // double holds it exactly.
    const double x = value.get<double>();
    constexpr double kExact = 9007199254740992.0;  // 2^53
    if (x == std::floor(x) && std::fabs(x) <= kExact) {
      const auto n = static_cast<std::int64_t>(x);
      if (n >= low && n <= high) return n;
    } else if (x == std::floor(x) && x >= static_cast<double>(low) &&
               x < static_cast<double>(high) + 1.0) {
      defects.add(field, want + "; it is " + value.dump() +
                             ", too large to read exactly unless written as an integer "
                             "(digits only)");
      return std::nullopt;
    }
    defects.add(field, want + "; it is " + value.dump());
    return std::nullopt;
  }
  if (!value.is_number_integer()) {
    defects.add(field, want + "; it is " + describe_json_type(value));
    return std::nullopt;
  }
  // JSON's non-negative integers parse as unsigned: check both bounds for them too (a
  // max_length of 0 must not pass for want of a lower check).
  const bool out_of_range =
      value.is_number_unsigned()
          ? value.get<std::uint64_t>() > static_cast<std::uint64_t>(high) ||
                static_cast<std::int64_t>(value.get<std::uint64_t>()) < low
          : value.get<std::int64_t>() < low || value.get<std::int64_t>() > high;
  if (out_of_range) {
    defects.add(field, want + "; it is " + value.dump());
    return std::nullopt;
  }
  return value.get<std::int64_t>();
}

namespace {

std::optional<std::string> read_string(const Json& object, const char* name, DefectList& defects) {
  if (!object.contains(name)) {
    defects.add(name, "is missing");
    return std::nullopt;
  }
  const auto& value = object.at(name);
  if (!value.is_string()) {
    defects.add(name, "must be a string; it is " + describe_json_type(value));
    return std::nullopt;
  }
  return value.get<std::string>();
}

}  // namespace

std::optional<Matrix> read_matrix(const Json& value, const std::string& field, DefectList& defects,
                                  std::size_t max_columns) {
  auto m = parse_matrix(value, field, max_columns);
  if (!m) {
    defects.add(field, m.error().message);
    return std::nullopt;
  }
  return std::move(m).value();
}

namespace {

void read_alphabet_and_classes(const Json& json, ProblemSpec& p, DefectList& defects) {
  if (auto alphabet = read_string(json, "alphabet", defects)) {
    p.alphabet = *alphabet;
    std::vector<char32_t> chars;
    decode_utf8(p.alphabet, chars);  // the JSON parser has already checked the UTF-8
    std::set<char32_t> seen;
    for (char32_t ch : chars) {
      if (!seen.insert(ch).second) {
        defects.add("alphabet", "\"" + encode_utf8(ch) +
                                    "\" appears twice; each character "
                                    "must appear once");
      }
    }
    if (chars.empty()) defects.add("alphabet", "is empty; it needs at least one character");
    if (chars.size() > limits::kMaxAlphabetSize) {
      defects.add("alphabet", "has " + std::to_string(chars.size()) + " characters; at most " +
                                  std::to_string(limits::kMaxAlphabetSize) + " are allowed");
    }
    p.alphabet_chars = std::move(chars);
  }
  p.classes.alphabet_size = p.alphabet_chars.size();
  if (!json.contains("classes")) {
    defects.add("classes", "is missing (use {} when `expected` names no class)");
    return;
  }
  const auto& classes = json.at("classes");
  if (!classes.is_object()) {
    defects.add("classes",
                "must be an object mapping class names to strings of alphabet "
                "characters; it is " +
                    describe_json_type(classes));
    return;
  }
  for (const auto& [name, value] : classes.items()) {
    const std::string field = "classes." + name;
    if (!is_valid_class_name(name)) {
      defects.add(field,
                  "is not a usable class name: it must start with a letter or \"_\", "
                  "continue with letters, digits or \"_\", and not be a keyword (is, any, "
                  "all, count, mean, at, pos, and, or, not)");
    }
    if (!value.is_string()) {
      defects.add(field,
                  "must be a string of alphabet characters; it is " + describe_json_type(value));
      // Still a class, with no members, so that `expected` naming it is not also reported
      // as naming an unknown class (the problem is refused for this defect anyway).
      p.classes.names.push_back(name);
      p.classes.members.emplace_back(p.alphabet_chars.size(), false);
      p.class_texts.emplace_back();
      continue;
    }
    std::vector<char32_t> chars;
    decode_utf8(value.get<std::string>(), chars);
    std::vector<bool> members(p.alphabet_chars.size(), false);
    for (char32_t ch : chars) {
      const auto at = std::find(p.alphabet_chars.begin(), p.alphabet_chars.end(), ch);
      if (at == p.alphabet_chars.end()) {
        // Without an alphabet every character would be reported; its own defect says enough.
        if (p.alphabet_chars.empty()) continue;
        defects.add(field, "holds \"" + encode_utf8(ch) + "\", which is not in the alphabet");
      } else {
        members[static_cast<std::size_t>(at - p.alphabet_chars.begin())] = true;
      }
    }
    p.classes.names.push_back(name);
    p.classes.members.push_back(std::move(members));
    p.class_texts.push_back(value.get<std::string>());
  }
}

void read_embeddings(const Json& json, ProblemSpec& p, DefectList& defects) {
  if (!json.contains("W_E")) {
    defects.add("W_E", "is missing");
  } else if (auto W_E = read_matrix(json.at("W_E"), "W_E", defects, limits::kMaxAlphabetSize)) {
    p.head.W_E = *W_E;
    if (!p.alphabet_chars.empty() &&
        W_E->cols() != static_cast<Eigen::Index>(p.alphabet_chars.size())) {
      defects.add("W_E", "must have " + count_of(p.alphabet_chars.size(), "column", "columns") +
                             " (one per alphabet character); it has " +
                             std::to_string(W_E->cols()));
    } else {
      // Only a W_E of the right width says what n_e is: one written transposed would have the
      // sound W_P, given and reference matrices reported as the wrong shape.
      p.n_e = static_cast<std::size_t>(W_E->rows());
    }
  }
  if (json.contains("W_P")) {
    if (auto W_P = read_matrix(json.at("W_P"), "W_P", defects, limits::kMaxStringLength)) {
      if (p.n_e != 0 && static_cast<std::size_t>(W_P->rows()) != p.n_e) {
        defects.add("W_P", "must have " + count_of(p.n_e, "row", "rows") +
                               " (n_e, as W_E has); it has " + std::to_string(W_P->rows()));
      }
      p.head.W_P = *W_P;
    }
  }
}

void read_head_options(const Json& json, ProblemSpec& p, DefectList& defects) {
  if (json.contains("scale")) {
    const auto& scale = json.at("scale");
    if (!scale.is_number() || !std::isfinite(scale.get<double>()) ||
        std::fabs(scale.get<double>()) > limits::kMaxAbsEntry) {
      defects.add("scale", "must be a number of absolute value at most " +
                               number_text(limits::kMaxAbsEntry) + "; it is " +
                               (scale.is_number() ? scale.dump() : describe_json_type(scale)));
    } else {
      p.head.scale = scale.get<double>();
    }
  }
  if (json.contains("passback")) {
    const Json& passback = json.at("passback");
    if (passback == "best" || passback == "latest") {
      p.passback = passback == "best" ? PassbackScore::kBest : PassbackScore::kLatest;
    } else {
      defects.add("passback",
                  "must be \"best\" or \"latest\" (the score an LMS gradebook keeps); "
                  "it is " +
                      (passback.is_string() ? passback.dump() : describe_json_type(passback)));
    }
  }
  if (json.contains("causal")) {
    if (!json.at("causal").is_boolean()) {
      defects.add("causal",
                  "must be true or false; it is " + describe_json_type(json.at("causal")));
    } else {
      p.head.causal = json.at("causal").get<bool>();
    }
  }
  if (!json.contains("tolerance")) {
    defects.add("tolerance", "is missing");
  } else {
    const auto& tolerance = json.at("tolerance");
    if (!tolerance.is_number() || !(tolerance.get<double>() > 0) ||
        !std::isfinite(tolerance.get<double>())) {
      defects.add("tolerance",
                  "must be a number greater than 0; it is " +
                      (tolerance.is_number() ? tolerance.dump() : describe_json_type(tolerance)));
    } else {
      p.tolerance = tolerance.get<double>();
    }
  }
}

}  // namespace

std::string expected_error_text(std::string_view source, const ExpectedSyntaxError& error) {
  // An `expected` written over several lines gets the line too, as its render shows only
  // the line at fault.
  const TextPosition at = position_in(source, std::min(error.column, source.size()));
  std::string where;
  if (source.find('\n') != std::string::npos) where = "line " + std::to_string(at.line) + ", ";
  return where + "column " + std::to_string(at.column) + ": " + error.render(source);
}

void read_problem_fields(const Json& json, const std::string& file_name, ProblemSpec& p,
                         DefectList& defects) {
  check_unknown_keys(json, kFields, "", defects);
  if (const auto schema = json.find("$schema"); schema != json.end() && !schema->is_string()) {
    defects.add("$schema",
                "must be a string (where the JSON Schema is, e.g. \"schema/problem.schema.json\"); "
                "it is " +
                    describe_json_type(*schema));
  }
  if (auto id = read_string(json, "id", defects)) {
    p.id = *id;
    if (id->size() > limits::kMaxProblemIdBytes) {
      defects.add("id", "is " + std::to_string(id->size()) + " characters long; at most " +
                            std::to_string(limits::kMaxProblemIdBytes) + " are allowed");
    } else if (!is_problem_id(*id)) {
      defects.add("id", "must be lowercase letters, digits and \"-\" only; it is \"" + *id + "\"");
    } else if (file_name != *id + ".json") {
      defects.add("id", "is \"" + *id + "\" but the file is " + file_name +
                            "; the id must equal the file name without .json");
    }
  }
  if (auto title = read_string(json, "title", defects)) p.title = *title;
  if (auto statement = read_string(json, "statement", defects)) p.statement = *statement;
  read_alphabet_and_classes(json, p, defects);
  read_embeddings(json, p, defects);
  read_variant_fields(json, p, defects);
  read_head_options(json, p, defects);
  read_problem_strings(json, p, defects);

  // Without usable classes, parsing would only repeat the classes defect as "unknown class".
  const bool classes_read = json.contains("classes") && json.at("classes").is_object();
  if (auto source = read_string(json, "expected", defects)) {
    p.expected_source = *source;
    if (source->size() > limits::kMaxExpectedLength) {
      defects.add("expected", "is " + std::to_string(source->size()) +
                                  " characters long; at most " +
                                  std::to_string(limits::kMaxExpectedLength) + " are allowed");
    } else if (classes_read) {
      auto parsed = parse_expected(*source, p.classes);
      if (auto* error = std::get_if<ExpectedSyntaxError>(&parsed)) {
        defects.add("expected", expected_error_text(*source, *error));
      } else {
        p.expected = std::make_shared<const Expected>(std::get<Expected>(std::move(parsed)));
        p.n_v = p.expected->output_size();
      }
    }
  }
  read_problem_weights(json, p, defects);
  if (p.expected) read_author_mistakes(json, p, defects);
}

}  // namespace headgrader
