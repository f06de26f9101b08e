/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Heap allocations made by this benchmark binary so far: allocation_counter.cpp replaces the
// global operator new and delete (over malloc and free) and counts every new. A benchmark reads
// it before and after its loop to report allocations per call as a counter.
#pragma once

#include <cstddef>

namespace numaplace::bench {

std::size_t allocations_so_far();

}  // namespace numaplace::bench
