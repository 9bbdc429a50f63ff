#include "keys_command.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <optional>

#include "keys.h"
#include "usage_error.h"

namespace headgrader::cli {
namespace {

constexpr const char* kKeysUsage =
    "usage:\n"
    "  headgrader keys add --keys FILE --name NAME --role lms|staff\n"
    "      Makes a key, adds its hash to FILE (created if missing, mode 0600; an existing file\n"
    "      keeps its mode and owner) and prints the key once: keep it, it cannot be shown\n"
    "      again. FILE.lock beside it keeps two changes at once from losing a key.\n"
    "  headgrader keys list --keys FILE\n"
    "      Prints each key's name and role.\n"
    "  headgrader keys remove --keys FILE --name NAME\n";

// An exclusive lock on FILE.lock, held from the read of the keys file to the rename of the new
// one: two `keys add` at once would otherwise both read the same keys, and the second rename
// would drop the first one's key after it had been printed. The lock file stays (removing it
// would let a third writer lock a new file while the second holds the old one).
class UpdateLock {
 public:
  explicit UpdateLock(const std::string& keys_file) : path_(keys_file + ".lock") {
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd_ < 0) {
      error_ = path_ + ": cannot be opened to lock " + keys_file + ": " + std::strerror(errno);
      return;
    }
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno == EINTR) continue;
      error_ = path_ + ": cannot be locked: " + std::strerror(errno);
      return;
    }
  }
  ~UpdateLock() {
    if (fd_ >= 0) ::close(fd_);  // releases the lock
  }
  UpdateLock(const UpdateLock&) = delete;
  UpdateLock& operator=(const UpdateLock&) = delete;

  // Empty when held; else why not.
  const std::string& error() const { return error_; }

 private:
  std::string path_;
  int fd_ = -1;
  std::string error_;
};

}  // namespace

int keys_command(const std::vector<std::string>& args) {
  if (args.empty()) return usage_error("keys needs add, list or remove", kKeysUsage);
  const std::string& action = args[0];
  if (action != "add" && action != "list" && action != "remove") {
    return usage_error("unknown keys command \"" + action + "\"", kKeysUsage);
  }
  std::string file, name, role;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& flag = args[i];
    if (flag != "--keys" && flag != "--name" && flag != "--role") {
      return usage_error("unexpected argument \"" + flag + "\"", kKeysUsage);
    }
    if (i + 1 == args.size()) return usage_error(flag + " needs a value", kKeysUsage);
    (flag == "--keys" ? file : flag == "--name" ? name : role) = args[++i];
  }
  if (file.empty()) return usage_error("keys " + action + " needs --keys FILE", kKeysUsage);
  if (action != "list" && name.empty())
    return usage_error("keys " + action + " needs --name NAME", kKeysUsage);
  if (action == "add" && role.empty())
    return usage_error("keys add needs --role lms or --role staff", kKeysUsage);
  if (action != "add" && !role.empty())
    return usage_error("--role is for keys add only", kKeysUsage);
  if (action == "list" && !name.empty())
    return usage_error("--name is not for keys list", kKeysUsage);

  // `list` reads a whole file either way (every write is a rename), so it takes no lock.
  std::optional<UpdateLock> lock;
  if (action != "list") {
    lock.emplace(file);
    if (!lock->error().empty()) {
      std::cerr << lock->error() << "\n";
      return 1;
    }
  }
  Result<server::KeyFile> keys = server::KeyFile::read(file, /*missing_is_empty=*/action == "add");
  if (!keys) {
    std::cerr << keys.error().message << "\n";
    return 1;
  }
  if (action == "list") {
    for (const server::KeyEntry& entry : keys->entries()) {
      std::cout << entry.name << '\t' << server::role_name(entry.role) << '\n';
    }
    return 0;
  }
  if (action == "add") {
    const std::optional<server::Role> parsed = server::parse_role(role);
    if (!parsed)
      return usage_error("--role must be lms or staff; it is \"" + role + "\"", kKeysUsage);
    Result<std::string> key = keys.value().add(name, *parsed);
    if (!key) return usage_error(key.error().message, kKeysUsage);
    if (Result<bool> written = keys->write(file); !written) {
      std::cerr << written.error().message << "\n";
      return 1;
    }
    std::cout << key.value() << '\n';
    return 0;
  }
  if (Result<bool> removed = keys.value().remove(name); !removed) {
    std::cerr << file << ": " << removed.error().message << "\n";
    return 1;
  }
  if (Result<bool> written = keys->write(file); !written) {
    std::cerr << written.error().message << "\n";
    return 1;
  }
  return 0;
}

}  // namespace headgrader::cli
