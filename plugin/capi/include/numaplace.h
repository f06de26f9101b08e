/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* numaplace C ABI: place libvirt guests onto the NUMA cells of a host.
 *
 * Contract:
 * - Opaque handles (np_host, np_request, np_result, np_error), each made by one call and
 *   released by its np_*_free (which accepts NULL). Strings returned by a handle
 *   are owned by it and live until it is freed. No C++ type and no exception
 *   crosses this boundary; every call returns an np_status.
 * - On failure a call returns a status other than NP_OK, leaves its out
 *   parameter NULL and, when `error` is not NULL, stores an np_error there with a
 *   stable machine-readable name ("NoFit", "ImageNUMATopologyAsymmetric",
 *   "XmlMalformed", ...) and a sentence a person can act on. Free it with
 *   np_error_free.
 * - No global state. Distinct handles may be used from different threads at
 *   once; one np_host may be shared by threads (np_place and np_fit read it under a
 *   shared lock, np_host_add_claims, np_fit_claim and np_host_release write it under an
 *   exclusive one); an np_request is never changed and may be shared too. An np_result
 *   and an np_error belong to one thread at a time.
 * - All text is UTF-8 and NUL-terminated. Spec and image pairs that are not are
 *   InvalidSpecText; options and guest names that are not, InvalidArgument.
 *
 * Link with `pkg-config --cflags --libs numaplace`.
 */
#ifndef NUMAPLACE_H
#define NUMAPLACE_H

#include <stddef.h>

#include "numaplace_version.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define NP_EXPORT __attribute__((visibility("default")))
#else
#define NP_EXPORT
#endif

/* The version this header belongs to: NUMAPLACE_VERSION_MAJOR, _MINOR, _PATCH and _STRING
 * (numaplace_version.h); the older names stay. */
#define NP_VERSION_MAJOR NUMAPLACE_VERSION_MAJOR
#define NP_VERSION_MINOR NUMAPLACE_VERSION_MINOR

typedef enum np_status {
  NP_OK = 0,
  NP_ERR_INVALID_ARGUMENT = 1, /* a NULL handle or string, an unknown flag or option */
  NP_ERR_INVALID_INPUT = 2,    /* a document or request that cannot be used (malformed XML/JSON, bad keys) */
  NP_ERR_NO_FIT = 3,           /* the guest does not fit the host */
  NP_ERR_HOST_UNAVAILABLE = 4, /* the host could not be read (libvirt, hwloc, a file) */
  NP_ERR_NO_MEMORY = 5,
  NP_ERR_INTERNAL = 6          /* a bug: please report the message */
} np_status;

typedef struct np_host np_host;
typedef struct np_result np_result;
typedef struct np_error np_error;
typedef struct np_request np_request;

/* One KEY=VALUE pair: a flavor extra spec ("hw:numa_nodes" = "2"), an image
 * property ("hw_numa_nodes" = "2") or a placement option. */
typedef struct np_pair {
  const char* key;
  const char* value;
} np_pair;

/* The library's version, "MAJOR.MINOR.PATCH" (NUMAPLACE_VERSION_STRING of the header it was built with). */
NP_EXPORT const char* np_version(void);
/* A short name for a status ("NP_ERR_NO_FIT"). */
NP_EXPORT const char* np_status_name(np_status status);

/* Errors. A NULL error is no error: its status is NP_OK, its name and message "". */
NP_EXPORT np_status np_error_status(const np_error* error);
NP_EXPORT const char* np_error_name(const np_error* error);
NP_EXPORT const char* np_error_message(const np_error* error);
NP_EXPORT void np_error_free(np_error* error);

/* Hosts. Each starts with no guests' claims unless said otherwise. */
/* `virsh capabilities` XML text. */
NP_EXPORT np_status np_host_from_capabilities_xml(const char* xml, np_host** host, np_error** error);
/* An hwloc XML export (`lstopo --of xml`), as text or as a file path. */
NP_EXPORT np_status np_host_from_hwloc_xml(const char* xml, np_host** host, np_error** error);
NP_EXPORT np_status np_host_from_hwloc_file(const char* path, np_host** host, np_error** error);
/* The machine this process runs on, through hwloc. */
NP_EXPORT np_status np_host_from_this_machine(np_host** host, np_error** error);
/* JSON text in the nova-fit host schema (cells, usage, network_metadata, pci, allocation_ratio; see
 * docs/library.md, "The JSON host schema"); usage in it counts as already claimed. A host JSON
 * that lists "unread_running_guests" (`numaplace topology --json` beside running guests it could
 * not read) is NP_ERR_HOST_UNAVAILABLE, RunningGuestsUnknown: its usage leaves them out. */
NP_EXPORT np_status np_host_from_json(const char* json, np_host** host, np_error** error);
/* The same host from packed cell words instead of JSON text, for a scheduler that converts many
 * hosts often (docs/library.md, "Packed host cells", gives the words): `words` holds the cells,
 * cpu_ratio and ram_ratio the allocation ratios (both NaN: no limits), pci_json the host schema's
 * "pci" list as text, networks_json the cells' "network_metadata" as a JSON list with an entry per
 * cell, null or the object (NULL or "" for either: none). Bad words are InvalidHostCells, naming
 * the word; bad JSON texts InvalidHostJson. */
NP_EXPORT np_status np_host_from_cells(const long long* words, size_t word_count, double cpu_ratio, double ram_ratio,
                                       const char* pci_json, const char* networks_json, np_host** host,
                                       np_error** error);
/* A live libvirt host ("qemu:///system", "test:///default"): capabilities, PCI
 * node devices and, with NP_LIBVIRT_RUNNING_CLAIMS, the claims of its running
 * guests (their live XML). A running guest whose XML cannot be read fails the
 * call (NP_ERR_HOST_UNAVAILABLE, RunningGuestsUnknown): what it holds is unknown. */
#define NP_LIBVIRT_RUNNING_CLAIMS 1u
NP_EXPORT np_status np_host_from_libvirt(const char* uri, unsigned int flags, np_host** host, np_error** error);
/* The host model as JSON text (the same schema np_host_from_json reads, the same
 * document `numaplace topology --json` prints); a host from libvirt whose source
 * left something out (a PCI node device whose XML cannot be read) says so in a
 * top-level "warnings" list of sentences. A host JSON's "name" (rank's label) is not part of
 * the model and is not written back. The caller frees it with np_string_free. */
NP_EXPORT np_status np_host_to_json(const np_host* host, char** json, np_error** error);
/* A new host that is `host` as it is now: its topology, configuration, claims (each guest still
 * known by name and uuid, so np_place leaves out the one it places, and np_host_release gives
 * one back) and warnings. Changing either afterwards leaves the other as it was. Free it with
 * np_host_free. */
NP_EXPORT np_status np_host_copy(const np_host* host, np_host** copy, np_error** error);
NP_EXPORT void np_string_free(char* text);
NP_EXPORT void np_host_free(np_host* host);

/* Applies a host configuration (the text of numaplace.conf: [compute] cpu_dedicated_set and
 * cpu_shared_set, [DEFAULT] cpu_allocation_ratio, ram_allocation_ratio, reserved_huge_pages,
 * [numaplace] reserved_cpus, reserved_memory, accounting; docs/accounting.md) to the
 * host. All or nothing: a bad value (InvalidHostConfig) changes nothing. */
NP_EXPORT np_status np_host_apply_config(np_host* host, const char* config_text, np_error** error);

/* Adds what already-placed guests hold (pinned pCPUs, floating vCPU load, memory,
 * huge pages) from their domain XML texts. All or nothing: if one cannot be read,
 * nothing is added. np_place leaves out a claim of the guest it places (same name
 * or uuid), so a guest can be placed again on its own host. Guests are counted as
 * they are, also two that hold one pCPU or device (a host `numaplace audit` would
 * report): every later fit avoids what either holds. One guest is counted once: a guest the host
 * counts already (same name or uuid, from np_host_add_claims or np_fit_claim), or given twice in
 * one call, is InvalidClaim and nothing is added (np_host_release it first to count it anew). */
NP_EXPORT np_status np_host_add_claims(np_host* host, const char* const* domain_xmls, size_t count, np_error** error);

/* Places the guest of `domain_xml` on `host`. Its vCPUs and memory come from the
 * domain's <vcpu> and <memory>; its NUMA wishes from `specs` (flavor extra specs)
 * and `image_props` (image properties), or, when both are empty, from the request
 * recorded in the domain's numaplace metadata. `options` (may be NULL when
 * option_count is 0):
 *   "strategy"      = "adaptive" (default, as the CLI's: pack on hosts of three or more cells, spread
 *                     on one or two) | "nova" (Nova's first fit) | "spread" | "pack" | "ratio"
 *                     (how to choose among the assignments that fit; docs/strategies.md)
 *   "cell_order"    = "spread" (default, Nova's order) | "pack" (Nova's packing order, fullest host
 *                     cells first; it is strategy nova's, so alone it selects strategy nova, and
 *                     with another strategy named it is NP_ERR_INVALID_ARGUMENT)
 *   "ratio_shape"   = "0:0,100:10" (with strategy=ratio: UTILIZATION:SCORE points)
 *   "ratio_weights" = "cpu=1,memory=1" (weights of the scored strategies)
 *   "policy"        = "best-effort" (default) | "none" | "restricted" | "single-numa-node"
 *                     (for a guest without a NUMA topology: how its resources' hints merge)
 *   "prefer_closest" = "true" (default) | "false" (with policy: among equally wide masks the closest
 *       NUMA nodes, so that one socket's cells come first; "false": the lowest-numbered, as the kubelet)
 *   "pci"           = "0000:3b:00.0,..." (host PCI devices the guest will get besides its <hostdev>s)
 * An unknown option or a bad value is NP_ERR_INVALID_ARGUMENT. A guest that asks for no NUMA
 * topology is a success: its XML is returned unchanged and np_result_placed is 0.
 * A guest that does not fit is NP_ERR_NO_FIT, whose message says why per cell. */
NP_EXPORT np_status np_place(const np_host* host, const char* domain_xml, const np_pair* specs, size_t spec_count,
                             const np_pair* image_props, size_t image_prop_count, const np_pair* options,
                             size_t option_count, np_result** result, np_error** error);

/* The rewritten domain XML. */
NP_EXPORT const char* np_result_xml(const np_result* result);
/* {"domain": NAME, "uuid": UUID, "placed": bool, "request_from_metadata": bool,
 *  "replacement": {"kind": "fresh" | "kept" | "repinned" | "moved", "repinned_cells": [...],
 *                  "why": TEXT | null, "refreshed": TEXT | null}   (how a placement recorded in the
 *                  domain was used; "refreshed": kept cells that now float on other CPUs than
 *                  the record said, and which),
 *  "cells": [{"guest_cell", "host_cell", "guest_cpus", "host_cpus", "memory_kib",
 *             "pagesize_kib", "pinning": {"VCPU": PCPU}, "cpuset_reserved", "isolated_cpus"}],
 *  "narrowings": [{"guest", "uuid", "running", "thread": "vcpu"|"emulator"|"iothread", "id",
 *                  "source", "from", "to"}]   (threads of the host's other guests (claims) that
 *                  float over the pCPUs this guest now holds and must be moved off them; a guest
 *                  that would keep none makes np_place fail with WouldStarveGuest)} */
NP_EXPORT const char* np_result_placement_json(const np_result* result);
/* {"placed": bool, "summary": TEXT, "request": {"flavor": {...}, "image": {...},
 *  "from_metadata": bool}, "rejections": [{"guest_cell", "host_cell", "reason"}],
 *  "warnings": [TEXT, ...]   (e.g. a PCI device the host does not have)} */
NP_EXPORT const char* np_result_explanation_json(const np_result* result);
/* 1 when the guest got a NUMA placement, 0 when it asked for none. */
NP_EXPORT int np_result_placed(const np_result* result);
NP_EXPORT void np_result_free(np_result* result);

/* The fast fit API: Nova's numa_get_constraints and numa_fit_instance_to_host without domain XML.
 * A scheduler builds each host once (np_host_from_json), each request once (np_request_from_json
 * or np_request_from_specs), then asks np_fit / np_fit_hosts as often as it likes; a compute claim
 * is np_fit_claim, which fits and records the answer on the host in one step. The JSON shapes are
 * those of docs/library.md, "The fast fit API". */

/* Nova's numa_get_constraints: the guest topology a flavor (vcpus, memory_mib, extra specs) and
 * an image's properties ask for, as JSON ("null" when they ask for none):
 *   {"cells": [{"id", "cpus", "pcpus", "memory_kib", "memory_mib", "pagesize"}], "cpu_policy",
 *    "cpu_thread_policy", "emulator_threads_policy", "pci_numa_affinity_policy",
 *    "realtime_cpus", "locked_memory", "network_metadata": {"physnets", "tunneled"}}
 *   (policies null when unset; np_derive's network_metadata is always empty)
 * A bad request is the error Nova raises, by Nova's class name ("ImageNUMATopologyAsymmetric",
 * "InvalidNUMANodesNumber", ...; "ValueError" and "Invalid" where Nova raises those). The caller
 * frees the text with np_string_free. */
NP_EXPORT np_status np_derive(unsigned int vcpus, unsigned long long memory_mib, const np_pair* specs, size_t spec_count,
                              const np_pair* image_props, size_t image_prop_count, char** topology_json,
                              np_error** error);

/* A request, read and interpreted once. `json` is either
 *   {"flavor": {"vcpus", "memory_mib", "extra_specs": {...}}, "image": {"properties": {...}},
 *    "pci": [{"count", "vendor_id", "product_id", "alias_numa_policy"}],
 *    "network_metadata": {"physnets": ["physnet1", ...], "tunneled": true | false}}
 *   (a "pci" entry may give "specs": [{KEY: VALUE}, ...] instead of the two ids: Nova's spec list,
 *   any one of which a device matches, keys naming vendor_id, product_id or the device's "tags")
 *   (derived as np_derive; network_metadata, optional, is Nova's limits.network_metadata: the fit
 *   then takes host cells close to those networks where the host's cells name them)
 * or an instance topology taken as given (what Nova's InstanceNUMATopology holds):
 *   {"topology": {"cells": [{"id", "cpus" (every vCPU), "pcpus" (the dedicated ones),
 *                 "memory_mib" | "memory_kib", "pagesize"}], "cpu_policy", "cpu_thread_policy",
 *                 "emulator_threads_policy", "pci_numa_affinity_policy"} | null, "pci": [...],
 *    "network_metadata": {...}}
 * A malformed one is InvalidRequestJson naming the field. */
NP_EXPORT np_status np_request_from_json(const char* json, np_request** request, np_error** error);
NP_EXPORT np_status np_request_from_specs(unsigned int vcpus, unsigned long long memory_mib, const np_pair* specs,
                                          size_t spec_count, const np_pair* image_props, size_t image_prop_count,
                                          np_request** request, np_error** error);
/* The request's guest topology, as np_derive writes it ("null": none); owned by the request. */
NP_EXPORT const char* np_request_topology_json(const np_request* request);
NP_EXPORT void np_request_free(np_request* request);

/* Fits `request` on `host` (with every claim it holds). `options` as np_place's "strategy" (the
 * same default, adaptive; "nova" for Nova's answer), "cell_order", "ratio_shape" and
 * "ratio_weights"; others are NP_ERR_INVALID_ARGUMENT. Not
 * fitting is an answer, not an error: the call returns NP_OK and `answer_json` (free it with
 * np_string_free) is
 *   {"kind": "fit", "cells": [{"guest_cell", "host_cell", "guest_cpus", "host_cpus", "memory_kib",
 *        "pagesize_kib" (null: none asked), "pinning": {"VCPU": PCPU} | null,
 *        "cpuset_reserved": [...] | null, "isolated_cpus": [...]}]}
 *   {"kind": "no_fit", "summary": TEXT, "rejections": [{"guest_cell", "host_cell", "reason"}]}
 *   {"kind": "no_topology"}   (the request asks for no NUMA topology: any host will do) */
NP_EXPORT np_status np_fit(const np_host* host, const np_request* request, const np_pair* options, size_t option_count,
                           char** answer_json, np_error** error);
/* np_fit over `host_count` hosts: a JSON array of their answers, in the hosts' order. */
NP_EXPORT np_status np_fit_hosts(const np_host* const* hosts, size_t host_count, const np_request* request,
                                 const np_pair* options, size_t option_count, char** answers_json, np_error** error);
/* np_fit_hosts without the answers' JSON, for a caller that needs only whether and where the
 * guest fits each host (a scheduler's filter): the same fit under the same options, written into
 * arrays the caller owns, so no answer is written nor parsed. fits[i] (host_count entries) is 1
 * when the guest fits hosts[i] (or the request asks for no topology), 0 when it does not.
 * host_cells may be NULL; otherwise it gets np_request_cell_count(request) entries per host:
 * host_cells[i * cells + g] is the id of the host cell guest cell g took on hosts[i], -1 where the
 * guest does not fit, and host_cells_length (in entries) must be at least host_count * cells.
 * A NULL `fits`, a NULL or too short host_cells array (when cells > 0 and host_cells is given) or a
 * NULL host is NP_ERR_INVALID_ARGUMENT; on any error nothing is written to either array. */
NP_EXPORT np_status np_fit_hosts_cells(const np_host* const* hosts, size_t host_count, const np_request* request,
                                       const np_pair* options, size_t option_count, unsigned char* fits,
                                       long long* host_cells, size_t host_cells_length, np_error** error);
/* np_fit_hosts_cells' verdicts for hosts given as packed cell words (np_host_from_cells' words, with
 * no PCI devices and no networks) instead of made hosts: for a scheduler's filter that asks one
 * request of many hosts it has not made yet. Host i is the word_counts[i] 64-bit words at words[i]
 * (no alignment asked) with the allocation ratios ratios[2 * i] (CPU) and ratios[2 * i + 1] (RAM),
 * both NaN for no limits. fits[i] is 1 where the guest fits host i (or the request asks for no
 * topology), 0 where it does not, and 2 where np_host_from_cells refuses host i's words or ratios
 * (that host alone; np_host_from_cells says why). `made` is NULL (the hosts are freed before the
 * call returns) or host_count entries: made[i] receives host i as np_host_from_cells makes it
 * (NULL where refused), for the caller to fit again and free with np_host_free. A NULL array (or
 * NULL words of a host with words) is NP_ERR_INVALID_ARGUMENT; on any error nothing is written to
 * fits or made. */
NP_EXPORT np_status np_fit_packed_hosts(const void* const* words, const size_t* word_counts, const double* ratios,
                                        size_t host_count, const np_request* request, const np_pair* options,
                                        size_t option_count, unsigned char* fits, np_host** made, np_error** error);
/* The number of guest cells the request asks for: 0 when it asks for no NUMA topology (or is NULL). */
NP_EXPORT size_t np_request_cell_count(const np_request* request);
/* The compute claim: np_fit under the host's exclusive lock and, when the answer is "fit", what it
 * holds (pins, reserved and isolated pCPUs, floating vCPU load, memory or huge pages per cell, and
 * the PCI devices its requests are given, by address, as Nova's pools serve them on its cells) is
 * added to the host's claims as guest `guest_name` (np_place leaves it out when it places that
 * guest again). The answer is np_fit's. A second claim under a name that holds one adds to it (a
 * resize on the same host holds the old flavor and the new at once); np_host_release gives back
 * all of that name's claims. */
NP_EXPORT np_status np_fit_claim(np_host* host, const np_request* request, const char* guest_name,
                                 const np_pair* options, size_t option_count, char** answer_json, np_error** error);
/* Releases what guest `guest_name` holds on the host (its claims from np_fit_claim or
 * np_host_add_claims, by name): an instance deleted, a claim aborted. A name the host holds no
 * claim of is NP_ERR_INVALID_ARGUMENT (InvalidArgument) and changes nothing. */
NP_EXPORT np_status np_host_release(np_host* host, const char* guest_name, np_error** error);

#ifdef __cplusplus
}
#endif

#endif /* NUMAPLACE_H */
