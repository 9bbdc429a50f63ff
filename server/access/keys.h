// The keys file of API.md §7: {"keys": [{"name", "role", "sha256"}…]}. A key is 32 random
// bytes (base64url, 43 characters) that only its holder knows; the file keeps the SHA-256 of
// its text, so that a leaked file grants nothing. KeyFile is the file as data (read, edited by
// `headgrader keys`, written atomically: a new file 0600, an existing one keeping its mode and
// owner); KeyRing answers "whose key is this?"
// by comparing hashes in constant time.
// Thread-safety: both are values; a KeyRing is immutable and safe to share.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "headgrader/result.h"

namespace headgrader::server {

enum class Role { kLms, kStaff };
std::string_view role_name(Role role);
std::optional<Role> parse_role(std::string_view name);

struct KeyEntry {
  std::string name;
  Role role = Role::kLms;
  std::string sha256;  // lower-case hex of SHA-256 of the key's text
};

class KeyFile {
 public:
  // Reads and checks `path`. A missing file is an error unless `missing_is_empty`.
  static Result<KeyFile> read(const std::filesystem::path& path, bool missing_is_empty = false);
  // Checks the text of a keys file; `file_name` names it in errors.
  static Result<KeyFile> parse(std::string_view text, const std::string& file_name);

  const std::vector<KeyEntry>& entries() const { return entries_; }
  // Adds a new key named `name` and returns its text (shown once; only its hash is kept).
  // Errors: a name in use, a name that is empty, too long or not printable.
  Result<std::string> add(std::string name, Role role);
  // Errors: no key of that name.
  Result<bool> remove(std::string_view name);

  // Writes the file atomically (replace_file, atomic_file.h): a new file gets mode 0600, an
  // existing one keeps its mode and, where permitted, its owner. Two writers of one file need
  // the lock of `headgrader keys` around their read, edit and write.
  Result<bool> write(const std::filesystem::path& path) const;
  std::string to_json() const;

 private:
  std::vector<KeyEntry> entries_;
};

class KeyRing {
 public:
  KeyRing() = default;
  explicit KeyRing(std::vector<KeyEntry> entries) : entries_(std::move(entries)) {}

  // The entry whose hash is SHA-256(presented), or nullptr. Every entry is compared, each in
  // constant time, so the time taken says nothing about which keys exist.
  const KeyEntry* find(std::string_view presented) const;

 private:
  std::vector<KeyEntry> entries_;
};

}  // namespace headgrader::server
