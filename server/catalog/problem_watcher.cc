#include "problem_watcher.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <system_error>

#include "headgrader/limits.h"

namespace headgrader::server {

ProblemWatcher::ProblemWatcher(const ProblemCatalog& catalog, std::function<void()> reload)
    : catalog_(catalog), reload_(std::move(reload)) {
  stop_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  inotify_fd_ = ::inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  if (inotify_fd_ >= 0) {
    // Without a watch the periodic look still finds every change, only later.
    ::inotify_add_watch(inotify_fd_, catalog_.path().c_str(),
                        IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM |
                            IN_MOVED_TO | IN_ATTRIB);
  }
  thread_ = std::thread([this] { run(); });
}

ProblemWatcher::~ProblemWatcher() {
  const std::uint64_t one = 1;
  if (stop_fd_ >= 0) (void)!::write(stop_fd_, &one, sizeof one);
  if (thread_.joinable()) thread_.join();
  if (inotify_fd_ >= 0) ::close(inotify_fd_);
  if (stop_fd_ >= 0) ::close(stop_fd_);
}

void ProblemWatcher::run() {
  using namespace std::chrono;
  std::array<char, 4096> events{};
  for (;;) {
    std::array<pollfd, 2> fds{pollfd{stop_fd_, POLLIN, 0}, pollfd{inotify_fd_, POLLIN, 0}};
    const int ready = ::poll(fds.data(), inotify_fd_ >= 0 ? 2 : 1,
                             static_cast<int>(limits::kReloadPollInterval.count()));
    if (ready < 0 && errno != EINTR) return;
    if (fds[0].revents != 0) return;
    if (fds[1].revents != 0) {
      // An editor's save is several events; let them all arrive before looking.
      while (::read(inotify_fd_, events.data(), events.size()) > 0) {
      }
      std::array<pollfd, 1> stop{pollfd{stop_fd_, POLLIN, 0}};
      if (::poll(stop.data(), 1, static_cast<int>(limits::kReloadSettle.count())) > 0) return;
      while (::read(inotify_fd_, events.data(), events.size()) > 0) {
      }
    }
    if (folder_fingerprint(catalog_.path()) != catalog_.fingerprint()) reload_();
  }
}

}  // namespace headgrader::server
