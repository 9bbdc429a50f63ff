// headgrader-server: the grading service of API.md §5–§6. Loads the problems (refusing to
// start on any defect, each printed), then serves until SIGTERM or SIGINT.
#include <sys/resource.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <iostream>
#include <string_view>
#include <variant>
#include <vector>

#include "headgrader/limits.h"
#include "headgrader/problem.h"
#include "options.h"
#include "server.h"

namespace {

// Each connection is a descriptor; make room for the connection cap where the hard limit
// allows (the usual soft limit of 1024 is below it).
void raise_descriptor_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  const rlim_t wanted = headgrader::limits::kMaxConnections + 64;
  if (limit.rlim_cur >= wanted) return;
  limit.rlim_cur = std::min(wanted, limit.rlim_max);
  setrlimit(RLIMIT_NOFILE, &limit);
}

}  // namespace

int main(int argc, char** argv) {
  namespace server = headgrader::server;
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  const std::string_view program = argc > 0 ? argv[0] : "headgrader-server";

  const headgrader::Result<server::ServerOptions> parsed = server::parse_options(args);
  if (!parsed) {
    std::cerr << program << ": " << parsed.error().message << '\n';
    return 2;
  }
  const server::ServerOptions& options = parsed.value();
  if (options.help) {
    std::cout << server::usage(program);
    return 0;
  }
  if (options.healthcheck) return server::healthcheck(options.address, options.port, std::cerr);

  const auto dir = options.problems.empty() ? server::default_problems_dir() : options.problems;
  auto loaded = headgrader::ProblemSet::load(dir);
  if (auto* defects = std::get_if<std::vector<headgrader::Defect>>(&loaded)) {
    for (const headgrader::Defect& defect : *defects) std::cerr << defect.to_string() << '\n';
    std::cerr << program << ": " << dir.string() << ": " << defects->size()
              << (defects->size() == 1 ? " defect" : " defects") << "; not starting\n";
    return 1;
  }
  const auto& problems = std::get<headgrader::ProblemSet>(loaded);
  std::unique_ptr<server::LtiService> lti;
  std::filesystem::path lti_file = options.lti;
  if (const char* env = std::getenv("HEADGRADER_LTI"); lti_file.empty() && env && *env) {
    lti_file = env;
  }
  if (!lti_file.empty()) {
    auto opened = server::LtiService::open(
        {lti_file, options.lti_allow_http, options.lti_keyset_refetch, options.lti_first_backoff},
        problems, server::stderr_line);
    if (!opened) {
      std::cerr << program << ": --lti: " << opened.error().message << '\n';
      return 1;
    }
    lti = std::move(opened).value();
  }
  raise_descriptor_limit();
  return server::serve(problems, options.address, options.port,
                       server::thread_count(options.threads), std::cout, std::cerr,
                       {options.max_connections, options.read_timeout, options.shutdown_grace},
                       lti.get());
}
