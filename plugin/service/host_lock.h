/* SPDX-License-Identifier: LGPL-2.1-or-later */
// A host-wide exclusive lock (flock on a file) held while numaplace reads claims,
// places and defines, so that two invocations never hand out the same pCPU.
// The lock is released when the HostLock is destroyed or the process dies, so a
// crashed numaplace never leaves the host locked.
#pragma once

#include <string>

#include "placement/model/error.h"

namespace numaplace::plugin {

// /run/numaplace/host.lock unless NUMAPLACE_LOCK_FILE says otherwise.
std::string default_lock_path();
// 60 s unless NUMAPLACE_LOCK_TIMEOUT gives another whole number of seconds (1 to 86400).
int default_lock_timeout_seconds();

class HostLock {
 public:
  // Blocks until the lock is ours, or fails after `timeout_seconds` with "LockTimeout".
  static Result<HostLock> acquire(const std::string& path, int timeout_seconds = 60);

  HostLock(HostLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  HostLock& operator=(HostLock&&) = delete;
  HostLock(const HostLock&) = delete;
  ~HostLock();

 private:
  explicit HostLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace numaplace::plugin
