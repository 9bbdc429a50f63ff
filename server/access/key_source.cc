#include "key_source.h"

namespace headgrader::server {

Result<std::unique_ptr<KeySource>> KeySource::open(std::filesystem::path path) {
  std::unique_ptr<KeySource> source(new KeySource(std::move(path)));
  Result<bool> read = source->reload();
  if (!read) return read.error();
  return source;
}

std::shared_ptr<const KeyRing> KeySource::current() const {
  std::lock_guard lock(mutex_);
  return ring_;
}

Result<bool> KeySource::reload() {
  Result<KeyFile> file = KeyFile::read(path_);
  if (!file) return file.error();
  auto ring = std::make_shared<const KeyRing>(file->entries());
  std::lock_guard lock(mutex_);
  ring_ = std::move(ring);
  return true;
}

}  // namespace headgrader::server
