// Replacing a file whole: a reader, and a crash, sees the old bytes or the new ones, never a
// part. The keys file and the problem files are written this way. An existing file's mode and,
// where the caller may, its owner pass to the replacement, so that a file an operator made
// readable to the server's user stays readable after `headgrader keys` or a PUT replaces it.
// Thread-safety: a function of its arguments; two writers of one path need a lock of their own
// (the temporary names are unique, so they never write into each other's file).
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace headgrader {

// What failed: the system's error number and the step, "written" or "renamed".
struct ReplaceFailure {
  int error = 0;
  std::string step;
};

// Writes `bytes` to a temporary file of a unique name beside `path` (mkstemp), gives it the
// mode and owner of the file at `path` (or `new_file_mode`, as given, when there is none),
// syncs it, renames it over `path` and syncs the folder. Returns nothing when done; on a
// failure the temporary file is removed and `path` is left as it was.
std::optional<ReplaceFailure> replace_file(const std::filesystem::path& path,
                                           std::string_view bytes, mode_t new_file_mode);

}  // namespace headgrader
