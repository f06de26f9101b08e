/* SPDX-License-Identifier: LGPL-2.1-or-later */
// What kind of failure an Error is, decided once where it is made (make_error looks its stable
// name up in the register below), so that every surface maps a kind, never a name: the CLI's exit
// code and the C ABI's np_status are one switch each over ErrorKind. docs/errors.md lists every
// registered name; ErrorRegister tests check the list, the register and the code against each
// other, so a new error name cannot ship unregistered or undocumented.
#pragma once

#include <span>
#include <string_view>

namespace numaplace {

enum class ErrorKind {
  BadInput,         // a document, request or value that cannot be used as given
  BadOption,        // a placement option or command-line value outside what it accepts
  Usage,            // a command used in a way it does not support
  FileAccess,       // a file that cannot be read
  NoFit,            // the guest does not fit the host as it is now
  HostUnavailable,  // the host (libvirt, hwloc, libnuma, the host lock) cannot be read or held
  LibvirtRefused,   // libvirt refused to define, start or re-pin a guest
  OutOfMemory,      // numaplace itself ran out of memory
  Internal,         // a bug in numaplace
};

struct RegisteredError {
  std::string_view name;
  ErrorKind kind;
};

// Every stable error name numaplace makes, with its kind, in alphabetical order.
std::span<const RegisteredError> registered_errors();

// The kind registered for `name`; BadInput for a name not registered.
ErrorKind error_kind_of(std::string_view name);

// "BadInput", "NoFit", ...: the kind as docs/errors.md writes it.
std::string_view error_kind_name(ErrorKind kind);

}  // namespace numaplace
