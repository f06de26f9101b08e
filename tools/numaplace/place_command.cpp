// SPDX-License-Identifier: LGPL-2.1-or-later
// numaplace place DOMAIN: place one guest and print (or write) its rewritten XML.
#include <iostream>
#include <memory>

#include "numaplace/cli_common.h"
#include "numaplace/command.h"
#include "numaplace/explain_output.h"
#include "numaplace/json_output.h"
#include "plugin/service/place_domain.h"
#include "plugin/service/placement_json.h"
#include "xml/domain_reader.h"
#include "xml/xml_document.h"
#include "plugin/service/json_text.h"

namespace numaplace::cli {
namespace {

struct PlaceOptions {
  std::string domain_path;
  std::string output_path;
  std::vector<std::string> specs;
  std::vector<std::string> image_props;
  std::vector<std::string> claims;
  bool include_defined = false;
  bool json = false;
  bool explain = false;
  StrategyCliOptions strategy;
  HostSourceOptions host;
  PolicyCliOptions policy;
  std::vector<std::string> pci;
  bool fresh = false;
};

int run_place(const PlaceOptions& o) {
  auto flavor = parse_pairs(o.specs, "--spec");
  if (!flavor) return report(flavor.error(), o.json);
  auto image = parse_pairs(o.image_props, "--image-prop");
  if (!image) return report(image.error(), o.json);
  auto floating = parse_policy(o.policy);
  if (!floating) return report(floating.error(), o.json);
  auto domain_text = read_input(o.domain_path, "domain XML");
  if (!domain_text) return report(domain_text.error(), o.json);
  const std::string what =
      o.domain_path == "-" ? "domain XML on standard input" : "domain XML '" + o.domain_path + "'";
  const HostSourceOptions source = with_default_host(o.host);
  auto host = load_host(source);
  if (!host) return report(host.error(), o.json);
  std::vector<GuestClaim> claims;
  {
    // The guest being placed must not count against itself.
    auto doc = xml::parse_document(*domain_text, what);
    if (!doc) return report(doc.error(), o.json);
    auto summary = xml::read_domain_summary(doc->get(), what);
    if (!summary) return report(summary.error(), o.json);
    auto folded = fold_claims(*host, source, o.claims, o.include_defined, summary->name, summary->uuid, true);
    if (!folded) return report(folded.error(), o.json);
    claims = std::move(*folded);
  }

  plugin::PlaceRequest request;
  request.domain_xml = std::move(*domain_text);
  request.domain_name_for_errors = what;
  request.flavor_specs = std::move(*flavor);
  request.image_props = std::move(*image);
  request.floating = *floating;
  request.pci_addresses = o.pci;
  request.keep_recorded = !o.fresh;
  request.other_guests = &claims;
  if (auto applied = apply_strategy_options(o.strategy, request.fit); !applied) return report(applied.error(), o.json);
  FitExplanation explanation;
  if (o.explain) request.explanation = &explanation;
  auto outcome = plugin::place_domain(*host, request);
  if (!outcome) {
    if (o.explain && o.json) {
      std::cout << numaplace::plugin::json_text(nlohmann::json{{"error", {{"name", outcome.error().name}, {"message", outcome.error().message}}},
                                  {"explanation", explain_json(explanation, claims)}}, 2)
                << '\n';
      return exit_code_for(outcome.error());
    }
    if (o.explain) std::cerr << explain_text(explanation, claims);
    return report(outcome.error(), o.json);
  }
  if (o.explain && !o.json) {
    if (outcome->confinement) {
      std::cerr << explain_confinement_text(*outcome->confinement, o.policy.policy);
    } else {
      std::cerr << explain_text(explanation, claims);
      if (outcome->placement) std::cerr << cache_domains_text(*host, *outcome->placement);
    }
  }

  for (const auto& warning : outcome->warnings) std::cerr << "numaplace: warning: " << warning << '\n';
  report_replacement(outcome->replacement);
  report_narrowings(outcome->narrowings, NarrowingReport::LeftToLifecycle);
  if (!outcome->placement) {
    if (outcome->confinement && outcome->confinement->cells) {
      std::cerr << "numaplace: no NUMA topology requested; confined to host cells "
                << outcome->confinement->cells->to_nodeset() << " (" << o.policy.policy << ": "
                << outcome->confinement->reason << ")\n";
    } else {
      std::cerr << "numaplace: no NUMA topology requested; the guest is left unconfined\n";
    }
  }
  std::string text = outcome->domain_xml;
  if (o.json) {
    nlohmann::json doc{{"placement", outcome->placement ? to_json(*outcome->placement) : nlohmann::json()},
                       {"confinement", outcome->confinement ? to_json(*outcome->confinement) : nlohmann::json()},
                       {"rejections", to_json(outcome->rejections)},
                       {"replacement", plugin::replacement_json(outcome->replacement)},
                       {"narrowings", plugin::narrowings_json(outcome->narrowings)},
                       {"xml", outcome->domain_xml}};
    if (o.explain) {
      doc["explanation"] = explain_json(explanation, claims);
      if (outcome->placement) doc["explanation"]["cache_domains"] = cache_domains_json(*host, *outcome->placement);
    }
    text = numaplace::plugin::json_text(doc, 2) + "\n";
  }
  if (auto written = write_output(o.output_path, text); !written) return report(written.error(), o.json);
  return 0;
}

}  // namespace

Command register_place(CLI::App& app) {
  auto options = std::make_shared<PlaceOptions>();
  auto* place = app.add_subcommand("place", "Place a guest and print its rewritten domain XML");
  place->footer(
      std::string(
          "Keys (--spec: flavor extra specs; --image-prop: the image's hw_* twins):\n"
          "  hw:numa_nodes=N      split the guest evenly into N NUMA cells, each on its own host cell\n"
          "  hw:numa_cpus.I=LIST  vCPUs of guest cell I (e.g. 0-5), for asymmetric cells\n"
          "  hw:numa_mem.I=MIB    memory of guest cell I in MiB; every cell needs both keys\n"
          "  hw:cpu_policy=shared|dedicated|mixed (mixed with hw:cpu_dedicated_mask),\n"
          "  hw:cpu_thread_policy=prefer|isolate|require, hw:mem_page_size=small|large|any|SIZE,\n"
          "  hw:emulator_threads_policy, hw:pci_numa_affinity_policy, hw:cpu_realtime, hw:cpu_realtime_mask,\n"
          "  hw:locked_memory, resources:PCPU, resources:VCPU, trait:HW_CPU_HYPERTHREADING: as in OpenStack\n"
          "  Nova 26, with Nova's rules and error classes.\n"
          "  hw:cpu_sockets, hw:cpu_cores, hw:cpu_threads (preferred), hw:cpu_max_sockets, _max_cores,\n"
          "  _max_threads (limits): the guest's <cpu><topology>, in Nova's order; every preferred value must\n"
          "  be met and each socket must lie in one guest NUMA cell, else CpuTopologyUnsatisfiable.\n"
          "  numaplace:mem_page_size.I=small|large|any|SIZE  the page size of guest cell I alone (Nova has\n"
          "  one for the whole guest): the values and image rule of hw:mem_page_size, which the other cells\n"
          "  keep; written as <memoryBacking><hugepages><page size nodeset='I'>. Other numaplace: keys are\n"
          "  UnknownSpecKey; one naming a cell the guest lacks is InvalidRequest.\n"
          "The guest's vCPUs and memory come from the domain's <vcpu> and <memory>. Image properties\n"
          "(--image-prop hw_numa_nodes=2, hw_cpu_policy=dedicated ...) may set a key only where the flavor\n"
          "(--spec) did not; as in Nova 26 there is no image twin of hw:emulator_threads_policy, so\n"
          "hw_emulator_threads_policy is ignored. A dedicated vCPU gets a <vcpupin> onto one pCPU of its own.\n"
          "Keys of other namespaces (quota:, ...) are left alone. A map must give every node 0 to count-1\n"
          "and stop there (hw:numa_mem.2 after .0 and .1 of 2 nodes is ImageNUMATopologyIncomplete, as in\n"
          "Nova); a hw:numa_cpus.N or hw:numa_mem.N Nova does not read (past the count after a gap in N, a\n"
          "map without its .0, maps without hw:numa_nodes) is a warning on stderr; Nova ignores it too, as\n"
          "it ignores a key in the other form (hw_numa_nodes as a --spec, hw:numa_nodes as an --image-prop),\n"
          "also a warning. Without --spec/--image-prop the request\n"
          "stored in the domain's numaplace metadata is used, so a domain XML can carry its own NUMA wishes:\n"
          "  <metadata>\n"
          "    <numaplace:numaplace xmlns:numaplace=\"https://numaplace.dev/xmlns/domain/1\">\n"
          "      <numaplace:request>\n"
          "        <numaplace:spec key=\"hw:numa_nodes\" value=\"1\"/>\n"
          "        <numaplace:spec key=\"hw:cpu_policy\" value=\"dedicated\"/>\n"
          "      </numaplace:request>\n"
          "    </numaplace:numaplace>\n"
          "  </metadata>\n"
          "\n"
          "Request errors (exit 1; Nova's numa_get_constraints):\n"
          "  ImageNUMATopologyAsymmetric        hw:numa_nodes alone, and the vCPUs or memory do not divide\n"
          "  ImageNUMATopologyIncomplete        explicit cells need hw:numa_cpus.N and hw:numa_mem.N for each N\n"
          "  ImageNUMATopologyCPUOutOfRange     a vCPU beyond the guest\n"
          "  ImageNUMATopologyCPUDuplicates     a vCPU given twice\n"
          "  ImageNUMATopologyCPUsUnassigned    a vCPU left out\n"
          "  ImageNUMATopologyMemoryOutOfRange  the cells' memory does not add up\n"
          "  ImageNUMATopologyForbidden         an image property that the flavor already sets\n"
          "  InvalidNUMANodesNumber             a bad hw:numa_nodes count\n"
          "  LockMemoryForbidden                hw:locked_memory without hw:mem_page_size (or a\n"
          "                                     numaplace:mem_page_size.I for every cell)\n"
          "  ImageVCPULimitsRangeExceeded       an image hw_cpu_max_* above the flavor's hw:cpu_max_*\n"
          "  ImageVCPUTopologyRangeExceeded     a preferred hw:cpu_sockets/_cores/_threads above its limit\n"
          "  ImageVCPULimitsRangeImpossible     no sockets x cores x threads within the limits is the vCPUs\n"
          "  CpuTopologyUnsatisfiable           the preferred values or the guest cells rule every topology out\n"
          "  UnknownSpecKey                     a misspelt key (hw:numa_node, hw:cpu-policy), or an hw: key\n"
          "                                     Nova's API does not know; the message names the key meant\n"
          "\n"
          "What place writes (every other element and attribute is kept):\n"
          "  <vcpu placement='static' cpuset='...'>: every host CPU the guest may use\n"
          "  <cputune>: one <vcpupin> per vCPU onto the CPUs of its host cell (never a pCPU another guest\n"
          "    holds), and <emulatorpin> (with hw:cpu_realtime: the pCPUs of the non-realtime vCPUs, or the\n"
          "    isolated emulator pCPU); each <iothreadpin> kept within the emulator's pCPUs (moved onto them\n"
          "    when it shares none); hw:cpu_realtime adds <vcpusched vcpus scheduler='fifo' priority='1'>\n"
          "    for the realtime vCPUs; other cputune children (shares, ...) stay\n"
          "  <memoryBacking>: <locked/> for hw:locked_memory, <locked/> and <nosharepages/> for realtime\n"
          "    (a warning when no <memtune><hard_limit> bounds the locked memory; <memtune> is never written)\n"
          "  <cpu><topology sockets dies='1' cores threads>: when a hw:cpu_sockets ... key is given\n"
          "  <numatune>: <memory nodeset='...'> and one <memnode> per guest cell, in the operator's mode\n"
          "    (strict where none was given)\n"
          "  <cpu><numa>: one <cell id cpus memory unit='KiB'> per guest cell (no cpus on a memory-only cell,\n"
          "    hw:numa_cpus.N=), with <distances> copied from the\n"
          "    host's distances between the chosen cells (omitted when the host reports none); attributes the\n"
          "    operator put on an existing cell (memAccess, discard, ...) are kept\n"
          "  <metadata><numaplace:numaplace> (namespace https://numaplace.dev/xmlns/domain/1): the request\n"
          "    (<numaplace:spec key value>, <numaplace:image-prop key value>), the placement record (one\n"
          "    <numaplace:cell guest host vcpus host-cpus pins memory-kib pagesize-kib reserved-cpus\n"
          "    isolated-cpus> per guest cell), the operator's own constraints (<numaplace:constraints>), and\n"
          "    what place wrote besides the placement (<numaplace:tuning>: the realtime <vcpusched>, <locked/>,\n"
          "    <nosharepages/>, <topology>, and the operator's elements they changed, as they were)\n"
          "Running place on its own output gives the same output. Placing again with another request takes\n"
          "back what the earlier one had written and the new one does not ask for, never what the operator\n"
          "wrote: an operator's <vcpusched> of a vCPU that becomes realtime comes back when it no longer is.\n"
          "\n"
          "The operator's constraints:\n"
          "An existing <vcpu cpuset>, <vcpupin>, <emulatorpin>, <iothreadpin>, <numatune> mode or nodeset,\n"
          "<memnode> or memory device <nodemask> is honoured (the placement works within it) or refused by\n"
          "name (ConflictingPin, ConflictingConstraint, PinBeyondHost; exit 1); absurd values are named errors\n"
          "with nothing written. The table is in docs/accounting.md of the sources, \"The operator's\n"
          "constraints\".\n"
          "\n"
          "Placing again (placement/lifecycle/replacement.h):\n"
          "Placing again moves only what must move. When the domain carries a placement record for the\n"
          "request being placed (from its metadata, or the same --spec options), that record is the starting\n"
          "point, whatever the strategy: if every guest cell still fits its recorded host cell with its\n"
          "recorded pins (the pCPUs, and for isolate their sibling threads, free; the emulator pCPU free; its\n"
          "page pool and the cell's capacity holding), nothing changes (\"the recorded placement still holds;\n"
          "kept it unchanged\"); if some pins are taken by guests placed since, only those guest cells are\n"
          "pinned again, on the same host cells, and the others keep their pins (\"re-pinned guest cells 0 on\n"
          "their recorded host cells (... pCPUs 0 are held by another guest now)\"); only when a guest cell no\n"
          "longer fits its host cell is the guest placed afresh (\"the recorded placement no longer fits (...);\n"
          "placed afresh\"). A kept cell's floating vCPUs float over what its host cell leaves floating guests\n"
          "now; where the record said other CPUs (a dedicated guest took or gave back pCPUs of the cell, the\n"
          "operator changed the shared set, or edited the record) that is said (\"kept its host cells and pins\n"
          "(guest cell 0 floats on 0-7, not the recorded 0-1)\").\n"
          "define, start and the hook's restore and migrate go the same way; --json and the\n"
          "C ABI's placement JSON say \"replacement\": {\"kind\": \"kept\"|\"repinned\"|\"moved\"|\"fresh\",\n"
          "\"repinned_cells\", \"why\", \"refreshed\"}. --fresh skips the record.\n"
          "\n"
          "What the domain itself says:\n"
          "Its <memory> includes its memory devices (DIMMs, NVDIMMs, virtio-mem), which libvirt adds on top of\n"
          "the guest cells, so the cells share <memory> less those devices; a domain without <memory> takes it\n"
          "from its <cpu><numa> cells, as libvirt does. A domain backed by one huge page size\n"
          "(<memoryBacking><hugepages> without per-cell nodeset) asks for that page size when the request\n"
          "names none: the fit counts the host's free pages of that size, and the output's <page> names every\n"
          "guest cell. Per-cell <page nodeset> elements are the operator's and stay (less guest cells the new\n"
          "topology lacks, which libvirt would refuse), with a warning that their pages are not checked;\n"
          "hw:mem_page_size has them checked.\n"
          "\n"
          "Guests without a NUMA topology:\n"
          "A guest with no hw:numa_nodes, no dedicated or mixed policy and no page size is not given a NUMA\n"
          "topology; it is confined instead, Kubernetes TopologyManager style: the vCPUs (shared capacity\n"
          "under the CPU ratio, over the CPUs no dedicated guest holds), the memory (what is physically free in\n"
          "small pages, never more than the RAM ratio allows; huge pages of the domain's <hugepages> size,\n"
          "exactly), each <hostdev> PCI device (its own NUMA node) and each vCPU the operator pinned offer\n"
          "hints, merged under --policy (default best-effort). The result is written as <vcpu cpuset> plus\n"
          "<numatune><memory nodeset>. A guest whose device sits on cell 1 lands on cell 1 when it fits there;\n"
          "when it cannot, best-effort takes the best wider mask (always one that holds the memory) and\n"
          "restricted / single-numa-node refuse with PolicyRefused and the reason (exit 1). When no set of\n"
          "cells holds the memory the guest is NoFit (exit 3), never bound where it would be OOM-killed.\n"
          "--policy none leaves the guest unconfined, though still off the pCPUs dedicated guests hold. The\n"
          "operator's <vcpupin> and <emulatorpin> are kept within the confinement, each with a warning on\n"
          "stderr. --json shows every resource's hints and why the merged mask won.\n"
          "\n"
          "Guests already on the host:\n"
          "With a libvirt host (--connect, or the default) the domains on the connection are read as claims:\n"
          "running ones always, defined ones placed by numaplace with --include-defined (their record reserves\n"
          "their cells). --claim FILE adds a domain XML by hand (useful with --capabilities). A claim is what\n"
          "libvirt enforces (every vCPU, emulator and iothread with where it may run, memory and memory devices\n"
          "where they are bound, <hostdev> and <interface type='hostdev'> devices) plus what numaplace's record\n"
          "adds (the isolated emulator pCPU, isolate's siblings, a confinement's memory per cell); see\n"
          "docs/accounting.md. The guest being placed never counts against itself (same name or uuid). When a\n"
          "dedicated guest takes pCPUs other guests float over, place names their threads (\"narrowings\" in\n"
          "--json) and define/start move them off, live and persistently, before the guest is defined or\n"
          "started; a guest that would be left with no pCPU refuses the new one (WouldStarveGuest, exit 3).\n"
          "\n"
          "Host configuration:\n"
          "--host-config FILE, else /etc/numaplace/numaplace.conf (or $NUMAPLACE_CONFIG) when the host is this\n"
          "machine (a bare --hwloc, a local libvirt URI): Nova's cpu_dedicated_set, cpu_shared_set,\n"
          "cpu_allocation_ratio, ram_allocation_ratio, reserved_huge_pages, and reserved_cpus, reserved_memory,\n"
          "accounting; the file's format is in docs/accounting.md, \"Host configuration\"\n"
          "(np_host_apply_config in the C ABI).\n"
          "\n") +
      kHostSourcesHelp +
      std::string(
          "\n"
          "\n"
          "Output:\n"
          "The rewritten XML on stdout, or with -o FILE in FILE (a temporary file beside it, then a rename: all\n"
          "or nothing). --json prints {\"placement\", \"confinement\", \"rejections\", \"replacement\", \"narrowings\",\n"
          "\"xml\"} (with --explain also \"explanation\") and on an error {\"error\": {\"name\", \"message\"}}. Warnings\n"
          "and what changed go to stderr.\n"
          "\n"
          "Explanation (--explain):\n"
          "On stderr, for every guest cell and host cell, why it fits (score, utilization) or not (resource,\n"
          "asked, free, who holds the cell), the chosen assignment, and when two assignments fit a runner-up:\n"
          "line with its score and distance sum; why: says whether the chosen one won on score, on distance, or\n"
          "on Nova's order. A refusal lists every pair with its reason and ends \"refused: nothing fits: ...\".\n"
          "--explain --json adds \"explanation\": computed (false, and nothing else, when no fit was run: a guest\n"
          "without a NUMA topology or a kept placement), strategy, scoring (the strategy that scored the pairs:\n"
          "adaptive's choice), host_order, pairs (every pair: fits, score, cpu_percent, memory_percent or\n"
          "reason, held_by), rejections (the pairs that do not fit), chosen and runner_up (cells, score,\n"
          "distance_sum), verdict, search_nodes, capped; with an error, next to \"error\". How the strategies\n"
          "score: docs/strategies.md of the sources.\n"
          "\n"
          "Exit codes: 0 placed; 1 bad input (a named error on stderr: the request, the XML, the operator's\n"
          "constraints, PolicyRefused, InvalidPciAddress ...); 2 usage or an unreadable file (and\n"
          "FreeMemoryUnavailable); 3 the guest does not fit (NoFit, WouldStarveGuest, PciDeviceHeld); 4 the\n"
          "host could not be read (or libvirt or libnuma not available), or a running guest's XML or status\n"
          "file could not be (RunningGuestsUnknown: what it holds is unknown). Nothing is written when an\n"
          "error occurs.\n"
          "Examples:\n"
          "  numaplace place examples/guest-8vcpu-4g.xml --connect test:///default --spec hw:numa_nodes=2 \\\n"
          "      --spec hw:numa_cpus.0=0-5 --spec hw:numa_cpus.1=6,7 \\\n"
          "      --spec hw:numa_mem.0=3072 --spec hw:numa_mem.1=1024 -o placed.xml\n"
          "  virsh -c test:///default define --validate placed.xml\n"
          "  numaplace place examples/guest-8vcpu-4g.xml   # this machine; no NUMA keys: \"confined to host cells ...\"\n"
          "  numaplace place examples/guest-8vcpu-4g.xml --spec hw:numa_nodes=2 \\\n"
          "      --capabilities tests/data/samples/libvirt/caps-1cell.xml   # NoFit, exit 3\n"
          "  numaplace place vm.xml --hwloc host.xml --claim other.xml --spec hw:cpu_policy=dedicated --json"));
  place->add_option("DOMAIN", options->domain_path, "domain XML file, or - for standard input")->required();
  add_host_options(place, options->host);
  add_request_options(place, options->specs, options->image_props);
  add_claim_options(place, options->claims, options->include_defined, options->host.status_dir);
  add_policy_options(place, options->policy);
  place->add_flag("--fresh", options->fresh,
                  "ignore the placement recorded in the domain and fit from scratch (by default a domain placed "
                  "before keeps its host cells and pins where they still hold, and only what no longer fits moves)");
  place->add_option("--pci", options->pci,
                    "a host PCI device (domain:bus:slot.function, e.g. 0000:3b:00.0) the guest will be given, "
                    "besides its <hostdev> elements (repeatable); its NUMA node constrains the placement, and it is "
                    "recorded in the domain's numaplace request (<numaplace:pci>), so that placing it again keeps "
                    "it and the guest holds it as it holds its <hostdev>s (a later --spec request without it drops it, "
                    "with a warning). "
                    "0000:3b:00.0 or 3b:00.0, either case, a domain of up to 32 bits (10000:e1:00.0); text that is "
                    "no PCI address is InvalidPciAddress (exit 1), an address the host does not have is a warning "
                    "(its locality is unknown), as for a <hostdev>")
      ->allow_extra_args(false);
  place->add_option("-o,--output", options->output_path, "write the XML (with --json, the JSON) to this file instead of stdout (a temporary file, then a rename: all or nothing; a symlink is written through, a replaced file keeps its mode, a FIFO or device is written in place)")
      ->check(not_empty_file_name());
  add_strategy_options(place, options->strategy);
  place->add_flag("--explain", options->explain,
                  "say why each host cell can or cannot take each guest cell and why the chosen assignment won "
                  "(on stderr; with --json under \"explanation\")");
  place->add_flag("--json", options->json,
                  "print {placement, confinement, rejections, replacement, narrowings, xml} as JSON (errors too) for "
                  "programs; narrowings: the other guests' threads that would have to leave the pCPUs a dedicated "
                  "guest takes (define and start move them)");
  return {place, [options] { return run_place(*options); }};
}

}  // namespace numaplace::cli
