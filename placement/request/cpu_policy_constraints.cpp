// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/request/cpu_policy_constraints.h"

#include <optional>
#include <regex>
#include <string>

#include "placement/model/utf8_text.h"
#include "placement/request/spec_values.h"

namespace numaplace {
namespace {

std::optional<std::string> flavor_value(const SpecMap& specs, const std::string& key) {
  auto it = specs.find(key);
  if (it == specs.end()) return std::nullopt;
  return it->second;
}

bool truthy(const std::optional<std::string>& value) { return value && !value->empty(); }

// Unset for anything that is not a policy.
CpuPolicy cpu_policy_of(const std::string& text) {
  if (text == "dedicated") return CpuPolicy::Dedicated;
  if (text == "shared") return CpuPolicy::Shared;
  if (text == "mixed") return CpuPolicy::Mixed;
  return CpuPolicy::Unset;
}

ThreadPolicy thread_policy_of(const std::string& text) {
  if (text == "prefer") return ThreadPolicy::Prefer;
  if (text == "isolate") return ThreadPolicy::Isolate;
  if (text == "require") return ThreadPolicy::Require;
  return ThreadPolicy::Unset;
}

// "resources:VCPU", "resources1:VCPU", ... (a prefix match, as Python's re.match).
bool is_resource_key(const std::string& key, const std::string& resource) {
  static const std::regex vcpu("^resources([1-9][0-9]*)?:VCPU");
  static const std::regex pcpu("^resources([1-9][0-9]*)?:PCPU");
  return std::regex_search(key, resource == "VCPU" ? vcpu : pcpu);
}

bool is_hyperthreading_trait_key(const std::string& key) {
  static const std::regex trait("^trait([1-9][0-9]*)?:HW_CPU_HYPERTHREADING");
  return std::regex_search(key, trait);
}

// The amounts of every resources(N):RESOURCE key, summed. Nova's API refuses a flavor whose amount
// is not an integer (its scheduler and fit then skip such a key, which drops the CPU policy the
// operator meant); numaplace refuses it by name, and an amount beyond 2^62 as well (no host has it,
// and the sum must not wrap).
Result<std::int64_t> sum_resource(const SpecMap& specs, const std::string& resource) {
  constexpr std::int64_t kMost = std::int64_t{1} << 62;
  std::int64_t total = 0;
  for (const auto& [key, value] : specs) {
    if (!is_resource_key(key, resource)) continue;
    const auto amount = parse_python_int(value);
    if (!amount || *amount > kMost || *amount < -kMost) {
      return make_error("InvalidResourceAmount",
                        printable_text(key) + " = '" + printable_text(value.substr(0, 64)) + "' is not " +
                            (parse_python_int_saturating(value) ? "a count any host has" : "a whole number") +
                            "; give the number of " + resource + "s the guest needs (its vCPUs), or drop the key");
    }
    // both within 2^62, so the sum is within 2^63 - 1 except at +2^63: checked before it is made
    if (*amount > 0 ? total > kMost - *amount : total < -kMost - *amount) {
      return make_error("InvalidResourceAmount", "the resources:" + resource + " amounts add up to more than any host has");
    }
    total += *amount;
  }
  return total;
}

Error invalid_request(const std::string& why) { return make_error("InvalidRequest", why); }

}  // namespace

Result<CpuConstraints> derive_cpu_constraints(const GuestRequest& request, const ImageProperties& image) {
  const SpecMap& specs = request.flavor_specs;
  const std::uint32_t vcpus = request.vcpus;
  const CpuSet all_vcpus = vcpus == 0 ? CpuSet{} : CpuSet::range(0, vcpus - 1);
  CpuConstraints out;

  // 1. CPU policy: the flavor's "dedicated" wins outright; "mixed" and "shared" refuse an image asking for more.
  const auto flavor_policy = flavor_value(specs, "hw:cpu_policy");
  const CpuPolicy image_policy = image.cpu_policy ? cpu_policy_of(*image.cpu_policy) : CpuPolicy::Unset;
  if (truthy(flavor_policy) && cpu_policy_of(*flavor_policy) == CpuPolicy::Unset) {
    return make_error("InvalidCPUAllocationPolicy", "Invalid CPU allocation policy '" + *flavor_policy +
                                                        "' in hw:cpu_policy; valid policies are dedicated, shared, mixed");
  }
  const CpuPolicy fp = truthy(flavor_policy) ? cpu_policy_of(*flavor_policy) : CpuPolicy::Unset;
  if (fp == CpuPolicy::Dedicated) {
    out.cpu_policy = CpuPolicy::Dedicated;
  } else if (fp == CpuPolicy::Mixed) {
    if (image_policy == CpuPolicy::Dedicated) {
      return make_error("ImageCPUPinningForbidden", "Image property hw_cpu_policy=dedicated may not override the "
                                                    "flavor's hw:cpu_policy=mixed");
    }
    out.cpu_policy = CpuPolicy::Mixed;
  } else if (fp == CpuPolicy::Shared) {
    if (image_policy == CpuPolicy::Dedicated || image_policy == CpuPolicy::Mixed) {
      return make_error("ImageCPUPinningForbidden", "Image property hw_cpu_policy=" + *image.cpu_policy +
                                                        " may not override the flavor's hw:cpu_policy=shared");
    }
    out.cpu_policy = CpuPolicy::Shared;
  } else {
    out.cpu_policy = image_policy;
  }

  // 2. Thread policy: a flavor "prefer" (or none) lets the image choose; any other flavor value must not be contradicted.
  const auto flavor_threads = flavor_value(specs, "hw:cpu_thread_policy");
  if (truthy(flavor_threads) && thread_policy_of(*flavor_threads) == ThreadPolicy::Unset) {
    return make_error("InvalidCPUThreadAllocationPolicy",
                      "Invalid CPU thread allocation policy '" + *flavor_threads +
                          "' in hw:cpu_thread_policy; valid policies are prefer, isolate, require");
  }
  const bool image_threads_set = image.cpu_thread_policy && !image.cpu_thread_policy->empty();
  if (!flavor_threads || *flavor_threads == "prefer") {
    if (flavor_threads) {
      out.thread_policy = ThreadPolicy::Prefer;
    } else if (image_threads_set) {
      out.thread_policy = thread_policy_of(*image.cpu_thread_policy);
    }
  } else if (image_threads_set && *image.cpu_thread_policy != *flavor_threads) {
    return make_error("ImageCPUThreadPolicyForbidden", "Image property hw_cpu_thread_policy=" + *image.cpu_thread_policy +
                                                           " may not override the flavor's hw:cpu_thread_policy=" +
                                                           *flavor_threads);
  } else if (flavor_threads->empty()) {
    out.thread_policy_empty = true;
  } else {
    out.thread_policy = thread_policy_of(*flavor_threads);
  }

  // The emulator threads policy is validated where Nova first reads it (the realtime check may do so early).
  const auto flavor_emulator = flavor_value(specs, "hw:emulator_threads_policy");
  auto emulator = [&]() -> Result<EmulatorThreadsPolicy> {
    if (!truthy(flavor_emulator)) return EmulatorThreadsPolicy::Unset;
    if (*flavor_emulator == "share") return EmulatorThreadsPolicy::Share;
    if (*flavor_emulator == "isolate") return EmulatorThreadsPolicy::Isolate;
    return make_error("InvalidEmulatorThreadsPolicy", "Invalid emulator threads policy '" + *flavor_emulator +
                                                          "' in hw:emulator_threads_policy; valid policies are share, isolate");
  };

  // 3. Realtime mask (checked whatever the CPU policy; whether realtime is allowed comes later).
  const auto realtime = flavor_value(specs, "hw:cpu_realtime");
  if (realtime && bool_from_string(*realtime)) {
    std::optional<std::string> mask = image.cpu_realtime_mask;
    if (!truthy(mask)) mask = flavor_value(specs, "hw:cpu_realtime_mask");
    CpuSet rt = all_vcpus;
    if (truthy(mask)) {
      auto parsed = parse_vcpu_mask(*mask, vcpus, "hw:cpu_realtime_mask");
      if (!parsed) return parsed.error();
      rt = std::move(*parsed);
    }
    const Error not_found = make_error(
        "RealtimeMaskNotFoundOrInvalid",
        "Realtime policy needs a vCPU mask (hw:cpu_realtime_mask) naming at least one realtime vCPU, all of them "
        "guest vCPUs, and leaving one vCPU for the emulator unless hw:emulator_threads_policy is set");
    if (rt.empty()) return not_found;
    auto emu = emulator();
    if (!emu) return emu.error();
    if (rt == all_vcpus && *emu == EmulatorThreadsPolicy::Unset) return not_found;
    if (!rt.is_subset_of(all_vcpus)) return not_found;
    out.realtime_vcpus = std::move(rt);
  }

  // 4. Dedicated mask (flavor only), checked whatever the policy.
  std::optional<CpuSet> dedicated_mask;
  const auto mask = flavor_value(specs, "hw:cpu_dedicated_mask");
  if (truthy(mask)) {
    auto parsed = parse_vcpu_mask(*mask, vcpus, "hw:cpu_dedicated_mask");
    if (!parsed) return parsed.error();
    if (parsed->empty() || all_vcpus.minus(*parsed).empty()) {
      return make_error("InvalidMixedInstanceDedicatedMask",
                        "hw:cpu_dedicated_mask '" + *mask + "' must leave at least 1 pinned and 1 unpinned vCPU");
    }
    if (!parsed->is_subset_of(all_vcpus)) {
      return make_error("InvalidMixedInstanceDedicatedMask", "hw:cpu_dedicated_mask '" + *mask +
                                                                 "' is not a subset of the guest's vCPUs 0-" +
                                                                 std::to_string(vcpus == 0 ? 0 : vcpus - 1));
    }
    dedicated_mask = std::move(*parsed);
  }

  // 5. Emulator threads policy.
  auto emu = emulator();
  if (!emu) return emu.error();
  out.emulator_threads_policy = *emu;

  // 6. Placement resources and the hyperthreading trait override the policies.
  const auto vcpu_sum = sum_resource(specs, "VCPU");
  if (!vcpu_sum) return vcpu_sum.error();
  const auto pcpu_sum = sum_resource(specs, "PCPU");
  if (!pcpu_sum) return pcpu_sum.error();
  const std::int64_t resource_vcpus = *vcpu_sum;
  const std::int64_t resource_pcpus = *pcpu_sum;
  if (out.cpu_policy != CpuPolicy::Unset && (resource_vcpus != 0 || resource_pcpus != 0)) {
    return invalid_request("hw:cpu_policy and resources:VCPU / resources:PCPU may not be combined; use one of them");
  }
  if (resource_vcpus != 0 && resource_pcpus != 0) {
    return invalid_request("resources:VCPU and resources:PCPU may not be combined in one flavor");
  }
  if (resource_pcpus != 0) {
    const bool isolate = out.emulator_threads_policy == EmulatorThreadsPolicy::Isolate;
    const std::int64_t wanted = static_cast<std::int64_t>(vcpus) + (isolate ? 1 : 0);
    if (resource_pcpus != wanted) {
      return invalid_request("resources:PCPU = " + std::to_string(resource_pcpus) + " but the flavor needs " +
                             std::to_string(wanted) + " (its vCPUs" + (isolate ? " plus one for emulator threads)" : ")"));
    }
    out.cpu_policy = CpuPolicy::Dedicated;
  }
  if (resource_vcpus != 0) out.cpu_policy = CpuPolicy::Shared;

  std::optional<std::string> hyperthreading;
  for (const auto& [key, value] : specs) {
    if (is_hyperthreading_trait_key(key)) {
      hyperthreading = value;
      break;
    }
  }
  if (!hyperthreading && image.requires_hyperthreading) hyperthreading = "required";
  if (out.thread_policy != ThreadPolicy::Unset && truthy(hyperthreading)) {
    return invalid_request("hw:cpu_thread_policy and trait:HW_CPU_HYPERTHREADING may not be combined; use one of them");
  }
  if (hyperthreading == "forbidden") out.thread_policy = ThreadPolicy::Isolate;
  if (hyperthreading == "required") out.thread_policy = ThreadPolicy::Require;
  if (out.thread_policy != ThreadPolicy::Unset) out.thread_policy_empty = false;

  // 7. What the final policy allows.
  switch (out.cpu_policy) {
    case CpuPolicy::Unset:
    case CpuPolicy::Shared:
      if (out.thread_policy != ThreadPolicy::Unset) {
        return make_error("CPUThreadPolicyConfigurationInvalid",
                          "A CPU thread policy (" + to_string(out.thread_policy) +
                              ") needs hw:cpu_policy=dedicated or mixed; shared vCPUs are not pinned");
      }
      if (out.emulator_threads_policy == EmulatorThreadsPolicy::Isolate) {
        return make_error("BadRequirementEmulatorThreadsPolicy",
                          "hw:emulator_threads_policy=isolate needs hw:cpu_policy=dedicated or mixed");
      }
      if (dedicated_mask) {
        return make_error("RequiredMixedInstancePolicy", "hw:cpu_dedicated_mask needs hw:cpu_policy=mixed");
      }
      if (!out.realtime_vcpus.empty()) {
        return make_error("RealtimeConfigurationInvalid",
                          "hw:cpu_realtime needs hw:cpu_policy=dedicated or mixed; realtime vCPUs must be pinned");
      }
      break;
    case CpuPolicy::Dedicated:
      if (dedicated_mask) {
        return make_error("RequiredMixedInstancePolicy", "hw:cpu_dedicated_mask needs hw:cpu_policy=mixed, not dedicated");
      }
      out.dedicated_vcpus = all_vcpus;
      break;
    case CpuPolicy::Mixed:
      if (!out.realtime_vcpus.empty() == dedicated_mask.has_value()) {
        return make_error("RequiredMixedOrRealtimeCPUMask",
                          "hw:cpu_policy=mixed needs exactly one of hw:cpu_dedicated_mask or hw:cpu_realtime_mask");
      }
      out.dedicated_vcpus = dedicated_mask ? *dedicated_mask : out.realtime_vcpus;
      break;
  }
  return out;
}

}  // namespace numaplace
