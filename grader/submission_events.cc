// read_submission_events (submission_readers.h): a body such as {"W_q": [[1, 1]], "W_k":
// [[0, 5]], …} read from nlohmann's SAX events into the matrices, without a tree. Every event
// is checked against the rules (submission_rules.h, matrix_rules.h) as far as they apply at
// that point; anything else stops the parse, and read_submission_tree reads the body again
// to word the fault.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "headgrader/limits.h"
#include "matrix_rules.h"
#include "submission_readers.h"
#include "submission_rules.h"

namespace headgrader {
namespace {

class SubmissionEvents : public nlohmann::json_sax<Json> {
 public:
  explicit SubmissionEvents(const Problem& problem) : problem_(problem) {
    submission_.max_failures = limits::kDefaultMaxFailures;
  }

  // After a successful parse: the submission, unless a name is missing or a shape is wrong.
  std::optional<Submission> result();

  bool null() override { return false; }
  bool boolean(bool) override { return false; }
  bool number_integer(number_integer_t n) override { return number(Json(n)); }
  bool number_unsigned(number_unsigned_t n) override { return number(Json(n)); }
  bool number_float(number_float_t x, const string_t&) override { return number(Json(x)); }
  bool string(string_t& text) override {
    if (depth_ != 1 || value_ != Value::kStudent) return false;
    submission_.student = text;
    return true;
  }
  bool binary(binary_t&) override { return false; }

  bool start_object(std::size_t) override { return depth_++ == 0; }
  bool key(string_t& key) override {
    if (key == kStudentKey || key == kMaxFailuresKey) {
      const bool student = key == kStudentKey;
      bool& seen = student ? seen_student_ : seen_max_failures_;
      if (seen) return false;
      seen = true;
      value_ = student ? Value::kStudent : Value::kMaxFailures;
      return true;
    }
    const char* canonical = canonical_weight_name(key);
    if (!canonical || !is_submitted(problem_, canonical)) return false;
    matrix_ = weight_index(canonical);
    if (matrices_[matrix_].sent) return false;  // twice, perhaps under both spellings
    matrices_[matrix_].sent = true;
    matrices_[matrix_].sent_as = key;
    value_ = Value::kMatrix;
    return true;
  }
  bool end_object() override { return --depth_ == 0; }

  bool start_array(std::size_t) override {
    if (depth_ == 1 && value_ == Value::kMatrix) {  // the matrix
      depth_ = 2;
      matrices_[matrix_].entries.reserve(16);  // the handout's matrices grow it no further
      return true;
    }
    if (depth_ == 2) {  // a row
      Collected& m = matrices_[matrix_];
      if (rows_fault(m.rows + 1) != MatrixFault::kNone) return false;
      ++m.rows;
      row_length_ = 0;
      depth_ = 3;
      return true;
    }
    return false;
  }
  bool end_array() override {
    Collected& m = matrices_[matrix_];
    if (depth_ == 3) {  // the row
      const std::size_t columns = m.rows == 1 ? row_length_ : m.columns;
      if (row_fault(row_length_, columns, limits::kMaxMatrixColumns) != MatrixFault::kNone) {
        return false;
      }
      m.columns = row_length_;
      depth_ = 2;
      return true;
    }
    if (depth_ == 2 && rows_fault(m.rows) == MatrixFault::kNone) {  // the matrix
      depth_ = 1;
      value_ = Value::kNone;
      return true;
    }
    return false;
  }

  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  enum class Value { kNone, kStudent, kMaxFailures, kMatrix };

  struct Collected {
    bool sent = false;
    std::string sent_as;
    std::size_t rows = 0, columns = 0;
    std::vector<double> entries;  // row after row
  };

  bool number(const Json& value) {
    if (depth_ == 1 && value_ == Value::kMaxFailures) {
      const Result<int> n = parse_max_failures(value);
      if (!n) return false;
      submission_.max_failures = n.value();
      return true;
    }
    // A row's length is judged at its end (row_fault), once it is known.
    if (depth_ != 3) return false;
    const double x = value.get<double>();
    if (!entry_allowed(x)) return false;
    matrices_[matrix_].entries.push_back(x);
    ++row_length_;
    return true;
  }

  const Problem& problem_;
  Submission submission_;
  std::array<Collected, 3> matrices_;
  bool seen_student_ = false, seen_max_failures_ = false;
  std::size_t depth_ = 0;  // 1: in the root object, 2: in a matrix, 3: in a row
  Value value_ = Value::kNone;
  std::size_t matrix_ = 0;  // index into kWeightNames of the matrix being read
  std::size_t row_length_ = 0;
};

std::optional<Submission> SubmissionEvents::result() {
  for (const auto& [name, m] : problem_.given) submission_.weights.by_name(name) = m;
  std::array<std::string, 3> sent_as;  // per kWeightNames, as check_shapes takes them
  for (std::size_t k = 0; k < std::size(kWeightNames); ++k) {
    Collected& c = matrices_[k];
    if (!c.sent) {
      if (is_submitted(problem_, kWeightNames[k])) return std::nullopt;  // missing
      continue;
    }
    Matrix& m = submission_.weights.by_name(kWeightNames[k]);
    m.resize(static_cast<Eigen::Index>(c.rows), static_cast<Eigen::Index>(c.columns));
    for (std::size_t r = 0; r < c.rows; ++r) {
      for (std::size_t col = 0; col < c.columns; ++col) {
        m(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(col)) =
            c.entries[r * c.columns + col];
      }
    }
    sent_as[k] = std::move(c.sent_as);
  }
  if (check_shapes(problem_, submission_.weights, sent_as)) return std::nullopt;
  return std::move(submission_);
}

}  // namespace

std::optional<Submission> read_submission_events(const Problem& problem, std::string_view body) {
  // A NUL byte would end nlohmann's input early (see parse_json_checked).
  if (body.find('\0') != std::string_view::npos) return std::nullopt;
  SubmissionEvents reader(problem);
  const bool ok = Json::sax_parse(body, &reader, nlohmann::detail::input_format_t::json,
                                  /*strict=*/true, /*ignore_comments=*/false);
  if (!ok) return std::nullopt;
  return reader.result();
}

}  // namespace headgrader
