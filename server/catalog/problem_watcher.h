// Loads the problems folder again when it changes (API.md §9): inotify wakes it at once, and
// a look at the folder every limits::kReloadPollInterval catches what inotify cannot see
// (NFS, some container mounts). A change is a folder whose fingerprint (folder_fingerprint)
// differs from the one the catalog last loaded or tried to load; after an event the watcher
// waits limits::kReloadSettle for the rest of an editor's save, so a change is served within
// 2 s, and a folder left broken is not loaded again until it changes again.
// Thread-safety: the watcher runs on a thread of its own; construct and destroy on one thread.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>

#include "problem_catalog.h"

namespace headgrader::server {

class ProblemWatcher {
 public:
  // Starts watching the folder of `catalog`, which must outlive the watcher; `reload` runs
  // on the watcher's thread after each change (and loads the catalog again).
  ProblemWatcher(const ProblemCatalog& catalog, std::function<void()> reload);
  ~ProblemWatcher();  // stops the thread
  ProblemWatcher(const ProblemWatcher&) = delete;
  ProblemWatcher& operator=(const ProblemWatcher&) = delete;

 private:
  void run();

  const ProblemCatalog& catalog_;
  const std::function<void()> reload_;
  int inotify_fd_ = -1;
  int stop_fd_ = -1;  // an eventfd written by the destructor
  std::thread thread_;
};

}  // namespace headgrader::server
