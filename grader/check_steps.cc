// Check my steps (API.md §10): the body is read in the order a student fixes things (the JSON,
// its keys, the weights as for grading, the input, each step's shape), then each step is
// judged against what follows from the student's own earlier steps.
#include "headgrader/check_steps.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "headgrader/json_input.h"
#include "headgrader/json_writer.h"
#include "headgrader/limits.h"
#include "headgrader/report.h"
#include "headgrader/submission.h"
#include "matrix_json.h"
#include "message_text.h"
#include "submission_rules.h"
#include "typed_decimals.h"

namespace headgrader {
namespace {

constexpr double kMinTolerance = 1e-3;
constexpr double kMasked = -std::numeric_limits<double>::infinity();

// A step as typed: values (NaN where the student wrote null) and the decimals of each.
struct TypedStep {
  Matrix values;
  Eigen::MatrixXi decimals;
  bool is_null(Eigen::Index r, Eigen::Index c) const { return std::isnan(values(r, c)); }
};

std::size_t step_index(std::string_view name) {
  std::size_t k = 0;
  while (k < 7 && name != kStepNames[k]) ++k;
  return k;
}

std::string step_list() {
  std::vector<std::string> names(std::begin(kStepNames), std::end(kStepNames));
  return list_names(names);
}

Error unknown_top_key(const std::string& key) {
  return key_error(ErrorCode::kUnknownField,
                   "unknown field \"" + shorten_for_message(key) +
                       "\"; check-steps takes the weights (as for grading), input, steps, and "
                       "optionally reveal and student",
                   key);
}

// The tokens of `input`, or why it is not a string this head can run on.
Result<TokenString> parse_input(const Problem& problem, const Json& value) {
  std::size_t max_length = limits::kMaxStringLength;
  if (problem.head.W_P) max_length = std::min<std::size_t>(max_length, problem.head.W_P->cols());
  const std::string want = "input must be a string of 1 to " + std::to_string(max_length) +
                           " letters of the alphabet \"" + shorten_for_message(problem.alphabet) +
                           "\"";
  if (!value.is_string()) {
    return Error{ErrorCode::kWrongType, want + "; it is " + describe_json_type(value), "input"};
  }
  std::vector<char32_t> chars;
  if (!decode_utf8(value.get<std::string>(), chars) || chars.empty() || chars.size() > max_length) {
    return Error{ErrorCode::kWrongShape,
                 want + "; it has " + count_of(chars.size(), "letter", "letters"), "input"};
  }
  TokenString tokens;
  for (std::size_t i = 0; i < chars.size(); ++i) {
    const auto at =
        std::find(problem.alphabet_chars.begin(), problem.alphabet_chars.end(), chars[i]);
    if (at == problem.alphabet_chars.end()) {
      return Error{ErrorCode::kOutOfRange,
                   want + "; letter " + std::to_string(i + 1) + " (\"" + encode_utf8(chars[i]) +
                       "\") is not in it",
                   "input"};
    }
    tokens.push_back(static_cast<int>(at - problem.alphabet_chars.begin()));
  }
  return tokens;
}

// One step's matrix: `rows` × `columns` numbers or nulls, with the decimals typed.
Result<TypedStep> parse_step(const std::string& name, const Json& value, Eigen::Index rows,
                             Eigen::Index columns, const std::string& shape_words,
                             const TypedDecimals& decimals) {
  const std::string where = "steps." + name;
  const std::string want = where + " must be " + std::to_string(rows) + " × " +
                           std::to_string(columns) + " (" + shape_words + ")";
  if (!value.is_array()) {
    return Error{ErrorCode::kWrongType,
                 want + ", an array of rows; it is " + describe_json_type(value), "steps"};
  }
  if (static_cast<Eigen::Index>(value.size()) != rows) {
    return Error{ErrorCode::kWrongShape, want + "; it has " + count_of(value.size(), "row", "rows"),
                 "steps"};
  }
  TypedStep step{Matrix(rows, columns), Eigen::MatrixXi::Zero(rows, columns)};
  const auto typed = decimals.find(name);
  for (Eigen::Index r = 0; r < rows; ++r) {
    const Json& row = value[static_cast<std::size_t>(r)];
    const std::string row_name = "row " + std::to_string(r + 1) + " of " + where;
    if (!row.is_array()) {
      return Error{ErrorCode::kWrongType,
                   row_name + " must be an array of numbers; it is " + describe_json_type(row),
                   "steps"};
    }
    if (static_cast<Eigen::Index>(row.size()) != columns) {
      return Error{ErrorCode::kWrongShape,
                   want + "; " + row_name + " has " + count_of(row.size(), "number", "numbers"),
                   "steps"};
    }
    for (Eigen::Index c = 0; c < columns; ++c) {
      const Json& entry = row[static_cast<std::size_t>(c)];
      if (entry.is_null()) {
        step.values(r, c) = std::numeric_limits<double>::quiet_NaN();
      } else if (entry.is_number()) {
        step.values(r, c) = entry.get<double>();
      } else {
        return Error{ErrorCode::kWrongType,
                     "entry " + std::to_string(c + 1) + " of " + row_name +
                         " must be a number (or null where the mask hides it); it is " +
                         describe_json_type(entry),
                     "steps"};
      }
      if (typed != decimals.end() && static_cast<std::size_t>(r) < typed->second.size() &&
          static_cast<std::size_t>(c) < typed->second[r].size()) {
        step.decimals(r, c) = typed->second[r][c];
      }
    }
  }
  return step;
}

bool visible(const Problem& problem, Eigen::Index i, Eigen::Index j) {
  return !problem.head.causal || j <= i;
}

// Judges `typed` against `expected` (−∞ = masked: the student must write null there; an
// attention entry the mask hides may be null or 0). Fills check.wrong.
void judge(const TypedStep& typed, const Matrix& expected, bool masked_means_zero,
           StepCheck& check) {
  for (Eigen::Index r = 0; r < expected.rows(); ++r) {
    for (Eigen::Index c = 0; c < expected.cols(); ++c) {
      const double want = expected(r, c);
      bool right = false;
      if (typed.is_null(r, c)) {
        right = want == kMasked;
      } else if (want == kMasked) {
        right = masked_means_zero && std::fabs(typed.values(r, c)) <= kMinTolerance;
      } else {
        right = std::fabs(typed.values(r, c) - want) <= typed_tolerance(typed.decimals(r, c));
      }
      if (!right) check.wrong.emplace_back(static_cast<int>(r + 1), static_cast<int>(c + 1));
    }
  }
  check.correct = check.wrong.empty();
  check.expected = expected;
}

// What the next step is computed from: the student's own numbers where they gave them,
// the correct value where they wrote null in a place that has one.
Matrix carried(const TypedStep* typed, const Matrix& expected) {
  if (typed == nullptr) return expected;
  Matrix used = expected;
  for (Eigen::Index r = 0; r < used.rows(); ++r) {
    for (Eigen::Index c = 0; c < used.cols(); ++c) {
      if (!typed->is_null(r, c) && expected(r, c) != kMasked) used(r, c) = typed->values(r, c);
    }
  }
  return used;
}

}  // namespace

double typed_tolerance(int decimals) {
  // What the student page says: a number is right when it is the right value rounded to the
  // decimals typed ("0" for 0.0034, "0.3" for 0.3326), so within half a unit of its last
  // decimal, and a hair more: 0.33 is 0.335 rounded, but 0.335 - 0.33 is a little over 0.005
  // in binary. A whole number (or one written with an exponent, 1e2) is rounded to units.
  return std::max(kMinTolerance, 0.5 * std::pow(10.0, -std::max(decimals, 0)) * (1 + 1e-9));
}

std::optional<std::string> StepsReport::first_wrong() const {
  for (const StepCheck& step : steps) {
    if (!step.correct) return step.name;
  }
  return std::nullopt;
}

Result<StepsReport> check_steps(const Problem& problem, std::string_view body) {
  auto parsed = parse_json_checked(body, limits::kMaxJsonDepth, "the body");
  if (!parsed) return parsed.error();
  const Json& json = parsed.value();
  if (!json.is_object()) {
    return Error{ErrorCode::kNotAnObject,
                 "the body must be a JSON object such as {\"W_q\": [[1, 1]], …, \"input\": "
                 "\"abcce\", \"steps\": {\"Q\": [[1], …]}}; it is " +
                     describe_json_type(json),
                 ""};
  }

  // The weights go to the grader's own reader, so that they are checked word for word alike.
  Json weights = Json::object();
  for (const auto& [key, value] : json.items()) {
    if (key == "input" || key == "steps" || key == "reveal") continue;
    if (key != "student" && canonical_weight_name(key) == nullptr) return unknown_top_key(key);
    weights[key] = value;
  }
  auto submission = parse_submission(problem, weights.dump());
  if (!submission) return submission.error();
  const HeadWeights& w = submission->weights;

  for (const char* required : {"input", "steps"}) {
    if (!json.contains(required)) {
      return Error{ErrorCode::kMissingField,
                   std::string(required) +
                       " is missing; check-steps needs the weights, input "
                       "(your string) and steps (your matrices)",
                   required};
    }
  }
  auto tokens = parse_input(problem, json.at("input"));
  if (!tokens) return tokens.error();

  StepsReport report;
  report.input = json.at("input").get<std::string>();
  if (json.contains("reveal")) {
    if (!json.at("reveal").is_boolean()) {
      return Error{ErrorCode::kWrongType,
                   "reveal must be true or false; it is " + describe_json_type(json.at("reveal")),
                   "reveal"};
    }
    report.reveal = json.at("reveal").get<bool>();
  }

  const Json& steps_json = json.at("steps");
  if (!steps_json.is_object()) {
    return Error{ErrorCode::kWrongType,
                 "steps must be an object of your matrices by name (" + step_list() + "); it is " +
                     describe_json_type(steps_json),
                 "steps"};
  }
  const auto L = static_cast<Eigen::Index>(tokens->size());
  const Eigen::Index n_q = w.W_q.rows();
  const Eigen::Index n_v = w.W_V.rows();
  const std::string letters = "one row per letter of \"" + shorten_for_message(report.input) + "\"";
  const std::string shape_words[7] = {
      letters + ", one column per row of W_q, n_q = " + std::to_string(n_q),
      letters + ", one column per row of W_k, n_q = " + std::to_string(n_q),
      letters + ", one column per row of W_V, n_v = " + std::to_string(n_v),
      "queries as rows, keys as columns",
      "queries as rows, keys as columns, null where the mask hides a key",
      "queries as rows, keys as columns",
      letters + ", one column per row of W_V, n_v = " + std::to_string(n_v)};
  const Eigen::Index columns[7] = {n_q, n_q, n_v, L, L, L, n_v};

  const TypedDecimals decimals = read_typed_decimals(body);
  std::optional<TypedStep> typed[7];
  for (const auto& [name, value] : steps_json.items()) {
    const std::size_t k = step_index(name);
    if (k == 7) {
      return Error{ErrorCode::kUnknownField,
                   "unknown step \"" + shorten_for_message(name) + "\" in steps; the steps are " +
                       step_list(),
                   "steps"};
    }
    auto step = parse_step(name, value, L, columns[k], shape_words[k], decimals);
    if (!step) return step.error();
    typed[k] = std::move(step).value();
  }

  // Step 1 and 2: the embeddings and Q, K, V from the student's weights (nothing typed
  // before them to follow on from).
  const AttentionTrace truth = run_head(problem.head, w, *tokens);
  Matrix expected[7];
  Matrix used[7];
  const auto settle = [&](std::size_t k, Matrix value) {
    expected[k] = std::move(value);
    used[k] = carried(typed[k] ? &*typed[k] : nullptr, expected[k]);
  };
  settle(0, truth.Q);
  settle(1, truth.K);
  settle(2, truth.V);
  // Step 3: scores = scale · Q Kᵀ, from the student's Q and K.                       (L × L)
  settle(3, problem.head.scale * used[0] * used[1].transpose());
  // Step 4: the mask on the student's scores.
  Matrix masked = used[3];
  for (Eigen::Index i = 0; i < L; ++i) {
    for (Eigen::Index j = 0; j < L; ++j) {
      if (!visible(problem, i, j)) masked(i, j) = kMasked;
    }
  }
  settle(4, masked);
  // Step 5: softmax of each row of the student's masked scores.
  Matrix attention(L, L);
  for (Eigen::Index i = 0; i < L; ++i) {
    const Eigen::RowVectorXd row = used[4].row(i);
    Eigen::RowVectorXd weights_row(L);
    const int last = problem.head.causal ? static_cast<int>(i) : static_cast<int>(L - 1);
    masked_softmax_row(row.data(), static_cast<int>(L), last, weights_row.data());
    for (Eigen::Index j = 0; j < L; ++j) {
      attention(i, j) = visible(problem, i, j) ? weights_row(j) : kMasked;
    }
  }
  settle(5, attention);
  // A masked attention entry weighs 0 in the output, whatever was typed there.
  Matrix attention_used = used[5];
  for (Eigen::Index i = 0; i < L; ++i) {
    for (Eigen::Index j = 0; j < L; ++j) {
      if (!visible(problem, i, j)) attention_used(i, j) = 0;
    }
  }
  // Step 6: output = attention · V, from the student's attention and V.            (L × n_v)
  settle(6, attention_used * used[2]);

  for (std::size_t k = 0; k < 7; ++k) {
    if (!typed[k]) continue;
    StepCheck check;
    check.name = kStepNames[k];
    judge(*typed[k], expected[k], /*masked_means_zero=*/k == 5, check);
    report.steps.push_back(std::move(check));
  }
  return report;
}

std::string steps_report_json(const StepsReport& report) {
  JsonWriter out;
  out.begin_object().key("input").untrusted_value(report.input).key("first_wrong");
  if (const auto first = report.first_wrong()) {
    out.value(*first);
  } else {
    out.null();
  }
  out.key("steps").begin_object();
  for (const StepCheck& step : report.steps) {
    out.key(step.name).begin_object().key("correct").value(step.correct);
    out.key("wrong_entries").begin_array();
    for (const auto& [r, c] : step.wrong) out.begin_array().value(r).value(c).end_array();
    out.end_array();
    if (report.reveal) {
      // Masked attention is 0 in a trace; masked scores are null.
      Matrix shown = step.expected;
      if (step.name == "attention") shown = (shown.array() == kMasked).select(0.0, shown);
      out.key("expected").matrix(shown);
    }
    out.end_object();
  }
  out.end_object().end_object();
  return out.take();
}

}  // namespace headgrader
