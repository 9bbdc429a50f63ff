#include "matrix_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace headgrader {

std::string format_number(double x) {
  if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
  if (std::isnan(x)) return "nan";
  char buf[64];
  if (x == std::floor(x) && std::fabs(x) < 1e9) {
    std::snprintf(buf, sizeof buf, "%.0f", x == 0 ? 0.0 : x);
  } else if (std::fabs(x) >= 1e6 || std::fabs(x) < 1e-4) {
    std::snprintf(buf, sizeof buf, "%.4g", x);
  } else {
    std::snprintf(buf, sizeof buf, "%.4f", x);
  }
  return buf;
}

void print_matrix(std::ostringstream& out, const char* title, const Matrix& m,
                  const std::vector<std::string>& row_labels,
                  const std::vector<std::string>& column_labels) {
  out << "  " << title << "\n";
  std::size_t width = 6;
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    for (Eigen::Index j = 0; j < m.cols(); ++j)
      width = std::max(width, format_number(m(i, j)).size());
  }
  out << "       ";
  for (Eigen::Index j = 0; j < m.cols(); ++j) {
    const std::string label =
        column_labels.empty() ? std::to_string(j + 1) : column_labels[static_cast<std::size_t>(j)];
    out << " " << std::string(width > label.size() ? width - label.size() : 0, ' ') << label;
  }
  out << "\n";
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    const std::string& label = row_labels[static_cast<std::size_t>(i)];
    out << "    " << label << std::string(label.size() < 3 ? 3 - label.size() : 0, ' ');
    for (Eigen::Index j = 0; j < m.cols(); ++j) {
      const std::string cell = format_number(m(i, j));
      out << " " << std::string(width > cell.size() ? width - cell.size() : 0, ' ') << cell;
    }
    out << "\n";
  }
}

}  // namespace headgrader
