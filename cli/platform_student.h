// Who the student is, as their course platform writes it beside the submission, for grading
// their variant (API.md §15; docs/integrations.md). Gradescope's submission_metadata.json names
// the submitter: `users[0].email`, what staff see in the roster and can type into the staff
// page to preview the same variant. PrairieLearn's grading job names no user, only the
// question's variant: data.json's `variant_seed`, which with `singleVariant` each student keeps,
// so the student is "prairielearn:" + that seed.
// Both files are read with a size limit and the checked JSON reader. A file that names no
// student is the instructor's to fix (the platform then shows that the autograder failed):
// grading someone else's variant would be worse.
// Thread-safety: touches only the file system; no shared state.
#pragma once

#include <filesystem>
#include <string>

#include "headgrader/result.h"

namespace headgrader::cli {

// Errors (code usage), each message "FLAG FILE: FIELD: REASON" (no field when the file itself
// is at fault), never quoting the file's values: the file cannot be read or is over
// limits::kMaxPlatformMetadataBytes, is not JSON or not an object, the field is missing, empty
// or of another type. `flag` names where the file came from ("--metadata", "--data").
Result<std::string> gradescope_student(const std::filesystem::path& metadata,
                                       const std::string& flag);
Result<std::string> prairielearn_student(const std::filesystem::path& data,
                                         const std::string& flag);

}  // namespace headgrader::cli
