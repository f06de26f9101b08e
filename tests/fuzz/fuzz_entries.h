/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The outside-text entry points of numaplace, one function per parser, each fed
// raw bytes exactly as a libFuzzer harness gets them. Each returns the parser's
// outcome: std::nullopt on success, or the named Error it refused the input with.
// Shared by the libFuzzer harnesses (tests/fuzz/fuzz_*.cpp) and the regression
// test over tests/fuzz/regressions/ (tests/unit/fuzz_regressions_test.cpp), so a
// crashing input is replayed through the very same code it crashed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "placement/model/error.h"

namespace numaplace::fuzz {

using Outcome = std::optional<Error>;

// parse_cpu_list over the whole input; on success, to_cpu_list must parse back to the same set.
Outcome cpulist(std::string_view data);
// Lines "key=value"; lines before a line "--" are flavor extra specs, after it image properties.
// The first line may be "vcpus memory_mib" to size the guest (default 4 vCPUs, 2048 MiB).
Outcome specs(std::string_view data);
// read_capabilities.
Outcome capabilities_xml(std::string_view data);
// read_node_devices, and read_pci_node_device on the same text.
Outcome nodedev_xml(std::string_view data);
// read_domain_summary + read_guest_claim against a fixed 2-cell host, then place_domain of the
// same text with hw:numa_nodes=1 (or the request in its metadata) on that host.
Outcome domain_xml(std::string_view data);
// load_hwloc_xml of the input written to a temporary file.
Outcome hwloc_xml(std::string_view data);
// One JSON line through every conformance suite's check (nova-fit first); malformed vectors
// are refused as the runner refuses them.
Outcome json_vector(std::string_view data);

// The QEMU hook's decision (plugin/service/qemu_hook.h) on the fixed 2-cell host with one running
// guest pinned to pCPUs 0-1: the first line is "OP SUBOP" (e.g. "restore begin"), the rest is
// the domain XML libvirt would pass on stdin. A verdict that prints XML must print XML that
// parses as a domain.
Outcome hook_stdin(std::string_view data);

// The fast fit API's request reader (fit_request_from_json_text: the flavor/image form and the
// topology form). An accepted request with a topology is fitted on the fixed 2-cell host and the
// answer text must be a JSON object with a "kind"; its topology, written as JSON, must read back
// in the topology form to the same JSON.
Outcome fit_request_json(std::string_view data);
// np_host_from_json's reader (plugin::host_from_json_text). An accepted host must write back
// (host_to_json) to JSON that reads to the same host JSON again, and a 1-cell guest of 1 vCPU and
// 1 GiB is fitted on it, its answer text a JSON object with a "kind".
Outcome fit_host_json(std::string_view data);

// np_host_from_cells' reader (plugin::host_from_cells), fed as text: line 1 the CPU and RAM
// allocation ratios ("nan nan": no limits), line 2 the words as decimal integers, line 3 (optional)
// the PCI JSON text, line 4 (optional) the networks JSON text. An input that is not of that form
// is refused as "NotPackedWords". An accepted host is checked as fit_host_json's: written as JSON it
// reads back to the same host, and the 1-cell guest's answer is a JSON object with a "kind".
Outcome host_cells_words(std::string_view data);

// Dispatch by harness name ("cpulist", "specs", "capabilities", "nodedev", "domain", "hwloc", "json", "hook",
// "fitrequest", "fithost", "hostcells").
// Returns an Error named "UnknownHarness" for any other name.
Outcome run(std::string_view harness, std::string_view data);

}  // namespace numaplace::fuzz
