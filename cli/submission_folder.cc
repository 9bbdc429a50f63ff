#include "submission_folder.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <system_error>
#include <vector>

#include "headgrader/limits.h"

namespace headgrader::cli {

Result<SubmissionFile> read_first_json(const std::filesystem::path& folder) {
  namespace fs = std::filesystem;
  const auto not_gradable = [](std::string message) {
    return Error{ErrorCode::kMissingField, std::move(message), ""};
  };
  std::error_code ec;
  std::vector<fs::path> found;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    if (it->path().extension() == ".json" && it->is_regular_file(type_ec)) {
      found.push_back(it->path());
    }
  }
  if (ec) {
    return not_gradable("the submission folder " + folder.string() + " cannot be read (" +
                        ec.message() + ")");
  }
  if (found.empty()) {
    return not_gradable(
        "no .json file was submitted; upload one JSON file with your matrices, "
        "e.g. {\"W_q\": [[1, 1]], \"W_k\": [[0, 5]], \"W_V\": [[1, 0], [0, 1]]}");
  }
  std::sort(found.begin(), found.end());
  const fs::path& path = found.front();
  const auto size = fs::file_size(path, ec);
  if (ec || size > limits::kMaxBodyBytes) {
    return not_gradable(path.filename().string() + " is " +
                        (ec ? "unreadable" : std::to_string(size) + " bytes") +
                        "; a submission must be a JSON file of at most " +
                        std::to_string(limits::kMaxBodyBytes) + " bytes");
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream body;
  body << in.rdbuf();
  if (!in) return not_gradable(path.filename().string() + " cannot be read");
  return SubmissionFile{path.filename().string(), body.str()};
}

}  // namespace headgrader::cli
