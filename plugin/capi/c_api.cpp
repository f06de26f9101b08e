// SPDX-License-Identifier: LGPL-2.1-or-later
// The C ABI of plugin/capi/include/numaplace.h over the C++ core. Every entry point
// catches everything (an exception never crosses the boundary) and turns core
// Errors into np_error values; handles own plain C++ values and nothing global.
#include "numaplace.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <new>
#include <shared_mutex>
#include <string>
#include <vector>

#include "placement/lifecycle/claims.h"
#include "plugin/sources/host_claims.h"
#include "plugin/sources/host_config_file.h"
#include "plugin/sources/host_json.h"
#include "plugin/sources/hwloc_source.h"
#include "plugin/sources/libvirt_connection.h"
#include "plugin/sources/libvirt_domains.h"
#include "plugin/sources/libvirt_host.h"
#include "plugin/capi/error_status.h"
#include "plugin/service/place_domain.h"
#include "plugin/service/fit_json.h"
#include "plugin/service/placement_json.h"
#include "xml/capabilities_reader.h"
#include "xml/domain_reader.h"
#include "xml/xml_document.h"
#include "placement/model/text_items.h"

struct np_error {
  np_status status = NP_ERR_INTERNAL;
  std::string name;
  std::string message;
};

struct np_host {
  numaplace::HostTopology topology;             // usage as given by the source
  std::vector<numaplace::GuestClaim> claims;    // added with np_host_add_claims and np_fit_claim
  numaplace::HostTopology effective;            // topology with every claim applied (what np_fit sees)
  std::vector<std::string> warnings;            // what the source left out, and why
  mutable std::shared_mutex lock;
};

struct np_request {
  numaplace::plugin::FitRequest topology;  // nullopt: the request asks for no NUMA topology
  std::string topology_json;
};

struct np_result {
  std::string xml;
  std::string placement_json;
  std::string explanation_json;
  bool placed = false;
};

namespace {

using numaplace::Error;
using numaplace::HostTopology;
using numaplace::Result;

// With the status given: only the exception guard uses it (out of memory, a bug), where no Error
// may be built first; everything else goes through fail(out, error), whose status is the kind's.
np_status fail(np_error** out, np_status status, std::string name, std::string message) {
  if (out != nullptr) {
    *out = nullptr;
    try {
      *out = new np_error{status, std::move(name), std::move(message)};
    } catch (...) {
      // Not even the error fits in memory: the status still says what happened.
    }
  }
  return status;
}

np_status fail(np_error** out, const Error& error) {
  return fail(out, numaplace::capi::status_for(error.kind), error.name, error.message);
}

np_status invalid_argument(np_error** out, const std::string& message) {
  return fail(out, numaplace::make_error("InvalidArgument", message));
}

// Runs `body` with every exception turned into an error: the boundary's one guard.
template <typename Body>
np_status guarded(np_error** error, Body&& body) {
  if (error != nullptr) *error = nullptr;
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return fail(error, NP_ERR_NO_MEMORY, "OutOfMemory", "numaplace ran out of memory");
  } catch (const std::exception& e) {
    return fail(error, NP_ERR_INTERNAL, "InternalError", std::string("numaplace internal error: ") + e.what());
  } catch (...) {
    return fail(error, NP_ERR_INTERNAL, "InternalError", "numaplace internal error (unknown exception)");
  }
}

// The host as np_fit sees it: its topology with every claim applied. Called under the host's
// exclusive lock (or before the host is shared) after each change.
void refresh(np_host& host) {
  host.effective = host.topology;
  numaplace::apply_claims(host.effective, host.claims);
}

np_status adopt_host(Result<HostTopology> loaded, np_host** host, np_error** error) {
  if (!loaded) return fail(error, loaded.error());
  auto made = std::make_unique<np_host>();
  made->topology = std::move(*loaded);
  refresh(*made);
  *host = made.release();
  return NP_OK;
}

// Entry points that make a host share their argument checks.
template <typename Load>
np_status make_host(np_host** host, np_error** error, Load&& load) {
  return guarded(error, [&]() -> np_status {
    if (host == nullptr) return invalid_argument(error, "the np_host** out parameter is NULL");
    *host = nullptr;
    return load();
  });
}

Result<numaplace::SpecMap> to_map(const np_pair* pairs, std::size_t count, const char* what) {
  numaplace::SpecMap map;
  if (count > 0 && pairs == nullptr) {
    return numaplace::make_error("InvalidArgument", std::string(what) + " is NULL but its count is " + std::to_string(count));
  }
  for (std::size_t i = 0; i < count; ++i) {
    if (pairs[i].key == nullptr || pairs[i].value == nullptr || pairs[i].key[0] == '\0') {
      return numaplace::make_error("InvalidArgument", std::string(what) + "[" + std::to_string(i) +
                                                          "] has a NULL or empty key, or a NULL value");
    }
    if (!map.emplace(pairs[i].key, pairs[i].value).second) {
      return numaplace::make_error("InvalidArgument",
                                   std::string(what) + " gives '" + pairs[i].key + "' twice; give it once");
    }
  }
  return map;
}

// The placement options of np_place, by name (numaplace.h lists them). Unknown names and
// bad values are named errors; nothing is guessed.
struct PlacementOptions {
  numaplace::FitOptions fit;
  numaplace::DefaultPlacementOptions floating;
  std::vector<std::string> pci_addresses;
};

Result<bool> boolean_option(const std::string& key, const std::string& value) {
  if (value == "true" || value == "1" || value == "yes") return true;
  if (value == "false" || value == "0" || value == "no") return false;
  return numaplace::make_error("InvalidArgument", "option " + key + " is '" + value + "'; use true or false");
}

// One option of the fit itself (strategy, cell_order, ratio_shape, ratio_weights) into `fit`;
// false when `key` is none of them.
struct FitOptionsGiven {
  bool strategy = false;
  bool ratio_shape = false;
};

Result<bool> fit_option(const std::string& key, const std::string& value, numaplace::FitOptions& fit,
                        FitOptionsGiven& given) {
  if (key == "cell_order") {
    if (value == "pack") {
      fit.pack_host_cells = true;
    } else if (value != "spread") {
      return numaplace::make_error("InvalidArgument", "option cell_order is '" + value + "'; use spread or pack");
    }
  } else if (key == "strategy") {
    auto strategy = numaplace::strategy_from_name(value);
    if (!strategy) return strategy.error();
    fit.strategy = *strategy;
    given.strategy = true;
  } else if (key == "ratio_shape") {
    auto shape = numaplace::parse_ratio_shape(value);
    if (!shape) return shape.error();
    fit.ratio_shape = std::move(*shape);
    given.ratio_shape = true;
  } else if (key == "ratio_weights") {
    auto weights = numaplace::parse_resource_weights(value);
    if (!weights) return weights.error();
    fit.weights = *weights;
  } else {
    return false;
  }
  return true;
}

// The options that only go together: Nova's packing order is an order of Nova's first fit (as the
// CLI's --pack: alone it means strategy nova), a ratio shape is the ratio strategy's.
Result<numaplace::FitOptions> check_fit_options(numaplace::FitOptions fit, const FitOptionsGiven& given) {
  if (fit.pack_host_cells) {
    if (given.strategy && fit.strategy != numaplace::Strategy::Nova) {
      return numaplace::make_error("InvalidArgument", "option cell_order=pack is Nova's packing order; it goes with "
                                                      "strategy=nova, not strategy=" + numaplace::to_string(fit.strategy));
    }
    fit.strategy = numaplace::Strategy::Nova;
  }
  if (given.ratio_shape && fit.strategy != numaplace::Strategy::Ratio) {
    return numaplace::make_error("InvalidArgument", "option ratio_shape goes with strategy=ratio");
  }
  return fit;
}

Result<PlacementOptions> placement_options(const numaplace::SpecMap& options) {
  PlacementOptions out;
  out.fit.strategy = numaplace::kDefaultStrategy;  // the same default as the CLI's
  FitOptionsGiven given;
  for (const auto& [key, value] : options) {
    auto handled = fit_option(key, value, out.fit, given);
    if (!handled) return handled.error();
    if (*handled) continue;
    if (key == "policy") {
      auto policy = numaplace::topology_policy_from_name(value);
      if (!policy) return policy.error();
      out.floating.policy = *policy;
    } else if (key == "prefer_closest") {
      auto flag = boolean_option(key, value);
      if (!flag) return flag.error();
      out.floating.prefer_closest_numa_nodes = *flag;
    } else if (key == "pci") {
      for (std::string_view raw : numaplace::split_items(value)) {
        std::string item(raw);
        item.erase(0, item.find_first_not_of(" \t"));
        item.erase(item.find_last_not_of(" \t") + 1);
        if (!item.empty()) {
          auto address = numaplace::plugin::pci_address(item);
          if (!address) {
            return numaplace::make_error(address.error().name, "option pci (addresses separated by commas): " +
                                                                   address.error().message);
          }
          out.pci_addresses.push_back(std::move(*address));
        }
      }
    } else {
      return numaplace::make_error("InvalidArgument",
                                   "unknown placement option '" + key +
                                       "'; known: strategy, cell_order, ratio_shape, ratio_weights, policy, "
                                       "prefer_closest, pci");
    }
  }
  auto fit = check_fit_options(out.fit, given);
  if (!fit) return fit.error();
  out.fit = *fit;
  return out;
}

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

np_status adopt_request(numaplace::Result<numaplace::plugin::FitRequest> read, np_request** request,
                        np_error** error) {
  if (!read) return fail(error, read.error());
  auto made = std::make_unique<np_request>();
  made->topology = std::move(*read);
  made->topology_json = numaplace::plugin::guest_topology_json(made->topology).dump();
  *request = made.release();
  return NP_OK;
}

Result<numaplace::plugin::FitRequest> request_from_specs(unsigned int vcpus, unsigned long long memory_mib,
                                                         const np_pair* specs, std::size_t spec_count,
                                                         const np_pair* image_props, std::size_t image_prop_count) {
  if (vcpus == 0) return numaplace::make_error("InvalidArgument", "vcpus is 0");
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

// An hwloc export given as text goes through a private temporary file: hwloc_source reads files.
Result<HostTopology> load_hwloc_text(const char* text) {
  std::error_code ec;
  std::string pattern = (std::filesystem::temp_directory_path(ec) / "numaplace-hwloc-XXXXXX").string();
  if (ec) pattern = "/tmp/numaplace-hwloc-XXXXXX";
  std::vector<char> path(pattern.begin(), pattern.end());
  path.push_back('\0');
  const int fd = mkstemp(path.data());
  if (fd < 0) return numaplace::make_error("HostUnavailable", "cannot create a temporary file for the hwloc XML");
  const std::size_t size = std::strlen(text);
  std::size_t written = 0;
  while (written < size) {
    const ssize_t n = write(fd, text + written, size - written);
    if (n <= 0) break;
    written += static_cast<std::size_t>(n);
  }
  close(fd);
  Result<HostTopology> host = numaplace::make_error("HostUnavailable", "cannot write the hwloc XML to a temporary file");
  if (written == size) host = numaplace::plugin::load_hwloc_xml(path.data());
  std::remove(path.data());
  if (!host) {
    // The temporary path in the message means nothing to the caller.
    std::string message = host.error().message;
    const std::string quoted = "hwloc XML '" + std::string(path.data()) + "'";
    for (auto at = message.find(quoted); at != std::string::npos; at = message.find(quoted, at)) {
      message.replace(at, quoted.size(), "the hwloc XML text");
    }
    return numaplace::make_error(host.error().name == "HwlocLoadFailed" ? "InvalidHwlocXml" : host.error().name, message);
  }
  return host;
}

// The host behind `uri` (plugin::load_libvirt_host, as the CLI reads it) and, when asked, the
// claims of its running guests.
struct LibvirtLoad {
  numaplace::plugin::LibvirtHost loaded;
  std::vector<numaplace::GuestClaim> claims;
};
Result<LibvirtLoad> load_libvirt(const std::string& uri, bool running_claims) {
  using namespace numaplace::plugin;
  auto conn = LibvirtConnection::open_read_only(uri);
  if (!conn) return conn.error();
  auto loaded = load_libvirt_host(*conn, false);
  if (!loaded) return loaded.error();
  LibvirtLoad out{std::move(*loaded), {}};
  if (running_claims) {
    auto domains = list_domains(*conn, false);
    if (!domains) return domains.error();
    out.claims = read_host_claims(*domains, out.loaded.host).claims;
  }
  return out;
}

char* copy_string(const std::string& text) {
  char* out = static_cast<char*>(std::malloc(text.size() + 1));
  if (out == nullptr) throw std::bad_alloc();
  std::memcpy(out, text.c_str(), text.size() + 1);
  return out;
}

}  // namespace

extern "C" {

const char* np_version(void) { return NUMAPLACE_VERSION_STRING; }

const char* np_status_name(np_status status) {
  switch (status) {
    case NP_OK: return "NP_OK";
    case NP_ERR_INVALID_ARGUMENT: return "NP_ERR_INVALID_ARGUMENT";
    case NP_ERR_INVALID_INPUT: return "NP_ERR_INVALID_INPUT";
    case NP_ERR_NO_FIT: return "NP_ERR_NO_FIT";
    case NP_ERR_HOST_UNAVAILABLE: return "NP_ERR_HOST_UNAVAILABLE";
    case NP_ERR_NO_MEMORY: return "NP_ERR_NO_MEMORY";
    case NP_ERR_INTERNAL: return "NP_ERR_INTERNAL";
  }
  return "NP_UNKNOWN_STATUS";
}

np_status np_error_status(const np_error* error) { return error != nullptr ? error->status : NP_OK; }
const char* np_error_name(const np_error* error) { return error != nullptr ? error->name.c_str() : ""; }
const char* np_error_message(const np_error* error) { return error != nullptr ? error->message.c_str() : ""; }
void np_error_free(np_error* error) { delete error; }

np_status np_host_from_capabilities_xml(const char* xml, np_host** host, np_error** error) {
  return make_host(host, error, [&] {
    if (xml == nullptr) return invalid_argument(error, "the capabilities XML is NULL");
    return adopt_host(numaplace::xml::read_capabilities(xml), host, error);
  });
}

np_status np_host_from_hwloc_xml(const char* xml, np_host** host, np_error** error) {
  return make_host(host, error, [&] {
    if (xml == nullptr) return invalid_argument(error, "the hwloc XML is NULL");
    return adopt_host(load_hwloc_text(xml), host, error);
  });
}

np_status np_host_from_hwloc_file(const char* path, np_host** host, np_error** error) {
  return make_host(host, error, [&] {
    if (path == nullptr) return invalid_argument(error, "the hwloc XML path is NULL");
    return adopt_host(numaplace::plugin::load_hwloc_xml(path), host, error);
  });
}

np_status np_host_from_this_machine(np_host** host, np_error** error) {
  return make_host(host, error, [&] { return adopt_host(numaplace::plugin::load_hwloc_live(), host, error); });
}

np_status np_host_from_json(const char* json, np_host** host, np_error** error) {
  return make_host(host, error, [&] {
    if (json == nullptr) return invalid_argument(error, "the host JSON is NULL");
    return adopt_host(numaplace::plugin::host_from_json_text(json), host, error);
  });
}

np_status np_host_from_libvirt(const char* uri, unsigned int flags, np_host** host, np_error** error) {
  return make_host(host, error, [&] {
    if (uri == nullptr) return invalid_argument(error, "the libvirt URI is NULL");
    if ((flags & ~NP_LIBVIRT_RUNNING_CLAIMS) != 0) return invalid_argument(error, "unknown flags for np_host_from_libvirt");
    auto loaded = load_libvirt(uri, (flags & NP_LIBVIRT_RUNNING_CLAIMS) != 0);
    if (!loaded) return fail(error, loaded.error());
    np_status status = adopt_host(std::move(loaded->loaded.host), host, error);
    if (status != NP_OK) return status;
    (*host)->claims = std::move(loaded->claims);
    (*host)->warnings = std::move(loaded->loaded.warnings);
    refresh(**host);
    return status;
  });
}

np_status np_host_to_json(const np_host* host, char** json, np_error** error) {
  return guarded(error, [&]() -> np_status {
    if (json == nullptr) return invalid_argument(error, "the char** out parameter is NULL");
    *json = nullptr;
    if (host == nullptr) return invalid_argument(error, "the host is NULL");
    std::shared_lock read(host->lock);
    HostTopology with_claims = host->topology;
    numaplace::apply_claims(with_claims, host->claims);
    nlohmann::json doc = numaplace::plugin::host_to_json(with_claims);
    if (!host->warnings.empty()) doc["warnings"] = host->warnings;
    *json = copy_string(doc.dump());
    return NP_OK;
  });
}

np_status np_host_apply_config(np_host* host, const char* config_text, np_error** error) {
  return guarded(error, [&]() -> np_status {
    if (host == nullptr) return invalid_argument(error, "the host is NULL");
    if (config_text == nullptr) return invalid_argument(error, "the host configuration text is NULL");
    auto config = numaplace::plugin::parse_host_config(config_text, "host configuration");
    if (!config) return fail(error, config.error());
    std::unique_lock write(host->lock);
    if (auto applied = numaplace::apply_host_config(host->topology, *config); !applied) return fail(error, applied.error());
    refresh(*host);
    return NP_OK;
  });
}

void np_string_free(char* text) { std::free(text); }

void np_host_free(np_host* host) { delete host; }

np_status np_host_add_claims(np_host* host, const char* const* domain_xmls, size_t count, np_error** error) {
  return guarded(error, [&]() -> np_status {
    if (host == nullptr) return invalid_argument(error, "the host is NULL");
    if (count > 0 && domain_xmls == nullptr) return invalid_argument(error, "the domain XML array is NULL");
    std::vector<numaplace::plugin::DomainXml> domains;
    for (std::size_t i = 0; i < count; ++i) {
      if (domain_xmls[i] == nullptr) return invalid_argument(error, "domain XML " + std::to_string(i) + " is NULL");
      domains.push_back({"claim " + std::to_string(i), {}, true, domain_xmls[i]});
    }
    std::unique_lock write(host->lock);
    auto read = numaplace::plugin::read_host_claims(domains, host->topology);
    if (!read.warnings.empty()) {
      return fail(error, numaplace::make_error("InvalidClaim", "a claim cannot be read: " + read.warnings.front()));
    }
    for (auto& claim : read.claims) host->claims.push_back(std::move(claim));
    refresh(*host);
    return NP_OK;
  });
}

np_status np_place(const np_host* host, const char* domain_xml, const np_pair* specs, size_t spec_count,
                   const np_pair* image_props, size_t image_prop_count, const np_pair* options, size_t option_count,
                   np_result** result, np_error** error) {
  return guarded(error, [&]() -> np_status {
    if (result == nullptr) return invalid_argument(error, "the np_result** out parameter is NULL");
    *result = nullptr;
    if (host == nullptr) return invalid_argument(error, "the host is NULL");
    if (domain_xml == nullptr) return invalid_argument(error, "the domain XML is NULL");
    auto flavor = to_map(specs, spec_count, "specs");
    if (!flavor) return fail(error, flavor.error());
    auto image = to_map(image_props, image_prop_count, "image_props");
    if (!image) return fail(error, image.error());
    auto option_map = to_map(options, option_count, "options");
    if (!option_map) return fail(error, option_map.error());
    auto placement = placement_options(*option_map);
    if (!placement) return fail(error, placement.error());

    // The guest's own claim (if the host lists it) must not count against it.
    const std::string what = "domain XML";
    auto doc = numaplace::xml::parse_document(domain_xml, what);
    if (!doc) return fail(error, doc.error());
    auto summary = numaplace::xml::read_domain_summary(doc->get(), what);
    if (!summary) return fail(error, summary.error());

    HostTopology placed_on;
    std::vector<numaplace::GuestClaim> others;
    {
      std::shared_lock read(host->lock);
      placed_on = host->topology;
      for (const auto& claim : host->claims) {
        if (!numaplace::is_same_guest(summary->name, summary->uuid, claim.name, claim.uuid)) others.push_back(claim);
      }
      numaplace::apply_claims(placed_on, others);
    }

    numaplace::plugin::PlaceRequest request;
    request.other_guests = &others;
    request.domain_xml = domain_xml;
    request.domain_name_for_errors = what;
    request.flavor_specs = *flavor;
    request.image_props = *image;
    request.fit = placement->fit;
    request.floating = placement->floating;
    request.pci_addresses = placement->pci_addresses;
    auto outcome = numaplace::plugin::place_domain(placed_on, request);
    if (!outcome) return fail(error, outcome.error());

    auto made = std::make_unique<np_result>();
    made->xml = outcome->domain_xml;
    made->placed = outcome->placement.has_value();
    made->placement_json = numaplace::plugin::placement_json(*outcome).dump();
    made->explanation_json = numaplace::plugin::explanation_json(*outcome, *flavor, *image).dump();
    *result = made.release();
    return NP_OK;
  });
}

const char* np_result_xml(const np_result* result) { return result != nullptr ? result->xml.c_str() : ""; }
const char* np_result_placement_json(const np_result* result) {
  return result != nullptr ? result->placement_json.c_str() : "";
}
const char* np_result_explanation_json(const np_result* result) {
  return result != nullptr ? result->explanation_json.c_str() : "";
}
int np_result_placed(const np_result* result) { return result != nullptr && result->placed ? 1 : 0; }
void np_result_free(np_result* result) { delete result; }

np_status np_derive(unsigned int vcpus, unsigned long long memory_mib, const np_pair* specs, size_t spec_count,
                    const np_pair* image_props, size_t image_prop_count, char** topology_json, np_error** error) {
  return guarded(error, [&]() -> np_status {
    if (topology_json == nullptr) return invalid_argument(error, "the char** out parameter is NULL");
    *topology_json = nullptr;
    auto derived = request_from_specs(vcpus, memory_mib, specs, spec_count, image_props, image_prop_count);
    if (!derived) return fail(error, derived.error());
    *topology_json = copy_string(numaplace::plugin::guest_topology_json(*derived).dump());
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
    *answer_json = copy_string(fit_answer(host->effective, *request, *fit));
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
      out += fit_answer(hosts[i]->effective, *request, *fit);
    }
    out += ']';
    *answers_json = copy_string(out);
    return NP_OK;
  });
}

np_status np_fit_claim(np_host* host, const np_request* request, const char* guest_name, const np_pair* options,
                       size_t option_count, char** answer_json, np_error** error) {
  return guarded(error, [&]() -> np_status {
    if (answer_json == nullptr) return invalid_argument(error, "the char** out parameter is NULL");
    *answer_json = nullptr;
    if (host == nullptr) return invalid_argument(error, "the host is NULL");
    if (request == nullptr) return invalid_argument(error, "the request is NULL");
    if (guest_name == nullptr || guest_name[0] == '\0') return invalid_argument(error, "the guest name is NULL or empty");
    auto fit = fit_options(options, option_count);
    if (!fit) return fail(error, fit.error());
    std::unique_lock write(host->lock);
    numaplace::FitResult result;
    std::string answer = fit_answer(host->effective, *request, *fit, &result);
    char* out = copy_string(answer);
    if (result.placement) {
      try {
        numaplace::GuestClaim claim = claim_of(*result.placement, guest_name);
        host->claims.push_back(claim);
        numaplace::apply_claims(host->effective, {claim});
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
    if (guest_name == nullptr || guest_name[0] == '\0') return invalid_argument(error, "the guest name is NULL or empty");
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
