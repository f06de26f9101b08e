/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The JSON of the fast fit API (np_derive, np_fit, np_fit_hosts in numaplace.h): a request read
// into a guest topology, that topology written back, and a fit's answer. No domain XML anywhere.
//
// A request is one of two forms:
//   {"flavor": {"vcpus": 4, "memory_mib": 4096, "extra_specs": {"hw:numa_nodes": "2", ...}},
//    "image": {"properties": {"hw_numa_nodes": "2", ...}},            (optional)
//    "pci": [{"count", "vendor_id", "product_id" | "specs": [{KEY: VALUE}, ...], "alias_numa_policy"}],  (optional)
//    "network_metadata": {"physnets": [NAME, ...], "tunneled": BOOL}}   (optional; Nova's
//        limits.network_metadata: the chosen host cells must be close to these networks where the
//        host's cells say which are, placement/fit/network_demands.h)
//     -> Nova's numa_get_constraints (derive_guest_topology): its errors keep Nova's class names;
//   {"topology": {"cells": [{"id", "cpus", "pcpus", "memory_mib" | "memory_kib",
//                            "pagesize": null | -1 small | -2 large | -3 any | KiB}],
//                 "cpu_policy", "cpu_thread_policy", "emulator_threads_policy",
//                 "pci_numa_affinity_policy", "realtime_cpus", "locked_memory",
//                 "network_metadata"} | null,   (a topology as np_derive writes it reads back as is;
//                 network_metadata may sit here or beside "topology", not differently in both)
//    "pci": [...], "network_metadata": {...}}   (with a null topology network_metadata is checked
//        and has no effect: a guest without NUMA cells has no affinity to place, as in Nova)
//     -> that topology as given (an InstanceNUMATopology maps onto it field by field); null: no
//        topology. A cell's "cpus" are all its vCPUs, "pcpus" the dedicated subset (Nova 26's
//        cpuset | pcpuset and pcpuset).
// Every field is checked; a bad one is "InvalidRequestJson" naming where it is.
//
// The guest topology is written as the nova-fit vectors write it (SCHEMA.md, expect.guest_topology),
// plus "memory_kib" per cell, "realtime_cpus", "locked_memory" and "network_metadata"; null when the request asks for no
// topology. A fit answer:
//   {"kind": "fit", "cells": [{"guest_cell", "host_cell", "guest_cpus", "host_cpus", "memory_kib",
//        "pagesize_kib" (null: none requested), "pinning": {"VCPU": PCPU} | null,
//        "cpuset_reserved": [...] | null, "isolated_cpus": [...]}]}
//   {"kind": "no_fit", "summary": TEXT, "rejections": [{"guest_cell", "host_cell", "reason"}]}
//   {"kind": "no_topology"}   (the request asks for no NUMA topology; any host will do)
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

#include "placement/fit/fit.h"
#include "placement/model/error.h"
#include "placement/request/guest_topology.h"

namespace numaplace::plugin {

// A request read and interpreted: the guest topology, or nullopt when it asks for none.
using FitRequest = std::optional<GuestTopology>;

Result<FitRequest> fit_request_from_json_text(std::string_view text);
Result<FitRequest> fit_request_from_json(const nlohmann::json& request);

nlohmann::json guest_topology_json(const FitRequest& topology);
// The answer as JSON text, written directly (the fit API's hot path: no JSON tree is built).
std::string fit_answer_text(const FitResult& result);
std::string no_topology_answer_text();

}  // namespace numaplace::plugin
