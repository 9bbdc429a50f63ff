#include "headgrader/problem.h"

namespace headgrader {

// HEADGRADER_PROBLEMS_DIR is defined for this file alone (grader/CMakeLists.txt), so that
// moving the folder rebuilds one file.
std::filesystem::path default_problems_dir() { return HEADGRADER_PROBLEMS_DIR; }

}  // namespace headgrader
