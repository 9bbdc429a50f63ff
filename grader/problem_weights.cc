// The `strings` object and the head's matrices of a problem file: submit, given, reference.
#include <algorithm>
#include <array>
#include <limits>

#include "headgrader/limits.h"
#include "matrix_json.h"
#include "message_text.h"
#include "problem_fields.h"

namespace headgrader {
namespace {

constexpr std::array<const char*, 5> kStringsFields = {"max_length", "exhaustive_length", "random",
                                                       "seed", "examples"};

bool is_weight_name(const std::string& name) { return weight_index(name) < 3; }

void read_examples(const Json& examples, ProblemSpec& p, DefectList& defects) {
  if (!examples.is_array()) {
    defects.add("strings.examples",
                "must be an array of strings; it is " + describe_json_type(examples));
    return;
  }
  if (examples.size() > limits::kMaxExamples) {
    defects.add("strings.examples", "has " + std::to_string(examples.size()) +
                                        " strings; at most " +
                                        std::to_string(limits::kMaxExamples) + " are allowed");
    return;
  }
  for (std::size_t n = 0; n < examples.size(); ++n) {
    const std::string field = "strings.examples[" + std::to_string(n) + "]";
    const auto& example = examples[n];
    if (!example.is_string()) {
      defects.add(field, "must be a string; it is " + describe_json_type(example));
      continue;
    }
    std::vector<char32_t> chars;
    decode_utf8(example.get<std::string>(), chars);
    const std::string quoted = "\"" + example.get<std::string>() + "\"";
    if (chars.empty()) defects.add(field, "is empty; a tested string has at least one character");
    if (p.strings.max_length > 0 && chars.size() > static_cast<std::size_t>(p.strings.max_length)) {
      defects.add(field, quoted + " has " + std::to_string(chars.size()) +
                             " characters, more than strings.max_length (" +
                             std::to_string(p.strings.max_length) + ")");
    }
    TokenString tokens;
    for (char32_t ch : chars) {
      const auto at = std::find(p.alphabet_chars.begin(), p.alphabet_chars.end(), ch);
      if (at == p.alphabet_chars.end()) {
        if (p.alphabet_chars.empty()) break;  // the alphabet's own defect says enough
        defects.add(field,
                    quoted + " holds \"" + encode_utf8(ch) + "\", which is not in the alphabet");
        break;
      }
      tokens.push_back(static_cast<int>(at - p.alphabet_chars.begin()));
    }
    p.strings.examples.push_back(example.get<std::string>());
    p.examples.push_back(std::move(tokens));
  }
}

// Checks the shapes of the three matrices of a complete head (given ∪ reference).
void check_head_shapes(const ProblemSpec& p, const std::map<std::string, std::string>& origin,
                       DefectList& defects) {
  const auto n_e = static_cast<Eigen::Index>(p.n_e);
  for (const char* name : kWeightNames) {
    const Matrix& m = p.reference.by_name(name);
    if (m.size() == 0) continue;
    if (p.n_e != 0 && m.cols() != n_e) {
      defects.add(origin.at(name), "must have " + count_of(p.n_e, "column", "columns") +
                                       " (one per embedding feature, n_e = " + std::to_string(n_e) +
                                       "); it has " + std::to_string(m.cols()));
    }
  }
  const auto& w = p.reference;
  if (w.W_q.size() != 0 && w.W_k.size() != 0 && w.W_q.rows() != w.W_k.rows()) {
    defects.add(origin.at("W_k"),
                "has " + count_of(static_cast<std::size_t>(w.W_k.rows()), "row", "rows") + " but " +
                    origin.at("W_q") + " has " + std::to_string(w.W_q.rows()) +
                    "; queries and keys share the size n_q");
  }
  if (w.W_V.size() != 0 && p.expected && w.W_V.rows() != static_cast<Eigen::Index>(p.n_v)) {
    defects.add("expected", "yields vectors of length " + std::to_string(p.n_v) + " but " +
                                origin.at("W_V") + " has " +
                                count_of(static_cast<std::size_t>(w.W_V.rows()), "row", "rows") +
                                "; the head's output (one value per row of W_V) must have the "
                                "length of the expected vector");
  }
}

}  // namespace

void read_problem_strings(const Json& json, ProblemSpec& p, DefectList& defects) {
  if (!json.contains("strings")) {
    defects.add("strings", "is missing (it needs at least max_length)");
    return;
  }
  const auto& strings = json.at("strings");
  if (!strings.is_object()) {
    defects.add("strings", "must be an object such as {\"max_length\": 8}; it is " +
                               describe_json_type(strings));
    return;
  }
  check_unknown_keys(strings, kStringsFields, "strings.", defects);
  auto& s = p.strings;
  if (!strings.contains("max_length")) {
    defects.add("strings.max_length", "is missing");
  } else if (auto n = read_integer(strings.at("max_length"), "strings.max_length", 1,
                                   limits::kMaxStringLength, defects)) {
    s.max_length = static_cast<int>(*n);
  }
  s.exhaustive_length = s.max_length;
  if (strings.contains("exhaustive_length") && s.max_length > 0) {
    const auto& exhaustive = strings.at("exhaustive_length");
    if (exhaustive.is_number_unsigned() &&
        exhaustive.get<std::uint64_t>() > static_cast<std::uint64_t>(s.max_length)) {
      // Say where the bound comes from: "from 0 to 8" alone leaves the instructor guessing.
      defects.add("strings.exhaustive_length", "must be at most strings.max_length (" +
                                                   std::to_string(s.max_length) + "); it is " +
                                                   exhaustive.dump());
    } else if (auto n = read_integer(exhaustive, "strings.exhaustive_length", 0, s.max_length,
                                     defects)) {
      s.exhaustive_length = static_cast<int>(*n);
    }
  }
  if (strings.contains("random")) {
    if (auto n = read_integer(strings.at("random"), "strings.random", 0,
                              static_cast<std::int64_t>(limits::kMaxRandomStrings), defects)) {
      s.random = static_cast<std::uint64_t>(*n);
    }
  }
  if (strings.contains("seed")) {
    if (auto n = read_integer(strings.at("seed"), "strings.seed", 0,
                              std::numeric_limits<std::int64_t>::max(), defects)) {
      s.seed = static_cast<std::uint64_t>(*n);
    }
  }
  if (strings.contains("examples")) read_examples(strings.at("examples"), p, defects);
  if (p.head.W_P && s.max_length > 0 && p.head.W_P->cols() < s.max_length) {
    defects.add("W_P",
                "has " +
                    count_of(static_cast<std::size_t>(p.head.W_P->cols()), "column", "columns") +
                    " (positions) but strings.max_length is " + std::to_string(s.max_length) +
                    "; it needs one column per position");
  }
}

void read_problem_weights(const Json& json, ProblemSpec& p, DefectList& defects) {
  std::map<std::string, std::string> origin;  // canonical name -> field it came from
  if (!json.contains("submit")) {
    defects.add("submit", "is missing (for example [\"W_q\", \"W_k\", \"W_V\"])");
  } else if (const auto& submit = json.at("submit"); !submit.is_array() || submit.empty()) {
    defects.add("submit", "must be a non-empty array of \"W_q\", \"W_k\", \"W_V\"");
  } else {
    for (const auto& name : submit) {
      if (!name.is_string() || !is_weight_name(name.get<std::string>())) {
        defects.add("submit", "may hold only \"W_q\", \"W_k\" and \"W_V\"; it holds " +
                                  (name.is_string() ? "\"" + name.get<std::string>() + "\""
                                                    : describe_json_type(name)));
      } else if (std::count(p.submit.begin(), p.submit.end(), name.get<std::string>())) {
        defects.add("submit", name.get<std::string>() + " is listed twice");
      } else {
        p.submit.push_back(name.get<std::string>());
      }
    }
  }
  const auto submitted = [&](const std::string& name) {
    return std::count(p.submit.begin(), p.submit.end(), name) > 0;
  };

  if (json.contains("given")) {
    const auto& given = json.at("given");
    if (!given.is_object()) {
      defects.add("given", "must be an object mapping matrix names to matrices; it is " +
                               describe_json_type(given));
    } else {
      for (const auto& [name, value] : given.items()) {
        const std::string field = "given." + name;
        if (!is_weight_name(name)) {
          defects.add(field, "is not one of W_q, W_k, W_V");
        } else if (submitted(name)) {
          defects.add(field, "is also in submit; a matrix is either submitted or given");
        } else if (auto m = read_matrix(value, field, defects, limits::kMaxMatrixColumns)) {
          p.given[name] = *m;
          p.reference.by_name(name) = *m;
          origin[name] = field;
        }
      }
    }
  }
  for (const char* name : kWeightNames) {
    if (!submitted(name) && !p.given.count(name) && !p.submit.empty()) {
      defects.add("given", std::string(name) +
                               " is neither submitted nor given; add it to "
                               "submit or give it here");
    }
  }

  if (!json.contains("reference")) {
    defects.add("reference",
                "is missing; it must hold a known-good answer for each submitted matrix, and "
                "the loader checks that it passes: run headgrader solve " +
                    defects.file() + " --write to search for one and write it here");
  } else if (const auto& reference = json.at("reference"); !reference.is_object()) {
    defects.add("reference", "must be an object mapping matrix names to matrices; it is " +
                                 describe_json_type(reference));
  } else {
    for (const auto& [name, value] : reference.items()) {
      const std::string field = "reference." + name;
      if (p.submit.empty()) continue;  // submit is missing or unusable; its own defect says so
      if (!submitted(name)) {
        defects.add(field, "is not in submit; the reference holds exactly the submitted matrices");
      } else if (auto m = read_matrix(value, field, defects, limits::kMaxMatrixColumns)) {
        p.reference.by_name(name) = *m;
        origin[name] = field;
      }
    }
    for (const auto& name : p.submit) {
      if (!reference.contains(name)) defects.add("reference", name + " is missing");
    }
  }
  if (origin.size() == 3) check_head_shapes(p, origin, defects);
}

}  // namespace headgrader
