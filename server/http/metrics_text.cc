#include "metrics_text.h"

#include <charconv>
#include <cmath>
#include <numeric>

namespace headgrader::server {

std::string escape_label_value(std::string_view value) {
  std::string escaped;
  escaped.reserve(value.size());
  for (const char c : value) {
    if (c == '\\') {
      escaped += "\\\\";
    } else if (c == '"') {
      escaped += "\\\"";
    } else if (c == '\n') {
      escaped += "\\n";
    } else {
      escaped += c;
    }
  }
  return escaped;
}

std::string metric_number(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char text[64];
  // Below 2^53 a whole number is exact; counters are written as the integers they are.
  if (value == std::floor(value) && std::fabs(value) < 9007199254740992.0) {
    const auto end = std::to_chars(text, text + sizeof text, static_cast<std::int64_t>(value)).ptr;
    return std::string(text, end);
  }
  // Fixed notation where it stays short ("0.0001", not "1e-04"): a bucket's le reads as its
  // bound does in the docs.
  const double magnitude = std::fabs(value);
  const auto end =
      magnitude >= 1e-6 && magnitude < 1e15
          ? std::to_chars(text, text + sizeof text, value, std::chars_format::fixed).ptr
          : std::to_chars(text, text + sizeof text, value).ptr;
  return std::string(text, end);
}

MetricsText& MetricsText::family(std::string_view name, std::string_view type,
                                 std::string_view help) {
  // HELP text escapes only backslash and newline; ours are constants without either.
  text_.append("# HELP ").append(name).append(" ").append(help).append("\n");
  text_.append("# TYPE ").append(name).append(" ").append(type).append("\n");
  return *this;
}

MetricsText& MetricsText::sample(std::string_view name, std::span<const Label> labels,
                                 double value) {
  text_.append(name);
  if (!labels.empty()) {
    text_ += '{';
    for (std::size_t i = 0; i < labels.size(); ++i) {
      if (i > 0) text_ += ',';
      text_.append(labels[i].first).append("=\"");
      text_.append(escape_label_value(labels[i].second)).append("\"");
    }
    text_ += '}';
  }
  text_.append(" ").append(metric_number(value)).append("\n");
  return *this;
}

MetricsText& MetricsText::single(std::string_view name, std::string_view type,
                                 std::string_view help, double value) {
  return family(name, type, help).sample(name, value);
}

MetricsText& MetricsText::histogram(std::string_view name, std::string_view help,
                                    const HistogramCounts& histogram) {
  family(name, "histogram", help);
  const std::string bucket = std::string(name) + "_bucket";
  std::uint64_t below = 0;
  for (std::size_t i = 0; i < histogram.counts.size(); ++i) {
    below += histogram.counts[i];
    const std::string le =
        i < histogram.bounds.size() ? metric_number(histogram.bounds[i]) : "+Inf";
    const Label labels[] = {{"le", le}};
    sample(bucket, labels, static_cast<double>(below));
  }
  sample(std::string(name) + "_sum", histogram.sum);
  sample(std::string(name) + "_count", static_cast<double>(below));
  return *this;
}

}  // namespace headgrader::server
