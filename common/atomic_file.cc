#include "common/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <vector>

namespace headgrader {

std::optional<ReplaceFailure> replace_file(const std::filesystem::path& path,
                                           std::string_view bytes, mode_t new_file_mode) {
  // A hidden name that no problem loader or watcher takes for a file of its own, unique so
  // that two writers at once never share (and truncate) one temporary file.
  const std::string pattern =
      (path.parent_path() / ("." + path.filename().string() + ".XXXXXX")).string();
  std::vector<char> temporary(pattern.begin(), pattern.end());
  temporary.push_back('\0');
  const int fd = ::mkostemp(temporary.data(), O_CLOEXEC);
  if (fd < 0) return ReplaceFailure{errno, "written"};
  const auto fail = [&](const char* step, bool close_fd) {
    const int error = errno;
    if (close_fd) ::close(fd);
    ::unlink(temporary.data());
    return ReplaceFailure{error, step};
  };
  // The old file's mode and owner: an operator who made the keys file readable to the
  // server's user (0640, group of the server) keeps it so. The owner only where permitted
  // (root, or a group the caller is in); otherwise the caller owns the new file.
  struct stat old {};
  if (::stat(path.c_str(), &old) == 0) {
    (void)!::fchown(fd, old.st_uid, old.st_gid);
    if (::fchmod(fd, old.st_mode & 07777) != 0) return fail("written", true);
  } else if (::fchmod(fd, new_file_mode) != 0) {
    return fail("written", true);
  }
  for (std::size_t written = 0; written < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return fail("written", true);
    }
    written += static_cast<std::size_t>(n);
  }
  // Durable before it replaces the old file: a crash leaves the old bytes or the new ones.
  if (::fsync(fd) != 0) return fail("written", true);
  if (::close(fd) != 0) return fail("written", false);
  if (::rename(temporary.data(), path.c_str()) != 0) return fail("renamed", false);
  // The rename itself is durable once the folder is synced.
  const std::filesystem::path folder = path.has_parent_path() ? path.parent_path() : ".";
  const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  return std::nullopt;
}

}  // namespace headgrader
