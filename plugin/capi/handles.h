/* SPDX-License-Identifier: LGPL-2.1-or-later */
// What the C ABI's translation units share (c_api.cpp: errors, hosts, np_place; c_api_fit.cpp: the
// fast fit API): the handles behind numaplace.h's opaque types, the one exception guard every entry
// point runs its body in, the error constructors and the fit options both np_place and np_fit
// read. Internal: libnumaplace.so exports np_* alone (numaplace.map).
#pragma once

#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "numaplace.h"
#include "placement/fit/fit.h"
#include "placement/lifecycle/claims.h"
#include "placement/model/error.h"
#include "placement/model/guest_request.h"
#include "placement/model/host_topology.h"
#include "plugin/service/fit_json.h"

struct np_error {
  np_status status = NP_ERR_INTERNAL;
  std::string name;
  std::string message;
};

struct np_host {
  numaplace::HostTopology topology;             // usage as given by the source
  std::vector<numaplace::GuestClaim> claims;    // added with np_host_add_claims and np_fit_claim
  // The topology with every claim applied, made once there is a claim: a host made and only asked
  // (a scheduler's) holds one topology, not two.
  std::optional<numaplace::HostTopology> with_claims;
  std::vector<std::string> warnings;            // what the source left out, and why
  mutable std::shared_mutex lock;

  // What np_fit sees: the topology with every claim applied.
  const numaplace::HostTopology& effective() const { return with_claims ? *with_claims : topology; }
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

namespace numaplace::capi {

// An np_error for `error` in *out (when out is not NULL); returns its status.
np_status fail(np_error** out, const Error& error);
// With the status given: only the exception guard uses it (out of memory, a bug), where no Error
// may be built first.
np_status fail(np_error** out, np_status status, std::string name, std::string message);
np_status invalid_argument(np_error** out, const std::string& message);

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

// Makes the host's with_claims again from its topology and claims (none without claims), so that
// effective() is what np_fit sees. Called under the host's exclusive lock (or before the host is
// shared) after each change.
void refresh(np_host& host);

// A new handle holding `topology` and no claims (what every np_host_from_* hands out).
std::unique_ptr<np_host> host_handle(numaplace::HostTopology topology);

// KEY=VALUE pairs as a map; NULL or empty keys, NULL values and a key given twice are InvalidArgument;
// a key or value that is not UTF-8 is InvalidSpecText (InvalidArgument for "options").
Result<SpecMap> to_map(const np_pair* pairs, std::size_t count, const char* what);

// Why `guest_name` cannot name a guest's claims (NULL, empty, not UTF-8), or nullopt.
std::optional<std::string> guest_name_problem(const char* guest_name);

// A copy the caller frees with np_string_free (std::free); bad_alloc when there is no memory.
char* copy_string(const std::string& text);

struct FitOptionsGiven {
  bool strategy = false;
  bool ratio_shape = false;
};
// One option of the fit itself (strategy, cell_order, ratio_shape, ratio_weights) into `fit`;
// false when `key` is none of them.
Result<bool> fit_option(const std::string& key, const std::string& value, FitOptions& fit, FitOptionsGiven& given);
// The options that only go together: Nova's packing order is an order of Nova's first fit (as the
// CLI's --pack: alone it means strategy nova), a ratio shape is the ratio strategy's.
Result<FitOptions> check_fit_options(FitOptions fit, const FitOptionsGiven& given);

}  // namespace numaplace::capi
