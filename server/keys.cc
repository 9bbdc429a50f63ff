#include "keys.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "common/atomic_file.h"
#include "common/secrets.h"
#include "headgrader/limits.h"

namespace headgrader::server {
namespace {

Error file_error(const std::string& file, std::string message) {
  return {ErrorCode::kKeysFile, file + ": " + std::move(message), ""};
}

bool is_hex_digest(std::string_view text) {
  if (text.size() != 64) return false;
  for (const char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// A name is shown in listings and kept in records: printable ASCII, no spaces at the ends.
std::optional<std::string> name_problem(std::string_view name) {
  if (name.empty()) return "a key needs a name";
  if (name.size() > limits::kMaxKeyNameBytes) {
    return "a key name may have at most " + std::to_string(limits::kMaxKeyNameBytes) +
           " characters; it has " + std::to_string(name.size());
  }
  for (const char c : name) {
    if (c <= ' ' || c > '~') {
      return "a key name may hold letters, digits and punctuation, without spaces";
    }
  }
  return std::nullopt;
}

}  // namespace

std::string_view role_name(Role role) { return role == Role::kStaff ? "staff" : "lms"; }

std::optional<Role> parse_role(std::string_view name) {
  if (name == "lms") return Role::kLms;
  if (name == "staff") return Role::kStaff;
  return std::nullopt;
}

Result<KeyFile> KeyFile::read(const std::filesystem::path& path, bool missing_is_empty) {
  // With the system's calls, not a stream: libstdc++'s stream iterators throw on a read error
  // (a folder in the file's place), which would end a server re-reading its keys on SIGHUP.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT && missing_is_empty) return KeyFile{};
    if (errno == ENOENT) return file_error(path.string(), "does not exist");
    return file_error(path.string(),
                      std::string("cannot be opened for reading: ") + std::strerror(errno));
  }
  std::string text;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      return file_error(path.string(), std::string("cannot be read: ") + std::strerror(error));
    }
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return parse(text, path.string());
}

Result<KeyFile> KeyFile::parse(std::string_view text, const std::string& file_name) {
  const nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return file_error(file_name, "is not valid JSON");
  if (!json.is_object() || json.size() != 1 || !json.contains("keys") ||
      !json.at("keys").is_array()) {
    return file_error(file_name, R"(must be {"keys": [{"name", "role", "sha256"}, ...]})");
  }
  KeyFile file;
  std::set<std::string> names;
  std::size_t index = 0;
  for (const nlohmann::json& item : json.at("keys")) {
    const std::string where = "keys[" + std::to_string(index++) + "]";
    if (!item.is_object() || item.size() != 3 || !item.contains("name") || !item.contains("role") ||
        !item.contains("sha256") || !item.at("name").is_string() || !item.at("role").is_string() ||
        !item.at("sha256").is_string()) {
      return file_error(file_name,
                        where + R"( must be {"name": …, "role": …, "sha256": …}, each a string)");
    }
    KeyEntry entry;
    entry.name = item.at("name").get<std::string>();
    if (auto problem = name_problem(entry.name))
      return file_error(file_name, where + ": " + *problem);
    if (!names.insert(entry.name).second) {
      return file_error(file_name, where + ": the name \"" + entry.name + "\" is used twice");
    }
    const auto role = parse_role(item.at("role").get<std::string>());
    if (!role) return file_error(file_name, where + R"(: role must be "lms" or "staff")");
    entry.role = *role;
    entry.sha256 = item.at("sha256").get<std::string>();
    if (!is_hex_digest(entry.sha256)) {
      return file_error(file_name, where + ": sha256 must be 64 lower-case hex digits");
    }
    file.entries_.push_back(std::move(entry));
  }
  return file;
}

Result<std::string> KeyFile::add(std::string name, Role role) {
  if (auto problem = name_problem(name)) return Error{ErrorCode::kKeysFile, *problem, ""};
  for (const KeyEntry& entry : entries_) {
    if (entry.name == name) {
      return Error{ErrorCode::kKeysFile, "a key named \"" + name + "\" exists; remove it first",
                   ""};
    }
  }
  std::optional<std::string> key = random_token(limits::kKeyBytes);
  if (!key)
    return Error{ErrorCode::kKeysFile, "the system's random generator failed; no key was made", ""};
  entries_.push_back({std::move(name), role, sha256_hex(*key)});
  return *key;
}

Result<bool> KeyFile::remove(std::string_view name) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->name == name) {
      entries_.erase(it);
      return true;
    }
  }
  return Error{ErrorCode::kKeysFile, "there is no key named \"" + std::string(name) + "\"", ""};
}

std::string KeyFile::to_json() const {
  nlohmann::ordered_json keys = nlohmann::ordered_json::array();
  for (const KeyEntry& entry : entries_) {
    keys.push_back(
        {{"name", entry.name}, {"role", role_name(entry.role)}, {"sha256", entry.sha256}});
  }
  return nlohmann::ordered_json{{"keys", std::move(keys)}}.dump(2) + "\n";
}

Result<bool> KeyFile::write(const std::filesystem::path& path) const {
  // A new keys file is 0600 (only the owner reads even the hashes); an existing one keeps its
  // mode and owner, so that a server running as another user can still read it.
  if (const auto failed = replace_file(path, to_json(), 0600)) {
    return Error{ErrorCode::kKeysFile,
                 path.string() + ": cannot be " +
                     (failed->step == "renamed" ? "replaced" : "written") + ": " +
                     std::strerror(failed->error),
                 ""};
  }
  return true;
}

const KeyEntry* KeyRing::find(std::string_view presented) const {
  const std::string digest = sha256_hex(presented);
  const KeyEntry* found = nullptr;
  for (const KeyEntry& entry : entries_) {
    // No early exit: every entry costs the same whether or not one matched before.
    if (constant_time_equal(entry.sha256, digest) && found == nullptr) found = &entry;
  }
  return found;
}

}  // namespace headgrader::server
