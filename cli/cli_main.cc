// headgrader: the command-line grader for instructors and offline grading.
//   headgrader validate PATH…                      every defect of each problem file or folder
//   headgrader grade --problem ID [--problems DIR] [--text] SUBMISSION.json
//   headgrader backup --store sqlite:PATH --out FILE  (cli/backup_command.cc)
//   headgrader gradescope|prairielearn --problem ID …  (cli/gradescope.cc, cli/prairielearn.cc)
// `grade` prints exactly the JSON the server answers (or, with --text, a readable form).
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "headgrader/diagnosis.h"
#include "headgrader/grade.h"
#include "headgrader/grade_request.h"
#include "headgrader/limits.h"
#include "headgrader/problem.h"
#include "headgrader/problem_warnings.h"
#include "headgrader/report.h"
#include "headgrader/submission.h"
#include "platform_command.h"
#include "solve_command.h"
#if HEADGRADER_CLI_KEYS
#include "backup_command.h"
#include "keys_command.h"
#include "rsa_key.h"
#endif

namespace {

// How the commands go, with the key size that keygen makes.
std::string usage_text() {
  std::string text =
      "usage:\n"
      "  headgrader validate [--lint] PATH...\n"
      "      Checks problem files (or folders of them); prints every defect and exits 1 if\n"
      "      any, else prints one line per valid problem, with its warnings (an empty\n"
      "      title, a submission of zeros that passes, ...) under it, and exits 0.\n"
      "      --lint also applies each named mistake to the reference (a warning for each\n"
      "      that passes), prints a table of the mistakes the tests catch (each with the\n"
      "      shortest string that fails it) and the reference's margin.\n"
      "  headgrader grade --problem ID [--problems DIR] [--text] SUBMISSION.json\n"
      "      Grades a submission (a file, or - for standard input) and prints the JSON the\n"
      "      server answers; --text prints it for a person instead. DIR defaults to\n"
      "      the bundled problems. Exit 0: passed, 1: failed, 2: the\n"
      "      submission or the command is wrong.\n";
#if HEADGRADER_CLI_KEYS
  text +=
      "  headgrader keys add --keys FILE --name NAME --role lms|staff\n"
      "  headgrader keys list --keys FILE\n"
      "  headgrader keys remove --keys FILE --name NAME\n"
      "      Manage the server's keys file (API.md §7): add prints the new key once; the\n"
      "      file keeps only its SHA-256 (mode 0600).\n"
      "  headgrader lti keygen --out FILE\n"
      "      Makes the LTI tool's RSA-" +
      std::to_string(headgrader::limits::kLtiGeneratedRsaBits) +
      " private key (PEM, mode 0600; an existing FILE is\n"
      "      never overwritten) for the --lti configuration's private_key.\n"
      "  headgrader backup --store sqlite:PATH --out FILE\n"
      "      Copies a SQLite store into FILE (never overwritten) while servers write to it,\n"
      "      checks the copy and syncs it. Exit 0: written, 1: it could not be, 2: the\n"
      "      command is wrong.\n";
#endif
  text +=
      "  headgrader solve FILE [--n-q N] [--seconds S] [--write]\n"
      "      Searches for matrices that pass every tested string of the problem FILE (its\n"
      "      reference ignored) and prints them with their margin, or the best head found\n"
      "      and every obstacle proved; --write puts a head found into FILE as reference.\n"
      "      S defaults to " +
      std::to_string(headgrader::limits::kSolveDefaultSeconds) +
      ". Exit 0: found, 1: not found, 2: the command or the file is wrong.\n";
  text +=
      "  headgrader gradescope --problem ID [--problems DIR] [--submission DIR] [--results DIR]\n"
      "                        [--points N] [--variant-secret FILE]\n"
      "                        [--metadata FILE | --student S]\n"
      "      Grades the first *.json of DIR (default /autograder/submission) and writes\n"
      "      Gradescope's results.json into --results (default /autograder/results). With a\n"
      "      secret (or HEADGRADER_VARIANT_SECRET_FILE), on the student's variant: the student\n"
      "      is users[0].email of --metadata (default /autograder/submission_metadata.json).\n"
      "  headgrader prairielearn --problem ID [--problems DIR] [--submission DIR] [--results DIR]\n"
      "                          [--variant-secret FILE] [--data FILE | --student S]\n"
      "      The same for PrairieLearn's external grader (/grade/student, /grade/results); the\n"
      "      student is \"prairielearn:\" and variant_seed of --data (default\n"
      "      /grade/data/data.json).\n";
  return text;
}

const std::string kUsage = usage_text();

// The command line is wrong: what is wrong, then how it goes.
int usage_error(const std::string& what) {
  std::cerr << what << "\n" << kUsage;
  return 2;
}

int validate(std::vector<std::string> paths) {
  const auto lint_flag = std::find(paths.begin(), paths.end(), "--lint");
  const bool lint = lint_flag != paths.end();
  if (lint) paths.erase(lint_flag);
  if (paths.empty()) return usage_error("validate needs a problem file or folder");
  bool all_valid = true;
  for (const auto& path : paths) {
    auto loaded = headgrader::ProblemSet::load(path);
    if (auto* defects = std::get_if<std::vector<headgrader::Defect>>(&loaded)) {
      all_valid = false;
      for (const auto& d : *defects) std::cout << d.to_string() << "\n";
      continue;
    }
    for (const auto& p : std::get<headgrader::ProblemSet>(loaded).problems()) {
      std::cout << p->id << ": valid (" << p->tested_total() << " tested strings)\n";
      auto warnings = headgrader::problem_warnings(*p);
      std::optional<headgrader::LintReport> linted;
      if (lint) {
        linted = headgrader::lint_problem(*p);
        warnings.insert(warnings.end(), linted->warnings.begin(), linted->warnings.end());
      }
      for (const auto& w : warnings) {
        std::cout << p->id << ": warning: " << w.field << ": " << w.message << "\n";
      }
      if (linted) {
        std::cout << p->id << ": mistakes caught by the tests, each made on the reference:\n"
                  << headgrader::mistakes_caught_text(linted->mistakes_caught);
        std::cout << p->id
                  << ": reference margin: " << headgrader::margin_text(linted->reference_margin)
                  << "\n";
      }
    }
  }
  return all_valid ? 0 : 1;
}

int grade(const std::vector<std::string>& args) {
  std::string problem_id, problems_dir = headgrader::default_problems_dir().string(),
                          submission_path;
  bool text = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--problem" && i + 1 < args.size()) {
      problem_id = args[++i];
    } else if (args[i] == "--problems" && i + 1 < args.size()) {
      problems_dir = args[++i];
    } else if (args[i] == "--text") {
      text = true;
    } else if (submission_path.empty() && (args[i] == "-" || args[i].rfind("--", 0) != 0)) {
      submission_path = args[i];
    } else if ((args[i] == "--problem" || args[i] == "--problems") && i + 1 == args.size()) {
      return usage_error(args[i] + " needs a value");
    } else {
      return usage_error("unexpected argument \"" + args[i] + "\"");
    }
  }
  if (problem_id.empty()) return usage_error("grade needs --problem ID");
  if (submission_path.empty()) {
    return usage_error("grade needs a submission file (or - for standard input)");
  }
  auto loaded = headgrader::ProblemSet::load(problems_dir);
  if (auto* defects = std::get_if<std::vector<headgrader::Defect>>(&loaded)) {
    for (const auto& d : *defects) std::cerr << d.to_string() << "\n";
    return 2;
  }
  const auto& set = std::get<headgrader::ProblemSet>(loaded);
  const headgrader::Problem* problem = set.find(problem_id);
  if (!problem) {
    std::cout << headgrader::error_to_json({headgrader::ErrorCode::kNotFound,
                                            "no problem has the id \"" + problem_id +
                                                "\"; the problems are " + set.ids_text(),
                                            ""})
                     .dump(-1, ' ', false, headgrader::Json::error_handler_t::replace)
              << "\n";
    return 2;
  }
  std::stringstream body;
  if (submission_path == "-") {
    body << std::cin.rdbuf();
  } else {
    std::ifstream in(submission_path, std::ios::binary);
    if (!in) {
      std::cerr << "cannot read " << submission_path << ": " << std::strerror(errno) << "\n";
      return 2;
    }
    body << in.rdbuf();
  }
  auto submission = headgrader::parse_submission(*problem, body.str());
  if (!submission) {
    std::cout << headgrader::error_to_json(submission.error())
                     .dump(-1, ' ', false, headgrader::Json::error_handler_t::replace)
              << "\n";
    return 2;
  }
  const headgrader::Graded graded = headgrader::grade_submission(*problem, *submission);
  if (text) {
    std::cout << headgrader::report_to_text(*problem, graded.report);
  } else {
    std::cout << graded.answer << "\n";
  }
  return graded.report.passed ? 0 : 1;
}

#if HEADGRADER_CLI_KEYS
int lti(const std::vector<std::string>& args) {
  if (args.empty() || args[0] != "keygen") return usage_error("lti needs the command keygen");
  std::string out;
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--out" && i + 1 < args.size()) {
      out = args[++i];
    } else {
      return usage_error("unexpected argument \"" + args[i] + "\"");
    }
  }
  if (out.empty()) return usage_error("lti keygen needs --out FILE");
  auto key = headgrader::lti::generate_private_key(out);
  if (!key) {
    std::cerr << key.error().message << "\n";
    return 1;
  }
  std::cout << "wrote " << out << " (RSA-" << key->bits()
            << ", mode 0600); name it in the --lti file's private_key, with a kid of your "
               "choice\n";
  return 0;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kUsage;
    return args.empty() ? 2 : 0;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (std::find(rest.begin(), rest.end(), "--help") != rest.end() ||
      std::find(rest.begin(), rest.end(), "-h") != rest.end()) {
    std::cout << kUsage;
    return 0;
  }
  if (args[0] == "validate") return validate(rest);
  if (args[0] == "grade") return grade(rest);
  if (args[0] == "solve") return headgrader::cli::solve_command(rest);
#if HEADGRADER_CLI_KEYS
  if (args[0] == "keys") return headgrader::cli::keys_command(rest);
  if (args[0] == "lti") return lti(rest);
  if (args[0] == "backup") return headgrader::cli::backup_command(rest);
#endif
  if (args[0] == "gradescope") return headgrader::cli::gradescope_command(rest);
  if (args[0] == "prairielearn") return headgrader::cli::prairielearn_command(rest);
  std::cerr << "unknown command \"" << args[0] << "\"\n" << kUsage;
  return 2;
}
