// The parts of the running service that a request may need beyond itself (API.md Part 2):
// the problems (reloadable), the keys of §7 and what grading needs of them, the student
// tokens of LTI launches. main() builds one from the flags; the router only reads it.
// Thread-safety: the pointed-to parts are each safe to use from any thread.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>

#include "auth.h"
#include "grade_record.h"
#include "keys.h"
#include "problem_catalog.h"

namespace headgrader::server {

class LtiService;

// The keys file of --keys, read again on SIGHUP: a file that has become invalid keeps the
// keys that were read last (and reload() says why).
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

struct Service {
  ProblemCatalog* problems = nullptr;  // never null
  KeySource* keys = nullptr;           // null without --keys: staff routes are off
  GradingAccess grading = GradingAccess::kOpen;
  const StudentTokens* student_tokens = nullptr;  // null without --lti
  RecordSettings records = {};  // the submission record (§8); no store with --store none
  LtiService* lti = nullptr;    // null without --lti: its routes, passback
};

}  // namespace headgrader::server
