/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The numaplace command's exit codes, and the one mapping from an error's kind to its code
// (docs/errors.md; ErrorRegister tests read this switch against the document).
#pragma once

#include "placement/model/error_kind.h"

namespace numaplace::cli {

inline constexpr int kExitBadInput = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitNoFit = 3;
inline constexpr int kExitHost = 4;
inline constexpr int kExitLibvirtRefused = 5;
// Not an error: numaplace audit found something wrong on the host (and listed it).
inline constexpr int kExitFindings = 6;

inline int exit_code_for(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::BadInput:
    case ErrorKind::BadOption:
    case ErrorKind::OutOfMemory:
    case ErrorKind::Internal: return kExitBadInput;
    case ErrorKind::Usage:
    case ErrorKind::FileAccess: return kExitUsage;
    case ErrorKind::NoFit: return kExitNoFit;
    case ErrorKind::HostUnavailable: return kExitHost;
    case ErrorKind::LibvirtRefused: return kExitLibvirtRefused;
  }
  return kExitBadInput;
}

}  // namespace numaplace::cli
