#include "solve_command.h"

#include <sys/stat.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "common/atomic_file.h"
#include "headgrader/limits.h"
#include "headgrader/solve.h"
#include "usage_error.h"

namespace headgrader::cli {
namespace {

// A new file's mode when --write finds none to keep (it always finds one: FILE was read).
constexpr mode_t kProblemFileMode = 0644;

constexpr const char* kSolveUsage =
    "usage: headgrader solve FILE [--n-q N] [--seconds S] [--write]\n";

bool read_whole(const std::string& path, std::string& text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream body;
  body << in.rdbuf();
  text = body.str();
  return !in.bad();
}

std::optional<int> whole_number(const std::string& text, int low, int high) {
  int n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n < low || n > high) {
    return std::nullopt;
  }
  return n;
}

}  // namespace

int solve_command(const std::vector<std::string>& args) {
  std::string path;
  SolveOptions options;
  bool write = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if ((args[i] == "--n-q" || args[i] == "--seconds") && i + 1 == args.size()) {
      return usage_error(args[i] + " needs a value", kSolveUsage);
    }
    if (args[i] == "--n-q") {
      const auto n = whole_number(args[++i], 1, limits::kSolveMaxNq);
      if (!n) {
        return usage_error("--n-q must be a whole number from 1 to " +
                               std::to_string(limits::kSolveMaxNq) + "; it is \"" + args[i] + "\"",
                           kSolveUsage);
      }
      options.n_q = *n;
    } else if (args[i] == "--seconds") {
      const auto s = whole_number(args[++i], 1, limits::kSolveMaxSeconds);
      if (!s) {
        return usage_error("--seconds must be a whole number from 1 to " +
                               std::to_string(limits::kSolveMaxSeconds) + "; it is \"" + args[i] +
                               "\"",
                           kSolveUsage);
      }
      options.seconds = *s;
    } else if (args[i] == "--write") {
      write = true;
    } else if (path.empty() && !args[i].starts_with("--")) {
      path = args[i];
    } else {
      return usage_error("unexpected argument \"" + args[i] + "\"", kSolveUsage);
    }
  }
  if (path.empty()) return usage_error("solve needs a problem file", kSolveUsage);
  std::string text;
  if (!read_whole(path, text)) {
    std::cerr << "cannot read " << path << ": " << std::strerror(errno) << "\n";
    return 2;
  }
  if (text.size() > limits::kMaxProblemFileBytes) {
    std::cerr << path << ": is " << text.size() << " bytes; a problem file may be at most "
              << limits::kMaxProblemFileBytes << "\n";
    return 2;
  }
  ProblemOrDefects loaded = load_problem_to_solve(text, path);
  if (auto* defects = std::get_if<std::vector<Defect>>(&loaded)) {
    for (const Defect& d : *defects) std::cerr << d.to_string() << "\n";
    return 2;
  }
  const Problem& problem = std::get<Problem>(loaded);
  const SolveResult result = solve_problem(problem, options);
  std::cout << solve_json(problem, result) << "\n";
  if (!result.found) return 1;
  if (write) {
    const std::optional<std::string> written = text_with_reference(text, problem, result.head);
    if (!written) {
      std::cerr << path
                << ": the head was not written: the file's text could not be read as "
                   "one JSON object\n";
      return 2;
    }
    if (auto failed = replace_file(path, *written, kProblemFileMode)) {
      std::cerr << path << ": the head was not written (" << failed->step
                << " failed: " << std::strerror(failed->error) << "); the file is as it was\n";
      return 2;
    }
  }
  return 0;
}

}  // namespace headgrader::cli
