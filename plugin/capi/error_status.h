/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The one mapping from an error's kind to the C ABI's np_status (docs/errors.md; ErrorRegister
// tests read this switch against the document).
#pragma once

#include "numaplace.h"
#include "placement/model/error_kind.h"

namespace numaplace::capi {

inline np_status status_for(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::BadInput: return NP_ERR_INVALID_INPUT;
    case ErrorKind::BadOption:
    case ErrorKind::Usage: return NP_ERR_INVALID_ARGUMENT;
    case ErrorKind::NoFit: return NP_ERR_NO_FIT;
    case ErrorKind::FileAccess:
    case ErrorKind::HostUnavailable:
    case ErrorKind::LibvirtRefused: return NP_ERR_HOST_UNAVAILABLE;
    case ErrorKind::OutOfMemory: return NP_ERR_NO_MEMORY;
    case ErrorKind::Internal: return NP_ERR_INTERNAL;
  }
  return NP_ERR_INTERNAL;
}

}  // namespace numaplace::capi
