#include "platform_student.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "common/limits.h"
#include "headgrader/json_input.h"
#include "headgrader/limit_text.h"

namespace headgrader::cli {
namespace {

Error student_error(std::string message) { return {ErrorCode::kUsage, std::move(message), ""}; }

// The file as a JSON object, or why not, the message starting with `named`.
Result<Json> read_object(const std::filesystem::path& file, const std::string& named) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    return student_error(named + ": the file cannot be read (" + std::strerror(errno) + ")");
  }
  // One byte past the limit, so that a huge file is refused without reading it all.
  std::string text(limits::kMaxPlatformMetadataBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) {
    return student_error(named + ": the file cannot be read (" + std::strerror(errno) + ")");
  }
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > limits::kMaxPlatformMetadataBytes) {
    return student_error(named + ": the file is over " +
                         bytes_text(limits::kMaxPlatformMetadataBytes) +
                         "; is this the right file?");
  }
  Result<Json> parsed = parse_json_checked(text, limits::kMaxJsonDepth, "the file");
  if (!parsed) return student_error(named + ": " + parsed.error().message);
  if (!parsed->is_object()) return student_error(named + ": the file is not a JSON object");
  return parsed;
}

}  // namespace

Result<std::string> gradescope_student(const std::filesystem::path& metadata,
                                       const std::string& flag) {
  const std::string named = flag + " " + metadata.string();
  Result<Json> file = read_object(metadata, named);
  if (!file) return file.error();
  const auto missing = [&](const std::string& why) {
    return student_error(named + ": users[0].email: " + why +
                         "; the student's variant needs who submitted (or give --student S)");
  };
  const auto users = file->find("users");
  if (users == file->end()) return missing("missing (the file has no \"users\")");
  if (!users->is_array()) return missing("missing (\"users\" is not a list)");
  if (users->empty()) return missing("missing (\"users\" is empty)");
  const Json& first = (*users)[0];
  if (!first.is_object()) return missing("missing (users[0] is not an object)");
  const auto email = first.find("email");
  if (email == first.end()) return missing("missing");
  if (!email->is_string()) return missing("not a string");
  std::string student = email->get<std::string>();
  if (student.empty()) return missing("empty");
  return student;
}

Result<std::string> prairielearn_student(const std::filesystem::path& data,
                                         const std::string& flag) {
  const std::string named = flag + " " + data.string();
  Result<Json> file = read_object(data, named);
  if (!file) return file.error();
  const auto missing = [&](const std::string& why) {
    return student_error(named + ": variant_seed: " + why +
                         "; the student's variant is drawn from it (or give --student S)");
  };
  const auto seed = file->find("variant_seed");
  if (seed == file->end()) return missing("missing");
  std::string text;
  if (seed->is_string()) {
    text = seed->get<std::string>();
  } else if (seed->is_number()) {
    text = seed->dump();  // an integer as its digits
  } else {
    return missing("not a string or a number");
  }
  if (text.empty()) return missing("empty");
  return "prairielearn:" + text;
}

}  // namespace headgrader::cli
