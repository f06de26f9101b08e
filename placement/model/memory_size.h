/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Memory sizes as libvirt reads them: a non-negative integer and a unit, without case
// (b/byte/bytes, KB/MB/GB/TB/PB/EB = powers of 1000, k/KiB, M/MiB, G/GiB, T/TiB,
// P/PiB, E/EiB = powers of 1024, so "m", "gib" and "mb" too; libvirt's default unit is KiB).
// Negatives, junk, unknown units and values that overflow are refused, each with a named error.
#pragma once

#include <cstdint>
#include <string_view>

#include "placement/model/error.h"

namespace numaplace {

// A size a host source states (capabilities, host configuration): blanks around the number and the
// unit are let be; a size that is not a whole number of KiB, or past 2^64 KiB, is refused.
Result<std::uint64_t> memory_to_kib(std::string_view value, std::string_view unit, std::string_view what);

// A size in a domain, read exactly as libvirt reads it (virDomainParseMemory): the number as C's
// strtoull (c_whole_number.h: blanks before it and a '+' taken, nothing after it), the unit as
// written, at most 2^63 - 1 bytes, rounded up to whole KiB.
Result<std::uint64_t> domain_memory_to_kib(std::string_view value, std::string_view unit, std::string_view what);

}  // namespace numaplace
