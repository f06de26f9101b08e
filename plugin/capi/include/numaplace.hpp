// SPDX-License-Identifier: LGPL-2.1-or-later
// numaplace C++ API: a small RAII layer, header only, over the C ABI of
// numaplace.h, so C++ callers get value types and ownership without depending on
// the library's internal C++ types (the shared library's ABI stays the C one).
// Failures throw numaplace::api::Error (status, name, message): the exception is
// thrown here, in the caller's code, never across the library boundary.
// Thread safety is the C ABI's: a Host may be shared by threads for place() and fit().
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "numaplace.h"

namespace numaplace::api {

class Error : public std::runtime_error {
 public:
  Error(np_status status, std::string name, const std::string& message)
      : std::runtime_error(message), status_(status), name_(std::move(name)) {}
  np_status status() const noexcept { return status_; }
  // Stable machine-readable kind: "NoFit", "ImageNUMATopologyAsymmetric", ...
  const std::string& name() const noexcept { return name_; }

 private:
  np_status status_;
  std::string name_;
};

namespace detail {

// `error` by reference: it is read after the call that fills it has run.
inline void check(np_status status, np_error*& error) {
  if (status == NP_OK) return;
  std::unique_ptr<np_error, decltype(&np_error_free)> owned(error, &np_error_free);
  throw Error(status, error != nullptr ? np_error_name(error) : np_status_name(status),
              error != nullptr ? np_error_message(error) : np_status_name(status));
}

inline std::vector<np_pair> pairs(const std::map<std::string, std::string>& map) {
  std::vector<np_pair> out;
  out.reserve(map.size());
  for (const auto& [key, value] : map) out.push_back({key.c_str(), value.c_str()});
  return out;
}

}  // namespace detail

using KeyValues = std::map<std::string, std::string>;

struct Request {
  std::string domain_xml;
  KeyValues flavor;   // flavor extra specs: {"hw:numa_nodes", "2"}
  KeyValues image;    // image properties: {"hw_numa_nodes", "2"}
  KeyValues options;  // {"strategy", "pack"}, {"policy", "none"}: numaplace.h lists them
};

struct Placement {
  bool placed = false;           // false: the guest asked for no NUMA topology
  std::string xml;               // the rewritten domain XML
  std::string placement_json;    // see np_result_placement_json
  std::string explanation_json;  // see np_result_explanation_json
};

// A request of the fast fit API, read once (np_request_from_json / np_request_from_specs).
class FitRequest {
 public:
  static FitRequest from_json(const std::string& json) {
    np_request* raw = nullptr;
    np_error* error = nullptr;
    detail::check(np_request_from_json(json.c_str(), &raw, &error), error);
    return FitRequest(raw);
  }
  static FitRequest from_specs(unsigned vcpus, unsigned long long memory_mib, const KeyValues& flavor,
                               const KeyValues& image = {}) {
    const auto specs = detail::pairs(flavor);
    const auto props = detail::pairs(image);
    np_request* raw = nullptr;
    np_error* error = nullptr;
    detail::check(np_request_from_specs(vcpus, memory_mib, specs.data(), specs.size(), props.data(), props.size(),
                                        &raw, &error),
                  error);
    return FitRequest(raw);
  }
  // The derived guest topology ("null": none asked for), as np_derive writes it.
  std::string topology_json() const { return np_request_topology_json(request_.get()); }
  const np_request* handle() const noexcept { return request_.get(); }

 private:
  explicit FitRequest(np_request* raw) : request_(raw, &np_request_free) {}
  std::unique_ptr<np_request, decltype(&np_request_free)> request_;
};

class Host {
 public:
  static Host from_capabilities_xml(const std::string& xml) {
    return make([&](np_host** h, np_error** e) { return np_host_from_capabilities_xml(xml.c_str(), h, e); });
  }
  static Host from_hwloc_xml(const std::string& xml) {
    return make([&](np_host** h, np_error** e) { return np_host_from_hwloc_xml(xml.c_str(), h, e); });
  }
  static Host from_hwloc_file(const std::string& path) {
    return make([&](np_host** h, np_error** e) { return np_host_from_hwloc_file(path.c_str(), h, e); });
  }
  static Host from_this_machine() {
    return make([](np_host** h, np_error** e) { return np_host_from_this_machine(h, e); });
  }
  static Host from_json(const std::string& json) {
    return make([&](np_host** h, np_error** e) { return np_host_from_json(json.c_str(), h, e); });
  }
  static Host from_libvirt(const std::string& uri, bool running_claims = true) {
    const unsigned flags = running_claims ? NP_LIBVIRT_RUNNING_CLAIMS : 0u;
    return make([&](np_host** h, np_error** e) { return np_host_from_libvirt(uri.c_str(), flags, h, e); });
  }

  // What guests already placed there hold, from their domain XML (all or nothing).
  void add_claims(const std::vector<std::string>& domain_xmls) {
    std::vector<const char*> texts;
    for (const auto& text : domain_xmls) texts.push_back(text.c_str());
    np_error* error = nullptr;
    detail::check(np_host_add_claims(host_.get(), texts.data(), texts.size(), &error), error);
  }

  std::string to_json() const {
    char* text = nullptr;
    np_error* error = nullptr;
    detail::check(np_host_to_json(host_.get(), &text, &error), error);
    std::string out(text);
    np_string_free(text);
    return out;
  }

  Placement place(const Request& request) const {
    const auto flavor = detail::pairs(request.flavor);
    const auto image = detail::pairs(request.image);
    const auto options = detail::pairs(request.options);
    np_result* raw = nullptr;
    np_error* error = nullptr;
    detail::check(np_place(host_.get(), request.domain_xml.c_str(), flavor.data(), flavor.size(), image.data(),
                           image.size(), options.data(), options.size(), &raw, &error),
                  error);
    std::unique_ptr<np_result, decltype(&np_result_free)> result(raw, &np_result_free);
    return Placement{np_result_placed(raw) != 0, np_result_xml(raw), np_result_placement_json(raw),
                     np_result_explanation_json(raw)};
  }

  // np_fit: the answer JSON ("kind": "fit" | "no_fit" | "no_topology"; numaplace.h).
  std::string fit(const FitRequest& request, const KeyValues& options = {}) const {
    const auto opts = detail::pairs(options);
    char* text = nullptr;
    np_error* error = nullptr;
    detail::check(np_fit(host_.get(), request.handle(), opts.data(), opts.size(), &text, &error), error);
    return take(text);
  }
  // np_fit_claim: the compute claim, held as guest `name` when it fits.
  std::string fit_claim(const FitRequest& request, const std::string& name, const KeyValues& options = {}) {
    const auto opts = detail::pairs(options);
    char* text = nullptr;
    np_error* error = nullptr;
    detail::check(np_fit_claim(host_.get(), request.handle(), name.c_str(), opts.data(), opts.size(), &text, &error),
                  error);
    return take(text);
  }
  // np_host_release: gives back what guest `name` holds.
  void release(const std::string& name) {
    np_error* error = nullptr;
    detail::check(np_host_release(host_.get(), name.c_str(), &error), error);
  }

  np_host* handle() const noexcept { return host_.get(); }

 private:
  template <typename Load>
  static Host make(Load&& load) {
    np_host* raw = nullptr;
    np_error* error = nullptr;
    detail::check(load(&raw, &error), error);
    return Host(raw);
  }
  explicit Host(np_host* raw) : host_(raw, &np_host_free) {}
  static std::string take(char* text) {
    std::string out(text != nullptr ? text : "");
    np_string_free(text);
    return out;
  }

  std::unique_ptr<np_host, decltype(&np_host_free)> host_;
};

}  // namespace numaplace::api
