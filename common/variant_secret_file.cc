#include "common/variant_secret_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "common/limits.h"

namespace headgrader {
namespace {

Error secret_error(std::string message) { return {ErrorCode::kUsage, std::move(message), ""}; }

}  // namespace

Result<std::string> read_variant_secret(const std::filesystem::path& file) {
  const std::string named = "--variant-secret " + file.string();
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    return secret_error(named + ": the file cannot be read (" + std::strerror(errno) + "); write " +
                        std::to_string(limits::kMinVariantSecretBytes) +
                        " or more secret bytes to it, e.g. head -c 32 /dev/urandom > FILE");
  }
  // One byte past the longest allowed, so that a huge file is refused without reading it all.
  std::string secret(limits::kMaxVariantSecretBytes + 1, '\0');
  in.read(secret.data(), static_cast<std::streamsize>(secret.size()));
  if (in.bad()) {
    return secret_error(named + ": the file cannot be read (" + std::strerror(errno) + ")");
  }
  secret.resize(static_cast<std::size_t>(in.gcount()));
  if (secret.ends_with('\n')) secret.pop_back();
  if (secret.ends_with('\r')) secret.pop_back();
  if (secret.size() > limits::kMaxVariantSecretBytes) {
    return secret_error(named + ": the secret is longer than " +
                        std::to_string(limits::kMaxVariantSecretBytes) +
                        " bytes; is this the right file?");
  }
  if (secret.size() < limits::kMinVariantSecretBytes) {
    return secret_error(named + ": the secret is " + std::to_string(secret.size()) +
                        (secret.size() == 1 ? " byte" : " bytes") + ", shorter than the " +
                        std::to_string(limits::kMinVariantSecretBytes) +
                        " needed so that students cannot guess each other's variants; write a "
                        "longer one, e.g. head -c 32 /dev/urandom > FILE");
  }
  return secret;
}

}  // namespace headgrader
