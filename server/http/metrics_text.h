// The Prometheus text exposition format 0.0.4, written: each family's # HELP and # TYPE
// once, then its samples, label values escaped (backslash, double quote, newline), numbers
// as Prometheus reads them (+Inf, integers without a fraction). What the families are is
// metrics.h's; this only spells them.
// Thread-safety: a MetricsText is one thread's; the free functions are pure.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace headgrader::server {

// The media type of a scrape's answer.
inline constexpr std::string_view kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";

// A label value as the format wants it inside its double quotes.
std::string escape_label_value(std::string_view value);
// A sample's value: "+Inf", "-Inf", "NaN", an integer without a fraction, else the shortest
// text that reads back as the same double, in fixed notation unless tiny or huge.
std::string metric_number(double value);

using Label = std::pair<std::string_view, std::string_view>;  // name, value (unescaped)

// A histogram as counted: bucket i holds the observations at most bounds[i] and above the
// bound before; the last bucket (counts.size() == bounds.size() + 1) those above every bound.
struct HistogramCounts {
  std::span<const double> bounds;
  std::vector<std::uint64_t> counts;
  double sum = 0;
};

class MetricsText {
 public:
  // # HELP and # TYPE ("counter", "gauge", "histogram") of the family that follows.
  MetricsText& family(std::string_view name, std::string_view type, std::string_view help);
  // One sample of the current family (a histogram's named with its suffix: "NAME_bucket").
  MetricsText& sample(std::string_view name, std::span<const Label> labels, double value);
  MetricsText& sample(std::string_view name, double value) { return sample(name, {}, value); }
  // A family of one unlabelled sample.
  MetricsText& single(std::string_view name, std::string_view type, std::string_view help,
                      double value);
  // A whole histogram family: cumulative _bucket samples with le, +Inf last, _sum, _count.
  MetricsText& histogram(std::string_view name, std::string_view help,
                         const HistogramCounts& histogram);

  std::string take() { return std::move(text_); }

 private:
  std::string text_;
};

}  // namespace headgrader::server
