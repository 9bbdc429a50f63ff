// A student's variant (headgrader/variant.h): the relabeling drawn from an HMAC, its id, and
// the relabeling applied to a problem and to a head, as the header's derivation writes it.
#include "headgrader/variant.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <numeric>

#include "common/secrets.h"
#include "headgrader/limits.h"
#include "hmac_stream.h"
#include "variant_text.h"

namespace headgrader {
namespace {

// `expected` and its source in the student's order. What is graded is the compiled form
// reordered (Expected::with_outputs); the source is rewritten (reorder_expected_source) so
// that the expression the student is shown computes their outputs, kept when it parses to as
// many outputs (every well-typed source does; otherwise it stays as written).
void reorder_outputs(std::string& source, std::shared_ptr<const Expected>& expected,
                     const ClassTable& classes, std::span<const std::size_t> order) {
  expected = std::make_shared<const Expected>(expected->with_outputs(order));
  std::string rewritten = reorder_expected_source(source, order);
  auto parsed = parse_expected(rewritten, classes);
  if (const auto* e = std::get_if<Expected>(&parsed); e && e->output_size() == order.size()) {
    source = std::move(rewritten);
  }
}

std::vector<std::size_t> shuffled(std::size_t n, HmacStream& stream) {
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  for (std::size_t i = n; i-- > 1;) std::swap(order[i], order[stream.below(i + 1)]);
  return order;
}

bool is_permutation_of(const std::vector<std::size_t>& order, std::size_t n) {
  if (order.size() != n) return false;
  std::vector<bool> seen(n, false);
  for (const std::size_t k : order) {
    if (k >= n || seen[k]) return false;
    seen[k] = true;
  }
  return true;
}

void write_list(std::string& out, char letter, const std::vector<std::size_t>& list) {
  if (list.empty()) return;
  if (!out.empty()) out += '-';
  out += letter;
  for (std::size_t k = 0; k < list.size(); ++k) {
    if (k > 0) out += '.';
    out += std::to_string(list[k]);
  }
}

Error id_error(std::string message) {
  return Error{ErrorCode::kWrongShape, "is not a variant of this problem: " + std::move(message),
               "variant"};
}

// "3.0.12" into numbers; nothing for an empty number, a sign, a leading zero or a non-digit.
std::optional<std::vector<std::size_t>> read_list(std::string_view text) {
  std::vector<std::size_t> list;
  for (;;) {
    const std::size_t dot = text.find('.');
    const std::string_view number = text.substr(0, dot);
    if (number.empty() || number.size() > 3 || (number.size() > 1 && number[0] == '0')) {
      return std::nullopt;
    }
    std::size_t value = 0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (ec != std::errc() || end != number.data() + number.size()) return std::nullopt;
    list.push_back(value);
    if (dot == std::string_view::npos) return list;
    text.remove_prefix(dot + 1);
  }
}

// Matrix m (rows × n_e) times M⁻¹ (to the student's) or M (back): column j of m M⁻¹ is column
// π(j) of m divided by s_j; column π(j) of m' M is column j of m' times s_j.
Matrix columns_to_student(const Matrix& m, const Relabeling& r, const std::vector<double>& s) {
  if (r.features.empty() && r.scales.empty()) return m;
  Matrix out(m.rows(), m.cols());
  for (Eigen::Index j = 0; j < m.cols(); ++j) {
    const auto ju = static_cast<std::size_t>(j);
    const auto from = static_cast<Eigen::Index>(r.features.empty() ? ju : r.features[ju]);
    out.col(j) = m.col(from) / s[ju];
  }
  return out;
}

Matrix columns_to_problem(const Matrix& m, const Relabeling& r, const std::vector<double>& s) {
  if (r.features.empty() && r.scales.empty()) return m;
  Matrix out(m.rows(), m.cols());
  for (Eigen::Index j = 0; j < m.cols(); ++j) {
    const auto ju = static_cast<std::size_t>(j);
    const auto to = static_cast<Eigen::Index>(r.features.empty() ? ju : r.features[ju]);
    out.col(to) = m.col(j) * s[ju];
  }
  return out;
}

// M x for the rows of an embedding (n_e × columns): row i = s_i · row π(i).
Matrix rows_to_student(const Matrix& m, const Relabeling& r, const std::vector<double>& s) {
  if (r.features.empty() && r.scales.empty()) return m;
  Matrix out(m.rows(), m.cols());
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    const auto iu = static_cast<std::size_t>(i);
    const auto from = static_cast<Eigen::Index>(r.features.empty() ? iu : r.features[iu]);
    out.row(i) = m.row(from) * s[iu];
  }
  return out;
}

// Σ W_V (row j = row σ(j)) and Σᵀ W_V' (row σ(j) = row j).
Matrix outputs_to_student(const Matrix& m, const Relabeling& r) {
  if (r.outputs.empty()) return m;
  Matrix out(m.rows(), m.cols());
  for (std::size_t j = 0; j < r.outputs.size(); ++j) {
    out.row(static_cast<Eigen::Index>(j)) = m.row(static_cast<Eigen::Index>(r.outputs[j]));
  }
  return out;
}

Matrix outputs_to_problem(const Matrix& m, const Relabeling& r) {
  if (r.outputs.empty()) return m;
  Matrix out(m.rows(), m.cols());
  for (std::size_t j = 0; j < r.outputs.size(); ++j) {
    out.row(static_cast<Eigen::Index>(r.outputs[j])) = m.row(static_cast<Eigen::Index>(j));
  }
  return out;
}

bool fits_columns(const Matrix& m, const ProblemSpec& p) {
  return static_cast<std::size_t>(m.cols()) == p.n_e;
}
bool fits_outputs(const Matrix& m, const ProblemSpec& p) {
  return static_cast<std::size_t>(m.rows()) == p.n_v;
}

}  // namespace

Relabeling derive_relabeling(std::string_view secret, const ProblemSpec& problem,
                             std::string_view student) {
  Relabeling r;
  if (secret.empty() || !problem.variants.any()) return r;
  std::string message = problem.id;
  message += '\0';
  message += student;
  HmacStream stream(secret, message);
  if (problem.variants.permute_features) r.features = shuffled(problem.n_e, stream);
  if (const std::size_t n = problem.variants.feature_scales.size(); n > 0) {
    for (std::size_t i = 0; i < problem.n_e; ++i) r.scales.push_back(stream.below(n));
  }
  if (problem.variants.permute_outputs) r.outputs = shuffled(problem.n_v, stream);
  return r;
}

std::string variant_id(const Relabeling& relabeling) {
  std::string id;
  write_list(id, 'f', relabeling.features);
  write_list(id, 's', relabeling.scales);
  write_list(id, 'o', relabeling.outputs);
  return id;
}

Result<Relabeling> parse_variant_id(std::string_view id, const ProblemSpec& problem) {
  if (!problem.variants.any()) return id_error("the problem has no variants");
  if (id.empty()) return id_error("the id is empty");
  if (id.size() > limits::kMaxVariantIdBytes) {
    return id_error("longer than " + std::to_string(limits::kMaxVariantIdBytes) + " bytes");
  }
  // The parts the problem's `variants` turn on, in the order variant_id writes them.
  struct Part {
    char letter;
    bool on;
    std::vector<std::size_t>* list;
  };
  Relabeling r;
  const VariantOptions& v = problem.variants;
  const Part parts[] = {{'f', v.permute_features, &r.features},
                        {'s', !v.feature_scales.empty(), &r.scales},
                        {'o', v.permute_outputs, &r.outputs}};
  std::string_view rest = id;
  bool first = true;
  for (const Part& part : parts) {
    if (!part.on) continue;
    if (!first) {
      if (!rest.starts_with('-')) {
        return id_error(std::string("expected \"-") + part.letter + "…\" next");
      }
      rest.remove_prefix(1);
    }
    first = false;
    if (!rest.starts_with(part.letter)) {
      return id_error(std::string("expected the part \"") + part.letter + "…\" here");
    }
    rest.remove_prefix(1);
    const std::size_t end = std::min(rest.find('-'), rest.size());
    const auto list = read_list(rest.substr(0, end));
    if (!list) {
      return id_error(std::string("the part \"") + part.letter +
                      "\" must be whole numbers in decimal joined by \".\"");
    }
    *part.list = *list;
    rest.remove_prefix(end);
  }
  if (!rest.empty()) return id_error("unexpected \"" + std::string(rest.substr(0, 16)) + "\"");
  if (v.permute_features && !is_permutation_of(r.features, problem.n_e)) {
    return id_error("\"f\" must list each of the " + std::to_string(problem.n_e) + " rows 0 to " +
                    std::to_string(problem.n_e - 1) + " once");
  }
  if (!v.feature_scales.empty() &&
      (r.scales.size() != problem.n_e ||
       std::any_of(r.scales.begin(), r.scales.end(),
                   [&](std::size_t k) { return k >= v.feature_scales.size(); }))) {
    return id_error("\"s\" must give one of the " + std::to_string(v.feature_scales.size()) +
                    " scales (0 to " + std::to_string(v.feature_scales.size() - 1) +
                    ") for each of the " + std::to_string(problem.n_e) + " rows");
  }
  if (v.permute_outputs && !is_permutation_of(r.outputs, problem.n_v)) {
    return id_error("\"o\" must list each of the " + std::to_string(problem.n_v) +
                    " outputs 0 to " + std::to_string(problem.n_v - 1) + " once");
  }
  return r;
}

std::vector<double> row_scales(const ProblemSpec& problem, const Relabeling& relabeling) {
  std::vector<double> s(problem.n_e, 1.0);
  for (std::size_t i = 0; i < relabeling.scales.size() && i < s.size(); ++i) {
    s[i] = problem.variants.feature_scales[relabeling.scales[i]];
  }
  return s;
}

HeadWeights to_student_coordinates(const ProblemSpec& problem, const Relabeling& relabeling,
                                   const HeadWeights& head) {
  const std::vector<double> s = row_scales(problem, relabeling);
  HeadWeights out = head;
  // W_q' = W_q M⁻¹, W_k' = W_k M⁻¹, W_V' = Σ W_V M⁻¹.
  if (fits_columns(head.W_q, problem)) out.W_q = columns_to_student(head.W_q, relabeling, s);
  if (fits_columns(head.W_k, problem)) out.W_k = columns_to_student(head.W_k, relabeling, s);
  if (fits_columns(head.W_V, problem) && fits_outputs(head.W_V, problem)) {
    out.W_V = outputs_to_student(columns_to_student(head.W_V, relabeling, s), relabeling);
  }
  return out;
}

HeadWeights to_problem_coordinates(const ProblemSpec& problem, const Relabeling& relabeling,
                                   const HeadWeights& head) {
  const std::vector<double> s = row_scales(problem, relabeling);
  HeadWeights out = head;
  // W_q = W_q' M, W_k = W_k' M, W_V = Σᵀ W_V' M.
  if (fits_columns(head.W_q, problem)) out.W_q = columns_to_problem(head.W_q, relabeling, s);
  if (fits_columns(head.W_k, problem)) out.W_k = columns_to_problem(head.W_k, relabeling, s);
  if (fits_columns(head.W_V, problem) && fits_outputs(head.W_V, problem)) {
    out.W_V = outputs_to_problem(columns_to_problem(head.W_V, relabeling, s), relabeling);
  }
  return out;
}

ProblemOrDefects relabel_problem(const ProblemSpec& problem, const Relabeling& relabeling) {
  ProblemSpec spec = problem;  // the fields as read; the derived part is derive's
  const std::vector<double> s = row_scales(problem, relabeling);
  spec.head.W_E = rows_to_student(problem.head.W_E, relabeling, s);
  if (problem.head.W_P) spec.head.W_P = rows_to_student(*problem.head.W_P, relabeling, s);
  if (!relabeling.features.empty() && !problem.feature_names.empty()) {
    for (std::size_t i = 0; i < relabeling.features.size(); ++i) {
      spec.feature_names[i] = problem.feature_names[relabeling.features[i]];
    }
  }
  spec.reference = to_student_coordinates(problem, relabeling, problem.reference);
  for (auto& [name, m] : spec.given) m = spec.reference.by_name(name);
  if (!relabeling.outputs.empty()) {
    reorder_outputs(spec.expected_source, spec.expected, spec.classes, relabeling.outputs);
    for (AuthorMistake& mistake : spec.mistakes) {
      reorder_outputs(mistake.expected_source, mistake.expected, spec.classes, relabeling.outputs);
    }
  }
  spec.variant = variant_id(relabeling);
  return Problem::derive(std::move(spec), problem.id + ".json");
}

}  // namespace headgrader
