// The secret of `--variant-secret FILE` (API.md §15), read with the same rules and messages
// wherever it is given: the server's start and the Gradescope and PrairieLearn commands, so
// that a file accepted by one is accepted by the other and refused with the same words.
// Thread-safety: a pure function of the file's bytes.
#pragma once

#include <filesystem>
#include <string>

#include "common/result.h"

namespace headgrader {

// The file's bytes, a final line break ("\n" or "\r\n") left out, so that `echo … > FILE` and
// a secret written without one agree. Refused (code "usage", the message beginning
// "--variant-secret FILE: "): unreadable, shorter than limits::kMinVariantSecretBytes or longer
// than limits::kMaxVariantSecretBytes. The message never holds the file's bytes.
Result<std::string> read_variant_secret(const std::filesystem::path& file);

}  // namespace headgrader
