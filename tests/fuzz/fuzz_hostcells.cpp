// SPDX-License-Identifier: LGPL-2.1-or-later
// libFuzzer harness: the hostcells entry (np_host_from_cells' reader) of fuzz_entries.h. A refusal is fine; a crash,
// a sanitizer report, a hang or a broken invariant is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_entries.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)numaplace::fuzz::run("hostcells", std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
