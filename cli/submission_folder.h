// The student's file as course platforms hand it over (API.md §12): Gradescope puts the upload
// in /autograder/submission/, PrairieLearn in /grade/student/. The first `*.json` directly in
// the folder (by name) is the submission; anything wrong with finding or reading it is a
// reason the submission is not gradable, worded for the student.
// Thread-safety: touches only the file system; no shared state.
#pragma once

#include <filesystem>
#include <string>

#include "headgrader/result.h"

namespace headgrader::cli {

struct SubmissionFile {
  std::string name;  // the file's name, for messages
  std::string body;
};

// Errors (code missing_field, field null): the folder cannot be read, holds no `*.json`, or
// the file cannot be read or is over limits::kMaxBodyBytes.
Result<SubmissionFile> read_first_json(const std::filesystem::path& folder);

}  // namespace headgrader::cli
