// The problems the server serves (API.md §2, §9), as one immutable snapshot that can be
// replaced while serving: the folder loaded again (SIGHUP, a change on disk), a problem
// written by PUT or removed by DELETE. A request takes the snapshot once and keeps it, so a
// grading finishes on the set it started with; an invalid folder keeps the old snapshot and
// its defects are kept for GET /v1/problems/status.
// Thread-safety: every member may be called from any thread; snapshots are immutable.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "headgrader/pool.h"
#include "headgrader/problem.h"
#include "headgrader/result.h"
#include "variant_cache.h"

namespace headgrader::server {

class CatalogSnapshot {
 public:
  struct Entry {
    std::shared_ptr<const Problem> problem;
    std::string json;    // GET /v1/problems/{id}: problem_to_json, without `reference`
    std::string sha256;  // of the file's bytes, as records name it (§8); empty when unknown
  };

  // `digests[i]`, when given, is the SHA-256 of the file problems.problems()[i] came from.
  CatalogSnapshot(ProblemSet problems, const std::vector<std::string>& digests,
                  std::chrono::system_clock::time_point loaded_at);

  const ProblemSet& problems() const { return problems_; }
  const Entry* find(std::string_view id) const;  // nullptr when unknown
  const std::string& list_json() const { return list_json_; }
  const std::string& ids_text() const { return ids_text_; }
  std::chrono::system_clock::time_point loaded_at() const { return loaded_at_; }

  // The problem of `entry` as `student` sees it (API.md §15): their variant, drawn with
  // `secret`; the problem as written without a secret, without a student, or when the file asks
  // for no `variants`. Errors: as VariantCache::relabeled.
  Result<ProblemView> for_student(const Entry& entry, std::string_view secret,
                                  const std::optional<std::string>& student) const;
  // A pool of the folder (API.md §15), or nullptr.
  const ProblemPool* find_pool(std::string_view id) const { return problems_.find_pool(id); }
  // The member of `pool` given to `student` (headgrader/pool.h), drawn with `secret`.
  const Entry& member_of(const ProblemPool& pool, std::string_view secret,
                         std::string_view student) const;
  // GET /v1/problems/{id} of a pool without a student: {"id", "title", "pool": [ids]}.
  static std::string pool_json(const ProblemPool& pool);

  // The variant a record names (its `variant`; "" the problem as written), rebuilt from the
  // id alone. Refused (wrong_shape, field "variant") when the id no longer fits the problem:
  // its `variants` or its sizes changed since.
  Result<ProblemView> of_variant(const Entry& entry, std::string_view variant) const;

 private:
  ProblemSet problems_;
  std::vector<Entry> entries_;  // ascending id
  std::string list_json_;       // GET /v1/problems
  std::string ids_text_;        // "a, b, c"
  std::chrono::system_clock::time_point loaded_at_;
  // The variants proved from this snapshot's problems: a memo, so the snapshot stays
  // immutable in what it answers.
  std::unique_ptr<const VariantCache> variants_ = std::make_unique<const VariantCache>();
};

// What PUT /v1/problems/{id} did.
struct PutOutcome {
  bool created = false;         // 201 (new) or 200 (replaced), when defects is empty
  std::vector<Defect> defects;  // 422 invalid_problem when not empty; nothing written
};

class ProblemCatalog {
 public:
  // Loads `path` (a folder of *.json, or one file); every defect when it is invalid.
  static std::variant<std::unique_ptr<ProblemCatalog>, std::vector<Defect>> open(
      const std::filesystem::path& path);
  // A fixed set (Part 1 routers in tests): no folder, so reload() keeps it and PUT/DELETE
  // are refused.
  explicit ProblemCatalog(ProblemSet problems);

  std::shared_ptr<const CatalogSnapshot> current() const;

  // Loads the whole folder again. Valid: it replaces the snapshot and clears the defects.
  // Invalid: the old snapshot goes on serving; the defects are kept and returned.
  std::vector<Defect> reload();

  // folder_fingerprint() of the folder as it was last loaded, tried or written by PUT/DELETE.
  std::string fingerprint() const;

  // The defects of the last reload that failed since the last one that succeeded.
  std::vector<Defect> defects() const;

  // Validates `text` as the file `{id}.json`; if valid, writes it into the folder (a
  // temporary file, fsync, atomic rename) and serves it at once. Errors (code
  // problems_read_only or internal_error): the file could not be written.
  Result<PutOutcome> put(std::string_view id, std::string_view text);
  // A pool file's text (API.md §15) read as the file `file_name` and checked against the
  // problems served now: every defect of load_pool_text, a member that is not served, an id
  // that is a problem's.
  std::variant<ProblemPool, std::vector<Defect>> load_pool(std::string_view text,
                                                           const std::string& file_name) const;
  // Removes `{id}.json` and stops serving it. False when no such problem or pool is served;
  // problem_in_pool (409) for a problem a pool names.
  Result<bool> remove(std::string_view id);

  // FOLDER/ID.json, the one file PUT and DELETE may write or remove; not_found for anything
  // but a problem id (is_problem_id), so no id can reach outside the folder.
  Result<std::filesystem::path> file_of(std::string_view id) const;

  const std::filesystem::path& path() const { return path_; }
  // Whether the problems come from a folder that PUT and DELETE may change.
  bool is_folder() const { return is_folder_; }

 private:
  ProblemCatalog(std::filesystem::path path, bool is_folder,
                 std::shared_ptr<const CatalogSnapshot> snapshot);
  void replace(std::shared_ptr<const CatalogSnapshot> snapshot);
  void note_written();  // after PUT/DELETE: the folder as written is the one served
  // The current problems and pools with `id` replaced by `problem` or `pool` loaded from
  // `source` (or removed, when both are null).
  std::shared_ptr<const CatalogSnapshot> with(std::string_view id,
                                              std::shared_ptr<const Problem> problem,
                                              std::shared_ptr<const ProblemPool> pool,
                                              std::string_view source) const;
  Result<PutOutcome> put_pool(std::string_view id, const std::filesystem::path& file,
                              std::string_view text);

  const std::filesystem::path path_;
  const bool is_folder_;
  mutable std::mutex mutex_;  // guards snapshot_, defects_; held only to copy or swap
  std::shared_ptr<const CatalogSnapshot> snapshot_;
  std::vector<Defect> defects_;
  std::string fingerprint_;
  std::mutex write_mutex_;  // one PUT, DELETE or reload at a time
};

// What a folder of problems looks like: every *.json (not hidden) with its size and
// modification time, one line each, in name order. Two equal fingerprints: nothing to load.
std::string folder_fingerprint(const std::filesystem::path& folder);

}  // namespace headgrader::server
