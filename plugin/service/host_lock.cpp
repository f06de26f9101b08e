// SPDX-License-Identifier: LGPL-2.1-or-later
#include "plugin/service/host_lock.h"

#include "placement/model/utf8_text.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

namespace numaplace::plugin {

namespace {
constexpr const char* kBuiltInLockPath = "/run/numaplace/host.lock";
}  // namespace

std::string default_lock_path() {
  const char* env = std::getenv("NUMAPLACE_LOCK_FILE");
  return env != nullptr && *env != '\0' ? env : kBuiltInLockPath;
}

Result<int> default_lock_timeout_seconds() {
  const char* env = std::getenv("NUMAPLACE_LOCK_TIMEOUT");
  if (env == nullptr) return 60;
  char* end = nullptr;
  errno = 0;
  const long seconds = std::strtol(env, &end, 10);
  if (end == env || *end != '\0' || errno != 0 || seconds < 1 || seconds > 86400) {
    return make_error("InvalidArgument", "NUMAPLACE_LOCK_TIMEOUT '" + printable_text(env) +
                                             "' is not a whole number of seconds from 1 to 86400; fix it, or unset "
                                             "it for the default of 60 s");
  }
  return static_cast<int>(seconds);
}

namespace {

std::string holder_of(int fd) {
  char buffer[512];
  const ssize_t n = ::pread(fd, buffer, sizeof buffer, 0);
  return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : std::string();
}

}  // namespace

Result<HostLock> HostLock::acquire(const std::string& path, int timeout_seconds, const std::string& purpose,
                                   const std::string& unless_held_for) {
  // /run/numaplace is numaplace's own and is made when missing (a tmpfs starts empty). Another
  // lock's directory must exist: every numaplace on a host has to name the same lock, and one
  // misspelt in NUMAPLACE_LOCK_FILE, its directories made on the spot, would lock nothing.
  std::error_code ec;
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (path == kBuiltInLockPath) {
    std::filesystem::create_directories(parent, ec);
  } else if (!parent.empty() && !std::filesystem::is_directory(parent, ec)) {
    return make_error("LockUnavailable", "the host lock '" + path + "' is in a directory that does not exist (" +
                                             parent.string() + "); create it, or correct NUMAPLACE_LOCK_FILE: every "
                                             "numaplace on a host must name the same lock");
  }
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    return make_error("LockUnavailable", "cannot open the host lock '" + path + "': " + std::strerror(errno) +
                                             "; run as a user who may write there, or set NUMAPLACE_LOCK_FILE");
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      int saved = errno;
      ::close(fd);
      return make_error("LockUnavailable", "cannot lock '" + path + "': " + std::strerror(saved));
    }
    if (!unless_held_for.empty() && holder_of(fd) == unless_held_for + "\n") {
      ::close(fd);
      return HostLock(-1);
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      ::close(fd);
      return make_error("LockTimeout", "another numaplace held the host lock '" + path + "' for more than " +
                                           std::to_string(timeout_seconds) + " s; try again");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const std::string note = purpose + "\n";
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, note.data(), note.size(), 0) != static_cast<ssize_t>(note.size())) {
    // The note only spares a hook its wait; the lock itself holds without it.
  }
  return HostLock(fd);
}

HostLock::~HostLock() {
  if (fd_ >= 0) {
    if (::ftruncate(fd_, 0) != 0) {
      // A stale note names a holder that is gone; a waiter then just waits for the lock.
    }
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
  }
}

}  // namespace numaplace::plugin
