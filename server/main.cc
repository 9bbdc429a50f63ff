// headgrader-server: the grading service of API.md §5–§6. Loads the problems (refusing to
// start on any defect, each printed), then serves until SIGTERM or SIGINT.
#include <sys/resource.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string_view>
#include <variant>
#include <vector>

#include "headgrader/limits.h"
#include "headgrader/problem.h"
#include "options.h"
#include "server.h"
#include "submission_store.h"

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

// Each problem's file, hashed as it is on disk now (the set was just loaded from it).
std::map<std::string, std::string, std::less<>> problem_file_hashes(
    const headgrader::ProblemSet& problems, const std::filesystem::path& dir) {
  std::map<std::string, std::string, std::less<>> hashes;
  const bool folder = std::filesystem::is_directory(dir);
  for (const auto& problem : problems.problems()) {
    const auto file = folder ? dir / (problem->id + ".json") : dir;
    std::ifstream in(file, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    hashes[problem->id] = headgrader::server::sha256_hex(bytes.str());
  }
  return hashes;
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

  // The submission record (API.md §8): a store that cannot be opened stops the server here.
  server::RecordSettings records;
  std::unique_ptr<headgrader::store::SubmissionStore> store;
  if (options.store != "none") {
    auto opened = headgrader::store::open_store(options.store);
    if (!opened) {
      std::cerr << program << ": --store: " << opened.error().message << "; not starting\n";
      return 1;
    }
    store = std::move(opened).value();
    records.store = store.get();
    records.rate_limit = options.rate_limit;
    records.problem_sha256 = problem_file_hashes(problems, dir);
  }
  raise_descriptor_limit();
  const int status =
      server::serve(problems, options.address, options.port, server::thread_count(options.threads),
                    std::cout, std::cerr,
                    {options.max_connections, options.read_timeout, options.shutdown_grace},
                    std::move(records));
  if (store) {
    store->close();
    // For the benchmark (bench/store_bench.sh): how many gradings each transaction held.
    const auto counters = store->counters();
    std::cout << "store: " << counters.records << " records committed in " << counters.batches
              << " transactions" << std::endl;
  }
  return status;
}
