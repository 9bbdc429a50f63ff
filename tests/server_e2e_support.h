// What the end-to-end tests of the real server (tests/server/{server,http_connection,
// server_process}_e2e_test.cc) share: their fixture ServerE2E (one server for the suite), a
// grading that fails twice, and the engine's own answer to compare with byte for byte.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "headgrader/diagnosis.h"
#include "headgrader/grade.h"
#include "headgrader/report.h"
#include "headgrader/submission.h"
#include "server_harness.h"
#include "test_support.h"

namespace headgrader::server::server_e2e_testing {

inline const std::string kWrongKeyTwoFailures =
    R"({"W_q": [[1, 1]], "W_k": [[0, 1]], "W_V": [[1, 0], [0, 1]], "max_failures": 2})";

inline std::string engine_grade(const std::string& id, const std::string& body) {
  const Problem& problem = *headgrader::testing::bundled_problems().find(id);
  const Result<Submission> submission = parse_submission(problem, body);
  if (!submission) return "unexpected: " + submission.error().message;
  return report_json(problem,
                     grade_with_diagnosis(problem, submission->weights, submission->max_failures));
}

// One server for the suite, whatever the file of its tests.
class ServerE2E : public harness::SharedServerTest {};

}  // namespace headgrader::server::server_e2e_testing
