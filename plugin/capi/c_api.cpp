// SPDX-License-Identifier: LGPL-2.1-or-later
// The C ABI of plugin/capi/include/numaplace.h over the C++ core: errors, hosts and np_place (the
// fast fit API is c_api_fit.cpp, what both share handles.h). Every entry point catches everything
// (an exception never crosses the boundary) and turns core Errors into np_error values; handles own
// plain C++ values and nothing global.
#include "numaplace.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <new>
#include <shared_mutex>
#include <span>
#include <string>
#include <vector>

#include "placement/lifecycle/claims.h"
#include "placement/model/utf8_text.h"
#include "plugin/sources/host_cells.h"
#include "plugin/sources/host_claims.h"
#include "plugin/sources/host_config_file.h"
#include "plugin/sources/host_json.h"
#include "plugin/sources/hwloc_source.h"
#include "plugin/sources/libvirt_connection.h"
#include "plugin/sources/libvirt_domains.h"
#include "plugin/sources/libvirt_host.h"
#include "plugin/capi/error_status.h"
#include "plugin/capi/handles.h"
#include "plugin/service/place_domain.h"
#include "plugin/service/fit_json.h"
#include "plugin/service/placement_json.h"
#include "xml/capabilities_reader.h"
#include "xml/domain_reader.h"
#include "xml/xml_document.h"
#include "placement/model/text_items.h"
#include "plugin/service/json_text.h"


using namespace numaplace::capi;

namespace {

using numaplace::Error;
using numaplace::HostTopology;
using numaplace::Result;




np_status adopt_host(Result<HostTopology> loaded, np_host** host, np_error** error) {
  if (!loaded) return fail(error, loaded.error());
  *host = host_handle(std::move(*loaded)).release();
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
          auto address = numaplace::pci_address(item);
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
    HostClaims claims = read_host_claims(*domains, out.loaded.host, {}, {}, numaplace::xml::BeyondHost::CountWithin);
    if (auto known = running_guests_known(claims, "or load the host without its running guests' claims "
                                                  "(NP_LIBVIRT_RUNNING_CLAIMS; running_claims=False in Python) "
                                                  "and add those you can read");
        !known) {
      return known.error();
    }
    out.claims = std::move(claims.claims);
  }
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

np_status np_host_from_cells(const long long* words, size_t word_count, double cpu_ratio, double ram_ratio,
                             const char* pci_json, const char* networks_json, np_host** host, np_error** error) {
  static_assert(sizeof(long long) == sizeof(std::int64_t));
  return make_host(host, error, [&] {
    if (words == nullptr && word_count != 0) return invalid_argument(error, "the cell words are NULL");
    const std::span<const std::int64_t> cells(reinterpret_cast<const std::int64_t*>(words), word_count);
    return adopt_host(numaplace::plugin::host_from_cells(cells, cpu_ratio, ram_ratio, pci_json == nullptr ? "" : pci_json,
                                                         networks_json == nullptr ? "" : networks_json),
                      host, error);
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
    nlohmann::json doc = numaplace::plugin::host_to_json(host->effective());
    if (!host->warnings.empty()) doc["warnings"] = host->warnings;
    *json = copy_string(numaplace::plugin::json_text(doc));
    return NP_OK;
  });
}

np_status np_host_copy(const np_host* host, np_host** copy, np_error** error) {
  return guarded(error, [&]() -> np_status {
    if (copy == nullptr) return invalid_argument(error, "the np_host** out parameter is NULL");
    *copy = nullptr;
    if (host == nullptr) return invalid_argument(error, "the host is NULL");
    auto made = std::make_unique<np_host>();
    std::shared_lock read(host->lock);
    made->topology = host->topology;
    made->claims = host->claims;
    made->with_claims = host->with_claims;
    made->warnings = host->warnings;
    *copy = made.release();
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
    // All or nothing: a guest the host counts already, or given twice here, adds nothing.
    const std::span<const numaplace::GuestClaim> given = read.claims;
    for (std::size_t i = 0; i < given.size(); ++i) {
      if (const auto held = numaplace::counted_already(given[i], host->claims)) {
        const numaplace::GuestClaim& counted = host->claims[*held];
        return fail(error, numaplace::make_error("InvalidClaim", numaplace::same_guest_text(given[i], counted) +
                                                                     " is counted on this host already; release '" +
                                                                     numaplace::printable_text(counted.name) +
                                                                     "' first (np_host_release) to count it again"));
      }
      if (const auto earlier = numaplace::counted_already(given[i], given.first(i))) {
        return fail(error, numaplace::make_error("InvalidClaim", numaplace::same_guest_text(given[i], given[*earlier]) +
                                                                     " is given twice; give each guest once"));
      }
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
    made->placement_json = numaplace::plugin::json_text(numaplace::plugin::placement_json(*outcome));
    made->explanation_json = numaplace::plugin::json_text(numaplace::plugin::explanation_json(*outcome, *flavor, *image));
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


}  // extern "C"
