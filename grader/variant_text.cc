#include "variant_text.h"

#include <algorithm>
#include <charconv>
#include <vector>

#include "headgrader/variant.h"
#include "message_text.h"
#include "problem_fields.h"

namespace headgrader {
namespace {

constexpr std::string_view kFeatureOpen = "{feature:";
constexpr std::string_view kOutputOpen = "{output:";

// The placeholders a spec has, for a defect: "{feature:vowel}, {feature:consonant} and
// {output:1} to {output:2}".
std::string placeholders_text(const ProblemSpec& spec) {
  std::vector<std::string> names;
  for (const std::string& name : spec.feature_names) names.push_back("{feature:" + name + "}");
  std::string text =
      names.empty() ? "no {feature:…} (the problem has no feature_names)" : list_names(names);
  if (spec.n_v == 1) text += " and {output:1}";
  if (spec.n_v > 1) text += " and {output:1} to {output:" + std::to_string(spec.n_v) + "}";
  return text;
}

// The 1-based place shown for the placeholder's inside (`name` after "feature:" or the number
// after "output:"), or 0 when it names nothing.
std::size_t feature_place(std::string_view name, const ProblemSpec& spec) {
  const auto found = std::find(spec.feature_names.begin(), spec.feature_names.end(), name);
  return found == spec.feature_names.end()
             ? 0
             : static_cast<std::size_t>(found - spec.feature_names.begin()) + 1;
}

std::size_t output_place(std::string_view number, const ProblemSpec& spec,
                         std::span<const std::size_t> outputs) {
  std::size_t n = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), n);
  if (ec != std::errc() || end != number.data() + number.size() || number.starts_with('0') ||
      n == 0 || n > spec.n_v) {
    return 0;
  }
  if (outputs.empty()) return n;
  const auto found = std::find(outputs.begin(), outputs.end(), n - 1);
  return found == outputs.end() ? 0 : static_cast<std::size_t>(found - outputs.begin()) + 1;
}

// The index of the bracket or parenthesis closing the one at `open`, or npos. The `expected`
// language has no strings or comments, so every bracket is one.
std::size_t closing_bracket(std::string_view s, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < s.size(); ++i) {
    if (s[i] == '[' || s[i] == '(') ++depth;
    if ((s[i] == ']' || s[i] == ')') && --depth == 0) return i;
  }
  return std::string_view::npos;
}

// `inner` split at its commas outside any bracket or parenthesis, each part with its spaces.
std::vector<std::string_view> top_level_parts(std::string_view inner) {
  std::vector<std::string_view> parts;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < inner.size(); ++i) {
    if (inner[i] == '[' || inner[i] == '(') ++depth;
    if (inner[i] == ']' || inner[i] == ')') --depth;
    if (inner[i] == ',' && depth == 0) {
      parts.push_back(inner.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(inner.substr(start));
  return parts;
}

struct Padded {
  std::string lead, core, trail;
};

Padded split_padding(const std::string& part) {
  constexpr std::string_view kSpace = " \t\r\n";
  const std::size_t first = part.find_first_not_of(kSpace);
  if (first == std::string::npos) return {part, "", ""};
  const std::size_t last = part.find_last_not_of(kSpace);
  return {part.substr(0, first), part.substr(first, last + 1 - first), part.substr(last + 1)};
}

}  // namespace

std::string fill_placeholders(std::string_view text, const std::string& field,
                              const ProblemSpec& spec, std::span<const std::size_t> outputs,
                              DefectList& defects) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t open = text.find('{', i);
    if (open == std::string_view::npos) break;
    out.append(text.substr(i, open - i));
    const std::string_view rest = text.substr(open);
    const bool feature = rest.starts_with(kFeatureOpen);
    if (!feature && !rest.starts_with(kOutputOpen)) {
      out += '{';
      i = open + 1;
      continue;
    }
    const std::size_t close = text.find('}', open);
    if (close == std::string_view::npos) {
      defects.add(field,
                  "opens a placeholder \"" + std::string(feature ? kFeatureOpen : kOutputOpen) +
                      "\" that no \"}\" closes; the placeholders are " + placeholders_text(spec));
      out.append(rest);
      return out;
    }
    const std::string_view whole = text.substr(open, close + 1 - open);
    const std::string_view inside =
        whole.substr((feature ? kFeatureOpen : kOutputOpen).size(),
                     whole.size() - (feature ? kFeatureOpen : kOutputOpen).size() - 1);
    const std::size_t place =
        feature ? feature_place(inside, spec) : output_place(inside, spec, outputs);
    if (place == 0) {
      defects.add(field, "has the placeholder \"" + std::string(whole) +
                             "\", which names nothing here; the placeholders are " +
                             placeholders_text(spec));
      out.append(whole);
    } else {
      out += std::to_string(place);
    }
    i = close + 1;
  }
  if (i < text.size()) out.append(text.substr(i));
  return out;
}

std::string reorder_expected_source(std::string_view source, std::span<const std::size_t> outputs) {
  std::string out;
  std::size_t i = 0;
  while (i < source.size()) {
    if (source[i] != '[') {
      out += source[i++];
      continue;
    }
    const std::size_t close = closing_bracket(source, i);
    if (close == std::string_view::npos) {  // not a parsed source; left as it is
      out.append(source.substr(i));
      break;
    }
    std::vector<std::string> parts;
    for (std::string_view part : top_level_parts(source.substr(i + 1, close - i - 1))) {
      parts.push_back(reorder_expected_source(part, outputs));
    }
    if (outputs.size() >= 2 && parts.size() == outputs.size()) {
      std::vector<Padded> as_written;
      for (const std::string& part : parts) as_written.push_back(split_padding(part));
      for (std::size_t j = 0; j < parts.size(); ++j) {
        parts[j] = as_written[j].lead + as_written[outputs[j]].core + as_written[j].trail;
      }
    }
    out += '[';
    for (std::size_t j = 0; j < parts.size(); ++j) out += (j == 0 ? "" : ",") + parts[j];
    out += ']';
    i = close + 1;
  }
  return out;
}

void Problem::fill_shown_texts(Problem& p, DefectList& defects) {
  // This spec's σ (its variant's outputs); its rows, and so feature_names, are already in
  // the student's order (relabel_problem wrote them so).
  Relabeling relabeling;
  if (!p.variant.empty()) {
    Result<Relabeling> parsed = parse_variant_id(p.variant, p);
    if (!parsed) {
      defects.add("variant", parsed.error().message);
      return;
    }
    relabeling = *parsed;
  }
  p.shown_statement_ = fill_placeholders(p.statement, "statement", p, relabeling.outputs, defects);
  p.shown_mistakes_.clear();
  for (std::size_t k = 0; k < p.mistakes.size(); ++k) {
    const std::string at = "mistakes[" + std::to_string(k) + "].";
    p.shown_mistakes_.push_back(
        {fill_placeholders(p.mistakes[k].message, at + "message", p, relabeling.outputs, defects),
         fill_placeholders(p.mistakes[k].hint, at + "hint", p, relabeling.outputs, defects)});
  }
}

}  // namespace headgrader
