// The keys file of --keys (API.md §7), read again on SIGHUP: a file that has become invalid
// keeps the keys that were read last (and reload() says why).
// Thread-safety: every method may be called from any thread.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>

#include "keys.h"

namespace headgrader::server {

class KeySource {
 public:
  static Result<std::unique_ptr<KeySource>> open(std::filesystem::path path);
  std::shared_ptr<const KeyRing> current() const;
  // Errors leave the keys as they were.
  Result<bool> reload();
  const std::filesystem::path& path() const { return path_; }

 private:
  explicit KeySource(std::filesystem::path path) : path_(std::move(path)) {}
  const std::filesystem::path path_;
  mutable std::mutex mutex_;
  std::shared_ptr<const KeyRing> ring_;
};

}  // namespace headgrader::server
