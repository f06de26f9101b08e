/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Memory sizes as libvirt reads them: a non-negative integer and a unit, without case
// (b/byte/bytes, KB/MB/GB/TB/PB/EB = powers of 1000, k/KiB, M/MiB, G/GiB, T/TiB,
// P/PiB, E/EiB = powers of 1024, so "m", "gib" and "mb" too; libvirt's default unit is KiB). to_kib refuses
// negatives, junk, unknown units, values that overflow 64 bits, and sizes that
// are not a whole number of KiB, each with a named error.
#pragma once

#include <cstdint>
#include <string_view>

#include "placement/model/error.h"

namespace numaplace {

Result<std::uint64_t> memory_to_kib(std::string_view value, std::string_view unit, std::string_view what);

}  // namespace numaplace
