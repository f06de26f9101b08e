/* SPDX-License-Identifier: LGPL-2.1-or-later */
// A host-wide exclusive lock (flock on a file) held while numaplace reads claims,
// places and defines, so that two invocations never hand out the same pCPU.
// The lock is released when the HostLock is destroyed or the process dies, so a
// crashed numaplace never leaves the host locked. While held, the file says what holds it
// ("start vm"), so that libvirt's hook, run inside an operation numaplace holds the lock for,
// can tell that the lock is held on its behalf instead of waiting for it to its time limit.
#pragma once

#include <string>

#include "placement/model/error.h"

namespace numaplace::plugin {

// /run/numaplace/host.lock unless NUMAPLACE_LOCK_FILE says otherwise.
std::string default_lock_path();
// 60 s unless NUMAPLACE_LOCK_TIMEOUT gives another whole number of seconds (1 to 86400); any
// other value of it is InvalidArgument, not the default taken without a word.
Result<int> default_lock_timeout_seconds();

class HostLock {
 public:
  // Blocks until the lock is ours, or fails after `timeout_seconds` with "LockTimeout". `purpose`
  // is written into the file while the lock is held. When `unless_held_for` is not empty and the
  // holder's purpose is exactly that, returns at once without the lock (borrowed()): the holder
  // is the operation the caller runs inside. LockUnavailable when the file cannot be opened or
  // locked, or `path` is not the built-in /run/numaplace/host.lock and its directory is missing
  // (only the built-in one's directory is made).
  static Result<HostLock> acquire(const std::string& path, int timeout_seconds = 60, const std::string& purpose = {},
                                  const std::string& unless_held_for = {});
  bool borrowed() const { return fd_ < 0; }

  HostLock(HostLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  HostLock& operator=(HostLock&&) = delete;
  HostLock(const HostLock&) = delete;
  ~HostLock();

 private:
  explicit HostLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace numaplace::plugin
