// A consistent copy of a SQLite store taken while servers keep writing to it (API.md §17,
// `headgrader backup`): SQLite's online backup API, page by page, inside one read snapshot of
// the source, into a file that did not exist before, checked and synced before it is reported.
// Thread-safety: a call uses connections of its own; calls may run at once on different outputs.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

#include "common/result.h"

namespace headgrader::store {

struct BackupSummary {
  std::int64_t pages = 0;  // pages of the copy
  std::int64_t bytes = 0;  // its size on disk
  // Records in the copy's submissions table; none when the file is not a store (no such table).
  std::optional<std::int64_t> records;
  int busy_waits = 0;  // steps that found the source locked and waited
};

// Copies the SQLite database `source` into `out`. `out` is created exclusively (O_EXCL): an
// existing file, even empty, is never overwritten. The copy is the source as of one instant
// (one read transaction): gradings committed after it began are not in it, and none is half in
// it. Writers are never blocked (the store's WAL lets them commit past a reader); the source's
// WAL cannot be checkpointed past that instant until the copy ends, so it grows meanwhile.
// Success: the copy passed `PRAGMA integrity_check`, and it and its folder are fsynced.
// Errors (store_unavailable, field "store" or "out"): the source is missing or not a database;
// `out` exists, or its folder is missing or not writable; a step failed; the copy's check
// failed. On any error after `out` was created, the partial copy is removed; a source is never
// changed.
Result<BackupSummary> backup_sqlite(const std::filesystem::path& source,
                                    const std::filesystem::path& out);

}  // namespace headgrader::store
