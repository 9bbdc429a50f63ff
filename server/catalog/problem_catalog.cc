#include "problem_catalog.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>

#include "common/atomic_file.h"
#include "common/secrets.h"
#include "headgrader/limits.h"
#include "headgrader/pool.h"
#include "headgrader/report.h"

namespace headgrader::server {
namespace {

// Writes `text` to `path` so that a reader (and a crash) sees the old file or the new one,
// never a part (replace_file).
Result<bool> write_atomically(const std::filesystem::path& path, std::string_view text) {
  const auto failed = replace_file(path, text, 0644);
  if (!failed) return true;
  const int error = failed->error;
  const bool read_only = error == EROFS || error == EACCES || error == EPERM;
  return Error{read_only ? ErrorCode::kProblemsReadOnly : ErrorCode::kInternalError,
               "the problem file could not be " + failed->step +
                   " in the problems folder: " + std::strerror(error),
               ""};
}

// PUT and DELETE where --problems is one file: nothing can be written beside it.
Error not_a_folder(std::string_view doing) {
  return Error{ErrorCode::kProblemsReadOnly,
               "the server serves one problem file, not a folder, so it cannot " +
                   std::string(doing) + "; start it with --problems FOLDER",
               ""};
}

std::vector<std::string> digests_of(const std::vector<std::string>& sources) {
  std::vector<std::string> digests;
  digests.reserve(sources.size());
  for (const std::string& source : sources) digests.push_back(sha256_hex(source));
  return digests;
}

}  // namespace

std::string folder_fingerprint(const std::filesystem::path& folder) {
  namespace fs = std::filesystem;
  std::vector<std::string> lines;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.ends_with(".json") || name.starts_with('.')) continue;
    std::error_code entry_ec;
    const auto size = fs::file_size(it->path(), entry_ec);
    const auto time = fs::last_write_time(it->path(), entry_ec);
    lines.push_back(name + '\t' + std::to_string(entry_ec ? 0 : size) + '\t' +
                    std::to_string(entry_ec ? 0 : time.time_since_epoch().count()));
  }
  if (ec) return "unlistable: " + ec.message();
  std::sort(lines.begin(), lines.end());
  std::string text;
  for (const std::string& line : lines) text += line + '\n';
  return text;
}

CatalogSnapshot::CatalogSnapshot(ProblemSet problems, const std::vector<std::string>& digests,
                                 std::chrono::system_clock::time_point loaded_at)
    : problems_(std::move(problems)), ids_text_(problems_.ids_text()), loaded_at_(loaded_at) {
  Json list = Json::array();
  std::size_t i = 0;
  for (const auto& problem : problems_.problems()) {
    list.push_back(problem_summary_json(*problem));
    entries_.push_back({problem, problem_to_json(*problem).dump(),
                        i < digests.size() ? digests[i] : std::string()});
    ++i;
  }
  // A pool is listed as a problem (API.md §15): its id, its title, the matrices its members
  // ask for (each name once, in the members' order) and its members.
  for (const auto& pool : problems_.pools()) {
    Json submit = Json::array();
    for (const std::string& member : pool->members) {
      const Entry* entry = find(member);  // one, when the set was loaded or checked
      if (entry == nullptr) continue;
      for (const std::string& name : entry->problem->submit) {
        if (std::find(submit.begin(), submit.end(), name) == submit.end()) submit.push_back(name);
      }
    }
    list.push_back({{"id", pool->id},
                    {"title", pool->title},
                    {"submit", std::move(submit)},
                    {"pool", pool->members}});
  }
  std::sort(list.begin(), list.end(), [](const Json& a, const Json& b) {
    return a["id"].get<std::string>() < b["id"].get<std::string>();
  });
  list_json_ = Json{{"problems", std::move(list)}}.dump();
}

const CatalogSnapshot::Entry& CatalogSnapshot::member_of(const ProblemPool& pool,
                                                         std::string_view secret,
                                                         std::string_view student) const {
  // The set was checked on loading: every member is a problem of it.
  return *find(pool.members[pool_member(secret, pool, student)]);
}

std::string CatalogSnapshot::pool_json(const ProblemPool& pool) {
  return Json{{"id", pool.id}, {"title", pool.title}, {"pool", pool.members}}.dump();
}

const CatalogSnapshot::Entry* CatalogSnapshot::find(std::string_view id) const {
  const auto it =
      std::lower_bound(entries_.begin(), entries_.end(), id,
                       [](const Entry& e, std::string_view key) { return e.problem->id < key; });
  return it != entries_.end() && it->problem->id == id ? &*it : nullptr;
}

Result<ProblemView> CatalogSnapshot::for_student(const Entry& entry, std::string_view secret,
                                                 const std::optional<std::string>& student) const {
  // derive_relabeling draws nothing without a secret or `variants`: the problem as written.
  if (!student || secret.empty() || !entry.problem->variants.any()) {
    return ProblemView{entry.problem, entry.json};
  }
  return variants_->of_student(entry.problem, secret, *student);
}

Result<ProblemView> CatalogSnapshot::of_variant(const Entry& entry,
                                                std::string_view variant) const {
  if (variant.empty()) return ProblemView{entry.problem, entry.json};
  Result<Relabeling> relabeling = parse_variant_id(variant, *entry.problem);
  if (!relabeling) return relabeling.error();
  if (relabeling->is_identity()) return ProblemView{entry.problem, entry.json};
  return variants_->relabeled(entry.problem, *relabeling);
}

std::variant<std::unique_ptr<ProblemCatalog>, std::vector<Defect>> ProblemCatalog::open(
    const std::filesystem::path& path) {
  // Before loading: a change made while loading then shows as a difference (and is loaded).
  std::string fingerprint = folder_fingerprint(path);
  std::vector<std::string> sources;
  auto loaded = ProblemSet::load(path, &sources);
  if (auto* defects = std::get_if<std::vector<Defect>>(&loaded)) return std::move(*defects);
  std::error_code ec;
  const bool folder = std::filesystem::is_directory(path, ec);
  auto snapshot = std::make_shared<const CatalogSnapshot>(std::get<ProblemSet>(std::move(loaded)),
                                                          digests_of(sources),
                                                          std::chrono::system_clock::now());
  std::unique_ptr<ProblemCatalog> catalog(new ProblemCatalog(path, folder, std::move(snapshot)));
  catalog->fingerprint_ = std::move(fingerprint);
  return catalog;
}

ProblemCatalog::ProblemCatalog(ProblemSet problems)
    : ProblemCatalog(
          {}, false,
          std::make_shared<const CatalogSnapshot>(std::move(problems), std::vector<std::string>{},
                                                  std::chrono::system_clock::now())) {}

ProblemCatalog::ProblemCatalog(std::filesystem::path path, bool is_folder,
                               std::shared_ptr<const CatalogSnapshot> snapshot)
    : path_(std::move(path)), is_folder_(is_folder), snapshot_(std::move(snapshot)) {}

std::shared_ptr<const CatalogSnapshot> ProblemCatalog::current() const {
  std::lock_guard lock(mutex_);
  return snapshot_;
}

void ProblemCatalog::replace(std::shared_ptr<const CatalogSnapshot> snapshot) {
  std::shared_ptr<const CatalogSnapshot> old;
  std::lock_guard lock(mutex_);
  old = std::move(snapshot_);  // freed after the lock, by the last request that holds it
  snapshot_ = std::move(snapshot);
  defects_.clear();
}

std::vector<Defect> ProblemCatalog::reload() {
  if (path_.empty()) return {};
  std::lock_guard write_lock(write_mutex_);
  std::string fingerprint = folder_fingerprint(path_);
  {
    std::lock_guard lock(mutex_);
    fingerprint_ = std::move(fingerprint);
  }
  std::vector<std::string> sources;
  auto loaded = ProblemSet::load(path_, &sources);
  if (auto* defects = std::get_if<std::vector<Defect>>(&loaded)) {
    std::lock_guard lock(mutex_);
    defects_ = *defects;
    return *defects;
  }
  replace(std::make_shared<const CatalogSnapshot>(std::get<ProblemSet>(std::move(loaded)),
                                                  digests_of(sources),
                                                  std::chrono::system_clock::now()));
  return {};
}

std::string ProblemCatalog::fingerprint() const {
  std::lock_guard lock(mutex_);
  return fingerprint_;
}

void ProblemCatalog::note_written() {
  std::string fingerprint = folder_fingerprint(path_);
  std::lock_guard lock(mutex_);
  fingerprint_ = std::move(fingerprint);
}

std::vector<Defect> ProblemCatalog::defects() const {
  std::lock_guard lock(mutex_);
  return defects_;
}

std::shared_ptr<const CatalogSnapshot> ProblemCatalog::with(std::string_view id,
                                                            std::shared_ptr<const Problem> problem,
                                                            std::shared_ptr<const ProblemPool> pool,
                                                            std::string_view source) const {
  const std::shared_ptr<const CatalogSnapshot> now = current();
  std::vector<std::shared_ptr<const Problem>> problems;
  for (const auto& kept : now->problems().problems()) {
    if (kept->id != id) problems.push_back(kept);
  }
  if (problem) problems.push_back(std::move(problem));
  std::vector<std::shared_ptr<const ProblemPool>> pools;
  for (const auto& kept : now->problems().pools()) {
    if (kept->id != id) pools.push_back(kept);
  }
  if (pool) pools.push_back(std::move(pool));
  ProblemSet set = ProblemSet::of(std::move(problems), std::move(pools));
  // The new problem's digest from its text, the others' as they were.
  std::vector<std::string> digests;
  for (const auto& p : set.problems()) {
    const CatalogSnapshot::Entry* entry = now->find(p->id);
    digests.push_back(p->id == id ? sha256_hex(source)
                                  : (entry != nullptr ? entry->sha256 : std::string()));
  }
  return std::make_shared<const CatalogSnapshot>(std::move(set), digests,
                                                 std::chrono::system_clock::now());
}

Result<std::filesystem::path> ProblemCatalog::file_of(std::string_view id) const {
  if (!is_problem_id(id)) {
    return Error{ErrorCode::kNotFound,
                 "there is no problem with this id: an id is 1 to " +
                     std::to_string(limits::kMaxProblemIdBytes) +
                     " lowercase letters, digits and \"-\"",
                 ""};
  }
  return path_ / (std::string(id) + ".json");
}

Result<PutOutcome> ProblemCatalog::put(std::string_view id, std::string_view text) {
  PutOutcome outcome;
  Result<std::filesystem::path> file = file_of(id);
  if (!file) return file.error();
  const std::string file_name = file->filename().string();
  if (is_pool_text(text)) return put_pool(id, *file, text);
  ProblemOrDefects loaded = load_problem_text(text, file_name);
  if (auto* defects = std::get_if<std::vector<Defect>>(&loaded)) {
    outcome.defects = std::move(*defects);
    return outcome;
  }
  if (!is_folder_) {
    return not_a_folder("add or replace problems");
  }
  std::lock_guard write_lock(write_mutex_);
  const std::shared_ptr<const CatalogSnapshot> now = current();
  outcome.created = now->find(id) == nullptr && now->problems().find_pool(id) == nullptr;
  Result<bool> written = write_atomically(*file, text);
  if (!written) return written.error();
  replace(with(id, std::make_shared<const Problem>(std::get<Problem>(std::move(loaded))), nullptr,
               text));
  note_written();
  return outcome;
}

std::variant<ProblemPool, std::vector<Defect>> ProblemCatalog::load_pool(
    std::string_view text, const std::string& file_name) const {
  auto loaded = load_pool_text(text, file_name);
  if (std::holds_alternative<std::vector<Defect>>(loaded)) return loaded;
  const std::shared_ptr<const CatalogSnapshot> now = current();
  const ProblemPool& pool = std::get<ProblemPool>(loaded);
  const std::string file = file_name.empty() ? pool.id + ".json" : file_name;
  std::vector<Defect> defects;
  for (std::size_t i = 0; i < pool.members.size(); ++i) {
    if (now->find(pool.members[i]) == nullptr) {
      defects.push_back({file, "pool[" + std::to_string(i) + "]",
                         "names \"" + pool.members[i] +
                             "\", which is not a problem served; the problems are " +
                             now->ids_text()});
    }
  }
  if (now->find(pool.id) != nullptr) {
    defects.push_back(
        {file, "id", "\"" + pool.id + "\" is a problem's id; a pool needs one of its own"});
  }
  if (!defects.empty()) return defects;
  return loaded;
}

// A pool (API.md §15) is checked against the problems served now: each member must be one.
Result<PutOutcome> ProblemCatalog::put_pool(std::string_view id, const std::filesystem::path& file,
                                            std::string_view text) {
  PutOutcome outcome;
  std::lock_guard write_lock(write_mutex_);
  auto loaded = load_pool(text, file.filename().string());
  if (auto* defects = std::get_if<std::vector<Defect>>(&loaded)) {
    outcome.defects = std::move(*defects);
    return outcome;
  }
  if (!is_folder_) {
    return not_a_folder("add pools");
  }
  const std::shared_ptr<const CatalogSnapshot> now = current();
  outcome.created = now->problems().find_pool(id) == nullptr;
  Result<bool> written = write_atomically(file, text);
  if (!written) return written.error();
  replace(
      with(id, nullptr, std::make_shared<const ProblemPool>(std::get<ProblemPool>(loaded)), text));
  note_written();
  return outcome;
}

Result<bool> ProblemCatalog::remove(std::string_view id) {
  if (!is_folder_) {
    return not_a_folder("remove problems");
  }
  Result<std::filesystem::path> file = file_of(id);
  if (!file) return file.error();
  std::lock_guard write_lock(write_mutex_);
  const std::shared_ptr<const CatalogSnapshot> now = current();
  if (now->find(id) == nullptr && now->problems().find_pool(id) == nullptr) return false;
  // A pool's member goes only after the pool no longer names it: else the folder would not
  // load again.
  for (const auto& pool : now->problems().pools()) {
    if (std::find(pool->members.begin(), pool->members.end(), id) != pool->members.end()) {
      return Error{ErrorCode::kProblemInPool,
                   "the pool \"" + pool->id + "\" names this problem; take it out of the pool " +
                       "first (PUT the pool without it), then remove it",
                   ""};
    }
  }
  if (::unlink(file->c_str()) != 0 && errno != ENOENT) {
    const int error = errno;
    return Error{error == EROFS || error == EACCES || error == EPERM ? ErrorCode::kProblemsReadOnly
                                                                     : ErrorCode::kInternalError,
                 std::string("the problem file could not be removed from the problems folder: ") +
                     std::strerror(error),
                 ""};
  }
  replace(with(id, nullptr, nullptr, {}));
  note_written();
  return true;
}

}  // namespace headgrader::server
