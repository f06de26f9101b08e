// SPDX-License-Identifier: LGPL-2.1-or-later
// The fast fit API of numaplace.h (np_derive, np_request_*, np_fit, np_fit_hosts, np_fit_hosts_cells, np_fit_packed_hosts,
// np_fit_claim, np_host_release) over the C++ fit: no domain XML, a host and a request read once. Every entry
// point runs in the one exception guard (handles.h).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "placement/fit/pci_pools.h"
#include "placement/fit/strategy.h"
#include "placement/request/guest_topology.h"
#include "plugin/capi/handles.h"
#include "plugin/service/fit_json.h"
#include "plugin/service/json_text.h"
#include "plugin/sources/host_cells.h"

using namespace numaplace::capi;

namespace {

using numaplace::Result;

// The options of np_fit: the fit's own only.
Result<numaplace::FitOptions> fit_options(const np_pair* options, std::size_t count) {
  numaplace::FitOptions fit;
  fit.strategy = numaplace::kDefaultStrategy;  // np_place's and the CLI's
  if (count == 0) return fit;
  auto map = to_map(options, count, "options");
  if (!map) return map.error();
  FitOptionsGiven given;
  for (const auto& [key, value] : *map) {
    auto handled = fit_option(key, value, fit, given);
    if (!handled) return handled.error();
    if (!*handled) {
      return numaplace::make_error("InvalidArgument", "unknown fit option '" + key +
                                                          "'; known: strategy, cell_order, ratio_shape, ratio_weights");
    }
  }
  return check_fit_options(fit, given);
}

// The answer of one fit, as JSON text.
std::string fit_answer(const numaplace::HostTopology& host, const np_request& request,
                       const numaplace::FitOptions& options, numaplace::FitResult* kept = nullptr) {
  if (!request.topology) return numaplace::plugin::no_topology_answer_text();
  numaplace::FitResult result = numaplace::fit_guest(host, *request.topology, options);
  std::string text = numaplace::plugin::fit_answer_text(result);
  if (kept != nullptr) *kept = std::move(result);
  return text;
}

// What a fitted guest holds, as a claim: per cell its pins, the pCPUs it holds without a vCPU
// (the emulator's, isolate's siblings), its floating vCPUs and its memory (huge pages by size).
numaplace::GuestClaim claim_of(const numaplace::Placement& placement, const std::string& name) {
  numaplace::GuestClaim claim;
  claim.name = name;
  claim.placed_by_numaplace = true;
  for (const auto& cell : placement.cells) {
    numaplace::CellClaim held;
    held.host_cell = cell.host_cell;
    for (const auto& [vcpu, pcpu] : cell.pinning) held.pinned_cpus.insert(pcpu);
    held.reserved_cpus = cell.cpuset_reserved.united(cell.isolated_cpus);
    held.shared_vcpus = static_cast<double>(cell.guest_cpus.size() - cell.pinning.size());
    // As a domain's claim reads it (xml/domain_claims.cpp): pages above 4 KiB by size, else memory.
    if (cell.pagesize_kib > 4) {
      const auto page = static_cast<std::uint64_t>(cell.pagesize_kib);
      held.pages[page] += (cell.memory_kib + page - 1) / page;
    } else {
      held.memory_kib = cell.memory_kib;
    }
    claim.cells.push_back(std::move(held));
  }
  return claim;
}

// The PCI devices the fitted guest is given on its chosen cells, by address, as its claim holds
// them (a device without an address cannot be held by one, and is not named).
std::vector<std::string> devices_given(const numaplace::HostTopology& host, const numaplace::GuestTopology& guest,
                                       const numaplace::Placement& placement) {
  if (guest.pci_requests.empty()) return {};
  std::vector<bool> chosen(host.cells.size(), false);
  for (const auto& cell : placement.cells) {
    for (std::size_t i = 0; i < host.cells.size(); ++i) chosen[i] = chosen[i] || host.cells[i].id == cell.host_cell;
  }
  std::vector<std::string> addresses;
  for (const numaplace::PciDevice* device : numaplace::pci_devices_given(host, numaplace::pci_demands(host, guest), chosen)) {
    if (!device->address.empty()) addresses.push_back(device->address);
  }
  return addresses;
}

np_status adopt_request(numaplace::Result<numaplace::plugin::FitRequest> read, np_request** request,
                        np_error** error) {
  if (!read) return fail(error, read.error());
  auto made = std::make_unique<np_request>();
  made->topology = std::move(*read);
  made->topology_json = numaplace::plugin::json_text(numaplace::plugin::guest_topology_json(made->topology));
  *request = made.release();
  return NP_OK;
}

Result<numaplace::plugin::FitRequest> request_from_specs(unsigned int vcpus, unsigned long long memory_mib,
                                                         const np_pair* specs, std::size_t spec_count,
                                                         const np_pair* image_props, std::size_t image_prop_count) {
  if (vcpus == 0) return numaplace::make_error("InvalidArgument", "vcpus is 0");
  // The JSON request's limit: a guest's vCPU ids are CPU ids (a vCPU list of billions would be built).
  if (vcpus > numaplace::kMaxCpuId + 1) {
    return numaplace::make_error("InvalidArgument", "vcpus is " + std::to_string(vcpus) + ", above " +
                                                        std::to_string(numaplace::kMaxCpuId + 1));
  }
  if (memory_mib == 0) return numaplace::make_error("InvalidArgument", "memory_mib is 0");
  if (memory_mib > (1ULL << 40)) return numaplace::make_error("InvalidArgument", "memory_mib is above 2^40");
  auto flavor = to_map(specs, spec_count, "specs");
  if (!flavor) return flavor.error();
  auto image = to_map(image_props, image_prop_count, "image_props");
  if (!image) return image.error();
  numaplace::GuestRequest guest;
  guest.vcpus = vcpus;
  guest.memory_kib = static_cast<std::uint64_t>(memory_mib) * 1024;
  guest.flavor_specs = std::move(*flavor);
  guest.image_props = std::move(*image);
  return numaplace::derive_guest_topology(guest);
}

}  // namespace

extern "C" {

np_status np_derive(unsigned int vcpus, unsigned long long memory_mib, const np_pair* specs, size_t spec_count,
                    const np_pair* image_props, size_t image_prop_count, char** topology_json, np_error** error) {
  return guarded(error, [&]() -> np_status {
    if (topology_json == nullptr) return invalid_argument(error, "the char** out parameter is NULL");
    *topology_json = nullptr;
    auto derived = request_from_specs(vcpus, memory_mib, specs, spec_count, image_props, image_prop_count);
    if (!derived) return fail(error, derived.error());
    *topology_json = copy_string(numaplace::plugin::json_text(numaplace::plugin::guest_topology_json(*derived)));
    return NP_OK;
  });
}

np_status np_request_from_json(const char* json, np_request** request, np_error** error) {
  return guarded(error, [&]() -> np_status {
    if (request == nullptr) return invalid_argument(error, "the np_request** out parameter is NULL");
    *request = nullptr;
    if (json == nullptr) return invalid_argument(error, "the request JSON is NULL");
    return adopt_request(numaplace::plugin::fit_request_from_json_text(json), request, error);
  });
}

np_status np_request_from_specs(unsigned int vcpus, unsigned long long memory_mib, const np_pair* specs,
                                size_t spec_count, const np_pair* image_props, size_t image_prop_count,
                                np_request** request, np_error** error) {
  return guarded(error, [&]() -> np_status {
    if (request == nullptr) return invalid_argument(error, "the np_request** out parameter is NULL");
    *request = nullptr;
    return adopt_request(request_from_specs(vcpus, memory_mib, specs, spec_count, image_props, image_prop_count),
                         request, error);
  });
}

const char* np_request_topology_json(const np_request* request) {
  return request != nullptr ? request->topology_json.c_str() : "";
}

void np_request_free(np_request* request) { delete request; }

np_status np_fit(const np_host* host, const np_request* request, const np_pair* options, size_t option_count,
                 char** answer_json, np_error** error) {
  return guarded(error, [&]() -> np_status {
    if (answer_json == nullptr) return invalid_argument(error, "the char** out parameter is NULL");
    *answer_json = nullptr;
    if (host == nullptr) return invalid_argument(error, "the host is NULL");
    if (request == nullptr) return invalid_argument(error, "the request is NULL");
    auto fit = fit_options(options, option_count);
    if (!fit) return fail(error, fit.error());
    std::shared_lock read(host->lock);
    *answer_json = copy_string(fit_answer(host->effective(), *request, *fit));
    return NP_OK;
  });
}

np_status np_fit_hosts(const np_host* const* hosts, size_t host_count, const np_request* request,
                       const np_pair* options, size_t option_count, char** answers_json, np_error** error) {
  return guarded(error, [&]() -> np_status {
    if (answers_json == nullptr) return invalid_argument(error, "the char** out parameter is NULL");
    *answers_json = nullptr;
    if (host_count > 0 && hosts == nullptr) return invalid_argument(error, "the host array is NULL");
    if (request == nullptr) return invalid_argument(error, "the request is NULL");
    for (std::size_t i = 0; i < host_count; ++i) {
      if (hosts[i] == nullptr) return invalid_argument(error, "host " + std::to_string(i) + " is NULL");
    }
    auto fit = fit_options(options, option_count);
    if (!fit) return fail(error, fit.error());
    std::string out = "[";
    for (std::size_t i = 0; i < host_count; ++i) {
      std::shared_lock read(hosts[i]->lock);
      if (i > 0) out += ',';
      out += fit_answer(hosts[i]->effective(), *request, *fit);
    }
    out += ']';
    *answers_json = copy_string(out);
    return NP_OK;
  });
}

np_status np_fit_hosts_cells(const np_host* const* hosts, size_t host_count, const np_request* request,
                             const np_pair* options, size_t option_count, unsigned char* fits, long long* host_cells,
                             size_t host_cells_length, np_error** error) {
  return guarded(error, [&]() -> np_status {
    if (fits == nullptr && host_count > 0) return invalid_argument(error, "the fits array is NULL");
    if (host_count > 0 && hosts == nullptr) return invalid_argument(error, "the host array is NULL");
    if (request == nullptr) return invalid_argument(error, "the request is NULL");
    for (std::size_t i = 0; i < host_count; ++i) {
      if (hosts[i] == nullptr) return invalid_argument(error, "host " + std::to_string(i) + " is NULL");
    }
    const std::size_t cells = np_request_cell_count(request);
    if (host_cells != nullptr && cells > 0 && host_cells_length / cells < host_count) {
      return invalid_argument(error, "host_cells holds " + std::to_string(host_cells_length) + " entries; " +
                                         std::to_string(host_count) + " hosts of " + std::to_string(cells) +
                                         " guest cells need " + std::to_string(host_count * cells));
    }
    auto fit = fit_options(options, option_count);
    if (!fit) return fail(error, fit.error());
    fit->reasons = false;  // verdicts and cells only: no pair's reason is written
    // Made apart and copied out at the end, so that a failure half-way writes nothing.
    std::vector<unsigned char> fitted(host_count, 1);
    std::vector<long long> chosen(host_cells != nullptr ? host_count * cells : 0, -1);
    if (request->topology) {
      for (std::size_t i = 0; i < host_count; ++i) {
        numaplace::FitResult result;
        {
          std::shared_lock read(hosts[i]->lock);
          result = numaplace::fit_guest(hosts[i]->effective(), *request->topology, *fit);
        }
        fitted[i] = result.placement ? 1 : 0;
        if (!result.placement || chosen.empty()) continue;
        for (const auto& placed : result.placement->cells) {
          if (placed.guest_cell < cells) chosen[i * cells + placed.guest_cell] = static_cast<long long>(placed.host_cell);
        }
      }
    }
    std::copy(fitted.begin(), fitted.end(), fits);
    std::copy(chosen.begin(), chosen.end(), host_cells);
    return NP_OK;
  });
}

np_status np_fit_packed_hosts(const void* const* words, const size_t* word_counts, const double* ratios,
                              size_t host_count, const np_request* request, const np_pair* options, size_t option_count,
                              unsigned char* fits, np_host** made, np_error** error) {
  static_assert(sizeof(long long) == sizeof(std::int64_t));
  return guarded(error, [&]() -> np_status {
    if (request == nullptr) return invalid_argument(error, "the request is NULL");
    if (host_count == 0) return NP_OK;
    if (fits == nullptr) return invalid_argument(error, "the fits array is NULL");
    if (words == nullptr || word_counts == nullptr) return invalid_argument(error, "the words or word_counts array is NULL");
    if (ratios == nullptr) return invalid_argument(error, "the ratios array is NULL");
    for (std::size_t i = 0; i < host_count; ++i) {
      if (words[i] == nullptr && word_counts[i] != 0) return invalid_argument(error, "the words of host " + std::to_string(i) + " are NULL");
    }
    auto fit = fit_options(options, option_count);
    if (!fit) return fail(error, fit.error());
    fit->reasons = false;  // verdicts only: no pair's reason is written
    std::vector<unsigned char> fitted(host_count, 1);
    std::vector<std::unique_ptr<np_host>> hosts(made != nullptr ? host_count : 0);  // handed over at the end
    std::vector<std::int64_t> aligned;  // the words of a host handed over unaligned (from a byte buffer)
    numaplace::HostTopology host;       // each host in turn, read into the last one's memory
    for (std::size_t i = 0; i < host_count; ++i) {
      const std::int64_t* first = nullptr;
      if (reinterpret_cast<std::uintptr_t>(words[i]) % alignof(std::int64_t) == 0) {
        first = static_cast<const std::int64_t*>(words[i]);
      } else {
        aligned.resize(word_counts[i]);
        std::memcpy(aligned.data(), words[i], word_counts[i] * sizeof(std::int64_t));
        first = aligned.data();
      }
      if (!numaplace::plugin::read_host_cells({first, word_counts[i]}, ratios[2 * i], ratios[2 * i + 1], host)) {
        fitted[i] = 2;
        continue;
      }
      if (request->topology) fitted[i] = numaplace::fit_guest(host, *request->topology, *fit).placement ? 1 : 0;
      if (made != nullptr) hosts[i] = host_handle(std::move(host));  // the next host is read into a new one
    }
    std::copy(fitted.begin(), fitted.end(), fits);
    for (std::size_t i = 0; i < hosts.size(); ++i) made[i] = hosts[i].release();
    return NP_OK;
  });
}

size_t np_request_cell_count(const np_request* request) {
  return request != nullptr && request->topology ? request->topology->cells.size() : 0;
}

np_status np_fit_claim(np_host* host, const np_request* request, const char* guest_name, const np_pair* options,
                       size_t option_count, char** answer_json, np_error** error) {
  return guarded(error, [&]() -> np_status {
    if (answer_json == nullptr) return invalid_argument(error, "the char** out parameter is NULL");
    *answer_json = nullptr;
    if (host == nullptr) return invalid_argument(error, "the host is NULL");
    if (request == nullptr) return invalid_argument(error, "the request is NULL");
    if (auto problem = guest_name_problem(guest_name)) return invalid_argument(error, *problem);
    auto fit = fit_options(options, option_count);
    if (!fit) return fail(error, fit.error());
    std::unique_lock write(host->lock);
    numaplace::FitResult result;
    std::string answer = fit_answer(host->effective(), *request, *fit, &result);
    char* out = copy_string(answer);
    if (result.placement) {
      try {
        numaplace::GuestClaim claim = claim_of(*result.placement, guest_name);
        claim.pci_devices = devices_given(host->effective(), *request->topology, *result.placement);
        if (!host->with_claims) host->with_claims = host->topology;  // first: a failed copy counts no claim
        host->claims.push_back(claim);
        numaplace::apply_claims(*host->with_claims, {claim});
      } catch (...) {
        std::free(out);
        throw;
      }
    }
    *answer_json = out;
    return NP_OK;
  });
}

np_status np_host_release(np_host* host, const char* guest_name, np_error** error) {
  return guarded(error, [&]() -> np_status {
    if (host == nullptr) return invalid_argument(error, "the host is NULL");
    if (auto problem = guest_name_problem(guest_name)) return invalid_argument(error, *problem);
    std::unique_lock write(host->lock);
    auto of_guest = [&](const numaplace::GuestClaim& claim) {
      return numaplace::is_same_guest(guest_name, "", claim.name, claim.uuid);
    };
    if (std::none_of(host->claims.begin(), host->claims.end(), of_guest)) {
      return invalid_argument(error, std::string("the host holds no claim of guest '") + guest_name + "'");
    }
    host->claims.erase(std::remove_if(host->claims.begin(), host->claims.end(), of_guest), host->claims.end());
    refresh(*host);
    return NP_OK;
  });
}

}  // extern "C"
