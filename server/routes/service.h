// The parts of the running service that a request may need beyond itself (API.md Part 2):
// the problems (reloadable), the keys of §7 and what grading needs of them, the student
// tokens of LTI launches, the metrics of §17. main() builds one from the flags; the router only
// reads it. Thread-safety: the pointed-to parts are each safe to use from any thread.
#pragma once

#include <string>

#include "auth.h"
#include "grade_record.h"
#include "key_source.h"
#include "metrics.h"
#include "problem_catalog.h"

namespace headgrader::server {

class LtiService;

struct Service {
  ProblemCatalog* problems = nullptr;  // never null
  KeySource* keys = nullptr;           // null without --keys: staff routes are off
  GradingAccess grading = GradingAccess::kOpen;
  const StudentTokens* student_tokens = nullptr;  // null without --lti
  RecordSettings records = {};  // the submission record (§8); no store with --store none
  LtiService* lti = nullptr;    // null without --lti: its routes, passback
  // What GET /metrics shows (API.md §17); null: the router keeps a registry of its own.
  Metrics* metrics = nullptr;
  // --variant-secret's bytes (API.md §15): each student's variant is drawn from it. Empty:
  // every student gets the problems as written. Never logged, never in an answer.
  std::string variant_secret = {};
};

}  // namespace headgrader::server
