// No answers leak: no route, error message, access-log line, trace or CLI output reveals a
// problem's `reference`. Two checks: (1) the bundled problems, whose reference matrices
// (serialized, e.g. [[0,5]] for consonant-anywhere's W_k) must not appear in any answer that
// is not a grading, nor in the log; (2) a copy of the bundled problems whose references are
// scaled by a canary factor (1 + 2^-10, so they still pass), whose canary numbers must not
// appear anywhere at all, gradings and their traces included. The key "reference" never does.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "headgrader/report.h"
#include "server_harness.h"
#include "test_support.h"

namespace headgrader::server {
namespace {

using testing::kProblemsDir;

namespace fs = std::filesystem;
using namespace harness;

const std::vector<std::string> kIds = {"consonant-anywhere", "consonant-proportion",
                                       "first-position"};
constexpr double kCanary = 1.0009765625;  // 1 + 2^-10: exact, and distinctive when printed

Json read_json(const fs::path& path) {
  std::ifstream in(path);
  return Json::parse(in);
}

std::string compact(const Json& value) { return value.dump(); }

// The problem's reference matrices, serialized, that its public form does not already hold
// (a reference equal to something public would reveal nothing).
std::vector<std::string> secret_matrices(const Json& problem) {
  Json open = problem;
  open.erase("reference");
  const std::string shown = compact(open);
  std::vector<std::string> secrets;
  for (const auto& [name, matrix] : problem["reference"].items()) {
    if (shown.find(compact(matrix)) == std::string::npos) secrets.push_back(compact(matrix));
  }
  return secrets;
}

std::string wire(const HttpResponse& response) {
  std::ostringstream text;
  text << response;
  return text.str();
}

// Every route and error path of the service, as raw requests.
std::vector<std::string> every_request(const std::vector<std::string>& ids,
                                       const std::vector<std::string>& grade_bodies) {
  const auto get = [](const std::string& target, const std::string& method = "GET") {
    return method + " " + target + " HTTP/1.1\r\nHost: x\r\n\r\n";
  };
  const auto post = [](const std::string& target, const std::string& body,
                       const std::string& type = "application/json") {
    return "POST " + target + " HTTP/1.1\r\nHost: x\r\nContent-Type: " + type +
           "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  };
  std::vector<std::string> requests = {
      get("/v1/problems"),
      get("/v1/problems", "HEAD"),
      get("/healthz"),
      get("/nowhere"),
      get("/v1/problems/no-such"),
      get("/v1/problems", "DELETE"),
      get("/v1/problems/..%2Fconsonant-anywhere.json"),
      "GARBAGE\r\n\r\n",
      "GET /healthz HTTP/1.1\r\nX-Big: " + std::string(20000, 'a') + "\r\n\r\n",
      post("/v1/problems/consonant-anywhere/grade", std::string(1024 * 1024 + 1, ' '))};
  for (const std::string& id : ids) {
    const std::string grade = "/v1/problems/" + id + "/grade";
    requests.push_back(get("/v1/problems/" + id));
    requests.push_back(get("/v1/problems/" + id, "HEAD"));
    requests.push_back(get("/v1/problems/" + id + "?reference=1"));
    requests.push_back(get(grade));
    requests.push_back(post(grade, "{}", "text/plain"));
    for (const std::string& body : grade_bodies) requests.push_back(post(grade, body));
  }
  return requests;
}

const std::vector<std::string> kGradeBodies = {
    // wrong answers of every shape, so that failures and traces are reported
    R"({"W_q": [[1, 1]], "W_k": [[0, 1]], "W_V": [[1, 0], [0, 1]], "max_failures": 100})",
    R"({"W_q": [[1, 1, 0]], "W_k": [[0, 0, 1]], "W_V": [[0, 1, 0], [0, 0, 1]], "max_failures": 100})",
    R"({"W_q": [[2, 2]], "W_k": [[3, 1]], "W_V": [[0, 2], [2, 0]], "max_failures": 100})",
    // every kind of body error
    R"({"W_q": [[1, 1]]})", R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0]], "x": 1})",
    R"({"W_q": [[1, 1]], "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1], [0, 0]]})",
    R"({"W_q": "reference", "W_k": [[0, 5]], "W_V": [[1, 0], [0, 1]]})", R"({"answer": [[0, 5]]})",
    "{nope", "[]", std::string(100, '['),
    R"({"W_q": [[1, 1]], "W_k": [[0, 5e9]], "W_V": [[1, 0], [0, 1]]})"};

struct CliRun {
  int exit_code;
  std::string out;
};

CliRun run_cli(const std::string& args) {
  const std::string command = std::string(HEADGRADER_CLI_BIN) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string out;
  char buffer[4096];
  while (const std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  const int status = pclose(pipe);
  return {WEXITSTATUS(status), out};
}

// Everything the server answers and logs for every request, and what the CLI prints for
// every submission, against the problems in `dir`.
std::vector<std::pair<std::string, std::string>> everything_said(const std::string& dir,
                                                                 bool include_gradings) {
  std::vector<std::pair<std::string, std::string>> said;  // (what, text)
  ServerProcess server(
      {"--port", "0", "--address", "127.0.0.1", "--threads", "2", "--problems", dir});
  const std::uint16_t port = server.wait_listening();
  if (port == 0) return said;
  for (const std::string& request : every_request(kIds, kGradeBodies)) {
    const bool grading =
        request.starts_with("POST") && request.find("application/json") != std::string::npos;
    const std::optional<HttpResponse> response = exchange_raw(port, request);
    const std::string what =
        request.substr(0, request.find("\r\n")) + " " + request.substr(request.rfind('\n') + 1, 80);
    if (!response) {
      ADD_FAILURE() << "no answer to " << what;
      continue;
    }
    if (grading && !include_gradings && response->result() == http::status::ok) {
      said.emplace_back(
          what + " (grading, key only)",
          response->body().find("\"reference\"") == std::string::npos ? "" : "\"reference\"");
      continue;
    }
    said.emplace_back(what, wire(*response));
  }
  server.signal(SIGTERM);
  server.wait();
  said.emplace_back("access log", server.stderr_text());

  const std::string submission = testing::private_temp_path("no-leak-submission.json");
  for (const std::string& id : kIds) {
    for (const std::string& body : kGradeBodies) {
      std::ofstream(submission) << body;
      for (const char* mode : {"", " --text"}) {
        const CliRun run =
            run_cli("grade --problem " + id + " --problems " + dir + mode + " " + submission);
        if (run.exit_code <= 1 && !include_gradings) continue;  // a grading
        said.emplace_back("cli grade " + id + mode + " " + body.substr(0, 60), run.out);
      }
    }
  }
  said.emplace_back("cli validate", run_cli("validate " + dir).out);
  said.emplace_back("cli unknown problem",
                    run_cli("grade --problem no-such --problems " + dir + " " + submission).out);
  std::remove(submission.c_str());
  return said;
}

TEST(NoLeak, BundledReferencesAppearInNoAnswerLogOrCliOutput) {
  std::set<std::string> secrets;
  for (const std::string& id : kIds) {
    for (const std::string& matrix :
         secret_matrices(read_json(kProblemsDir + "/" + id + ".json"))) {
      secrets.insert(matrix);
    }
  }
  ASSERT_TRUE(secrets.count("[[0,5]]"));  // consonant-anywhere's W_k
  const auto said = everything_said(kProblemsDir, /*include_gradings=*/false);
  ASSERT_GT(said.size(), 50u);
  for (const auto& [what, text] : said) {
    SCOPED_TRACE(what);
    EXPECT_EQ(text.find("\"reference\""), std::string::npos) << text.substr(0, 2000);
    for (const std::string& secret : secrets) {
      EXPECT_EQ(text.find(secret), std::string::npos) << secret << " in " << text.substr(0, 2000);
    }
  }
}

TEST(NoLeak, CanaryReferencesAppearNowhereNotEvenInGradingsAndTraces) {
  const fs::path dir = testing::private_temp_path("no-leak-canary");
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::set<std::string> canaries;
  for (const std::string& id : kIds) {
    Json problem = read_json(kProblemsDir + "/" + id + ".json");
    for (auto& [name, matrix] : problem["reference"].items()) {
      for (auto& row : matrix) {
        for (auto& entry : row) {
          if (entry.get<double>() == 0) continue;
          entry = entry.get<double>() * kCanary;
          canaries.insert(entry.dump());  // e.g. 5.0048828125
        }
      }
    }
    std::ofstream(dir / (id + ".json")) << problem.dump(2);
  }
  ASSERT_TRUE(canaries.count("5.0048828125")) << "the canary references";
  const auto said = everything_said(dir.string(), /*include_gradings=*/true);
  ASSERT_GT(said.size(), 50u);
  for (const auto& [what, text] : said) {
    SCOPED_TRACE(what);
    EXPECT_EQ(text.find("\"reference\""), std::string::npos) << text.substr(0, 2000);
    for (const std::string& canary : canaries) {
      EXPECT_EQ(text.find(canary), std::string::npos) << canary << " in " << text.substr(0, 2000);
    }
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace headgrader::server
