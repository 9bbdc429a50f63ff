// Mistakes a problem's author names (API.md §14): `mistakes` read from the file, each a wrong
// `expected` with a message and a hint, and its target derived at load: the problem with
// that `expected`, which the reference must fail (else the tests could not tell the mistake
// from the solution). diagnosis.cc names a mistake when a failing head passes its target.
#include <algorithm>

#include "headgrader/diagnosis.h"
#include "headgrader/grade.h"
#include "headgrader/limits.h"
#include "matrix_json.h"
#include "problem_fields.h"

namespace headgrader {
namespace {

bool is_mistake_name(const std::string& name) {
  return !name.empty() && name.size() <= limits::kMaxMistakeNameBytes &&
         std::all_of(name.begin(), name.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || c == '_'; });
}

// A required string field of one mistake; nothing (and a defect) when missing or not a string.
std::optional<std::string> read_text(const Json& mistake, const char* key, const std::string& at,
                                     DefectList& defects) {
  const auto found = mistake.find(key);
  if (found == mistake.end()) {
    defects.add(at + "." + key, "is missing");
    return std::nullopt;
  }
  if (!found->is_string()) {
    defects.add(at + "." + key, "must be a string; it is " + describe_json_type(*found));
    return std::nullopt;
  }
  return found->get<std::string>();
}

// A message or hint: what a student reads, so not blank, and a few sentences at most.
bool text_fits(const std::string& text, const std::string& field, DefectList& defects) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    defects.add(field, "is empty or blank: a student who makes the mistake would read nothing");
    return false;
  }
  if (text.size() > limits::kMaxMistakeTextBytes) {
    defects.add(field, "is " + std::to_string(text.size()) + " characters long; at most " +
                           std::to_string(limits::kMaxMistakeTextBytes) + " are allowed");
    return false;
  }
  return true;
}

std::optional<AuthorMistake> read_one(const Json& mistake, const std::string& at,
                                      const ProblemSpec& p, DefectList& defects) {
  static constexpr const char* kKeys[] = {"name", "expected", "message", "hint"};
  if (!mistake.is_object()) {
    defects.add(at, "must be an object {\"name\", \"expected\", \"message\", \"hint\"}; it is " +
                        describe_json_type(mistake));
    return std::nullopt;
  }
  check_unknown_keys(mistake, kKeys, at + ".", defects);
  AuthorMistake m;
  bool sound = true;
  if (auto name = read_text(mistake, "name", at, defects)) {
    m.name = *name;
    if (!is_mistake_name(*name)) {
      defects.add(at + ".name", "must be 1 to " + std::to_string(limits::kMaxMistakeNameBytes) +
                                    " of a-z and \"_\" (e.g. \"current_letter\"); it is \"" +
                                    *name + "\"");
      sound = false;
    }
  } else {
    sound = false;
  }
  for (const char* key : {"message", "hint"}) {
    auto text = read_text(mistake, key, at, defects);
    sound = text && text_fits(*text, at + "." + key, defects) && sound;
    if (text) (std::string(key) == "message" ? m.message : m.hint) = std::move(*text);
  }
  auto source = read_text(mistake, "expected", at, defects);
  if (!source) return std::nullopt;
  m.expected_source = *source;
  const std::string field = at + ".expected";
  if (source->size() > limits::kMaxExpectedLength) {
    defects.add(field, "is " + std::to_string(source->size()) + " characters long; at most " +
                           std::to_string(limits::kMaxExpectedLength) + " are allowed");
    return std::nullopt;
  }
  auto parsed = parse_expected(*source, p.classes);
  if (auto* error = std::get_if<ExpectedSyntaxError>(&parsed)) {
    defects.add(field, expected_error_text(*source, *error));
    return std::nullopt;
  }
  m.expected = std::make_shared<const Expected>(std::get<Expected>(std::move(parsed)));
  if (m.expected->output_size() != p.n_v) {
    defects.add(field, "gives a vector of " + std::to_string(m.expected->output_size()) +
                           " numbers, but the problem's expected gives " + std::to_string(p.n_v) +
                           ": a mistake is a wrong target of the same head, so the same length");
    return std::nullopt;
  }
  if (!sound) return std::nullopt;
  return m;
}

}  // namespace

void read_author_mistakes(const Json& json, ProblemSpec& p, DefectList& defects) {
  const auto found = json.find("mistakes");
  if (found == json.end()) return;
  if (!found->is_array()) {
    defects.add("mistakes",
                "must be an array of {\"name\", \"expected\", \"message\", \"hint\"}; "
                "it is " +
                    describe_json_type(*found));
    return;
  }
  if (found->size() > limits::kMaxAuthorMistakes) {
    defects.add("mistakes", "has " + std::to_string(found->size()) + " mistakes; at most " +
                                std::to_string(limits::kMaxAuthorMistakes) + " are allowed");
    return;
  }
  const std::vector<std::string> library = mistake_names();
  for (std::size_t k = 0; k < found->size(); ++k) {
    const std::string at = "mistakes[" + std::to_string(k) + "]";
    std::optional<AuthorMistake> m = read_one((*found)[k], at, p, defects);
    if (!m) continue;
    if (std::find(library.begin(), library.end(), m->name) != library.end()) {
      defects.add(at + ".name", "\"" + m->name +
                                    "\" is a mistake the grader already knows (API.md §13); "
                                    "give yours another name");
    } else if (std::any_of(p.mistakes.begin(), p.mistakes.end(),
                           [&](const AuthorMistake& earlier) { return earlier.name == m->name; })) {
      defects.add(at + ".name", "\"" + m->name +
                                    "\" names an earlier mistake too; each name "
                                    "may be used once");
    } else {
      p.mistakes.push_back(std::move(*m));
    }
  }
}

std::vector<std::shared_ptr<const Problem>> Problem::derive_mistake_targets(
    const Problem& p, const std::string& file_name, std::size_t max_count_state_numbers,
    DefectList& defects) {
  std::vector<std::shared_ptr<const Problem>> targets;
  for (std::size_t k = 0; k < p.mistakes.size(); ++k) {
    const AuthorMistake& m = p.mistakes[k];
    const std::string at = "mistakes[" + std::to_string(k) + "]";
    ProblemSpec spec = p;  // the fields as read, with this mistake's `expected`
    spec.expected = m.expected;
    spec.expected_source = m.expected_source;
    spec.mistakes.clear();
    ProblemOrDefects derived = derive_unproved(std::move(spec), file_name, max_count_state_numbers);
    if (auto* found = std::get_if<std::vector<Defect>>(&derived)) {
      // As the problem's own `expected` would be told (a division by zero on a tested
      // string, classes that W_E cannot tell apart), at this mistake.
      for (const Defect& d : *found) defects.add(at + ".expected", d.message);
      continue;
    }
    auto target = std::make_shared<const Problem>(std::get<Problem>(std::move(derived)));
    if (passes_every_tested_string(*target, p.reference)) {
      defects.add(at,
                  "the reference passes every tested string against this mistake's "
                  "expected too, so the tests cannot tell the mistake from the solution "
                  "and no failing head would be named with it; give an expected that "
                  "differs from the problem's by more than the tolerance on some tested "
                  "string (or add such a string to strings.examples)");
      continue;
    }
    targets.push_back(std::move(target));
  }
  return targets;
}

}  // namespace headgrader
