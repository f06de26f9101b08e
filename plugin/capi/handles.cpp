// SPDX-License-Identifier: LGPL-2.1-or-later
#include "plugin/capi/handles.h"

#include <cstdlib>
#include <cstring>

#include "placement/fit/strategy.h"
#include "placement/model/utf8_text.h"
#include "plugin/capi/error_status.h"

namespace numaplace::capi {

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

std::unique_ptr<np_host> host_handle(numaplace::HostTopology topology) {
  auto made = std::make_unique<np_host>();
  made->topology = std::move(topology);
  refresh(*made);
  return made;
}

void refresh(np_host& host) {
  if (host.claims.empty()) {
    host.with_claims.reset();
    return;
  }
  host.with_claims = host.topology;
  numaplace::apply_claims(*host.with_claims, host.claims);
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
    // The header's promise, kept: text that is not UTF-8 is refused here, not echoed in a message.
    for (const char* text : {pairs[i].key, pairs[i].value}) {
      if (auto problem = numaplace::utf8_problem(text)) {
        return numaplace::make_error(std::string_view(what) == "options" ? "InvalidArgument" : "InvalidSpecText",
                                     std::string(what) + "[" + std::to_string(i) + "]'s " +
                                         (text == pairs[i].key ? "key " : "value ") + *problem +
                                         "; give keys and values as UTF-8 text");
      }
    }
    if (!map.emplace(pairs[i].key, pairs[i].value).second) {
      return numaplace::make_error("InvalidArgument",
                                   std::string(what) + " gives '" + pairs[i].key + "' twice; give it once");
    }
  }
  return map;
}

std::optional<std::string> guest_name_problem(const char* guest_name) {
  if (guest_name == nullptr || guest_name[0] == '\0') return "the guest name is NULL or empty";
  if (auto problem = utf8_problem(guest_name)) return "the guest name " + *problem + "; give it as UTF-8 text";
  return std::nullopt;
}

char* copy_string(const std::string& text) {
  char* out = static_cast<char*>(std::malloc(text.size() + 1));
  if (out == nullptr) throw std::bad_alloc();
  std::memcpy(out, text.c_str(), text.size() + 1);
  return out;
}

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

}  // namespace numaplace::capi
