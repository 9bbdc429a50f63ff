// Mistakes caught (API.md §14) as the validate route answers them and as `headgrader
// validate --lint` prints them for a person.
#include <algorithm>

#include "headgrader/diagnosis.h"
#include "headgrader/report.h"

namespace headgrader {

Json mistakes_caught_to_json(const std::vector<MistakeCaught>& rows) {
  Json list = Json::array();
  for (const MistakeCaught& row : rows) {
    list.push_back({{"mistake", row.mistake},
                    {"caught", row.caught},
                    {"by", row.by ? Json(*row.by) : Json(nullptr)}});
  }
  return list;
}

std::string mistakes_caught_text(const std::vector<MistakeCaught>& rows) {
  const std::string heading = "mistake";
  std::size_t width = heading.size();
  for (const MistakeCaught& row : rows) width = std::max(width, row.mistake.size());
  const auto padded = [&](const std::string& name) {
    return name + std::string(width - name.size() + 2, ' ');
  };
  std::string text = "  " + padded(heading) + "caught  by (the shortest string that fails it)\n";
  for (const MistakeCaught& row : rows) {
    text += "  " + padded(row.mistake) +
            (row.caught ? "yes     \"" + *row.by + "\"" : "no      -") + "\n";
  }
  return text;
}

}  // namespace headgrader
