// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/model/error_kind.h"

#include <algorithm>
#include <iterator>

namespace numaplace {
namespace {

// Sorted by name (ErrorRegister.NamesAreSortedAndUnique), so a lookup is a binary search.
constexpr RegisteredError kRegister[] = {
    {"AlreadyRunning", ErrorKind::BadInput},
    {"BadRequirementEmulatorThreadsPolicy", ErrorKind::BadInput},
    {"CPUThreadPolicyConfigurationInvalid", ErrorKind::BadInput},
    {"CannotRead", ErrorKind::FileAccess},
    {"CannotWrite", ErrorKind::BadInput},
    {"ConflictingConstraint", ErrorKind::BadInput},
    {"ConflictingPin", ErrorKind::BadInput},
    {"CpuTopologyUnsatisfiable", ErrorKind::BadInput},
    {"DefineFailed", ErrorKind::LibvirtRefused},
    {"DuplicateNumaNode", ErrorKind::BadInput},
    {"FlavorImageLockedMemoryConflict", ErrorKind::BadInput},
    {"FreeMemoryUnavailable", ErrorKind::Usage},
    {"GuestViewWouldChange", ErrorKind::NoFit},
    {"HostUnavailable", ErrorKind::HostUnavailable},
    {"HwlocLoadFailed", ErrorKind::BadInput},
    {"ImageCPUPinningForbidden", ErrorKind::BadInput},
    {"ImageCPUThreadPolicyForbidden", ErrorKind::BadInput},
    {"ImageNUMATopologyAsymmetric", ErrorKind::BadInput},
    {"ImageNUMATopologyCPUDuplicates", ErrorKind::BadInput},
    {"ImageNUMATopologyCPUOutOfRange", ErrorKind::BadInput},
    {"ImageNUMATopologyCPUsUnassigned", ErrorKind::BadInput},
    {"ImageNUMATopologyForbidden", ErrorKind::BadInput},
    {"ImageNUMATopologyIncomplete", ErrorKind::BadInput},
    {"ImageNUMATopologyMemoryOutOfRange", ErrorKind::BadInput},
    {"ImagePCINUMAPolicyForbidden", ErrorKind::BadInput},
    {"ImageVCPULimitsRangeExceeded", ErrorKind::BadInput},
    {"ImageVCPULimitsRangeImpossible", ErrorKind::BadInput},
    {"ImageVCPUTopologyRangeExceeded", ErrorKind::BadInput},
    {"InconsistentHost", ErrorKind::BadInput},
    {"InternalError", ErrorKind::Internal},
    {"Invalid", ErrorKind::BadInput},
    {"InvalidArgument", ErrorKind::BadOption},
    {"InvalidCPUAllocationPolicy", ErrorKind::BadInput},
    {"InvalidCPUThreadAllocationPolicy", ErrorKind::BadInput},
    {"InvalidCapabilities", ErrorKind::BadInput},
    {"InvalidClaim", ErrorKind::BadInput},
    {"InvalidCpuList", ErrorKind::BadInput},
    {"InvalidDomain", ErrorKind::BadInput},
    {"InvalidEmulatorThreadsPolicy", ErrorKind::BadInput},
    {"InvalidFleet", ErrorKind::BadInput},
    {"InvalidHostCells", ErrorKind::BadInput},
    {"InvalidHostConfig", ErrorKind::BadInput},
    {"InvalidHostJson", ErrorKind::BadInput},
    {"InvalidHwlocXml", ErrorKind::BadInput},
    {"InvalidMemorySize", ErrorKind::BadInput},
    {"InvalidMixedInstanceDedicatedMask", ErrorKind::BadInput},
    {"InvalidNUMANodesNumber", ErrorKind::BadInput},
    {"InvalidNodeDevice", ErrorKind::BadInput},
    {"InvalidNumaDistances", ErrorKind::BadInput},
    {"InvalidPCINUMAAffinity", ErrorKind::BadInput},
    {"InvalidPciAddress", ErrorKind::BadOption},
    {"InvalidPlacementRecord", ErrorKind::BadInput},
    {"InvalidRequest", ErrorKind::BadInput},
    {"InvalidRequestJson", ErrorKind::BadInput},
    {"InvalidResourceAmount", ErrorKind::BadInput},
    {"InvalidResourceWeights", ErrorKind::BadOption},
    {"InvalidScoringShape", ErrorKind::BadOption},
    {"InvalidScoringWeight", ErrorKind::BadInput},
    {"InvalidSpecText", ErrorKind::BadInput},
    {"InvalidStream", ErrorKind::BadInput},
    {"InvalidVector", ErrorKind::BadInput},
    {"LibvirtUnavailable", ErrorKind::HostUnavailable},
    {"LockMemoryForbidden", ErrorKind::BadInput},
    {"LockTimeout", ErrorKind::HostUnavailable},
    {"LockUnavailable", ErrorKind::HostUnavailable},
    {"MemoryPageSizeForbidden", ErrorKind::BadInput},
    {"MemoryPageSizeInvalid", ErrorKind::BadInput},
    {"MissingNumaDistances", ErrorKind::BadInput},
    {"NarrowingFailed", ErrorKind::LibvirtRefused},
    {"NoFit", ErrorKind::NoFit},
    {"NoNumaNodes", ErrorKind::BadInput},
    {"NoNumaTopology", ErrorKind::BadInput},
    {"NoStreams", ErrorKind::BadInput},
    {"NoSuchDomain", ErrorKind::BadInput},
    {"NotCapabilities", ErrorKind::BadInput},
    {"NotDomain", ErrorKind::BadInput},
    {"NotDomainStatus", ErrorKind::BadInput},
    {"NotNodeDevice", ErrorKind::BadInput},
    {"NumaNodeOutOfRange", ErrorKind::BadInput},
    {"NumaUnavailable", ErrorKind::HostUnavailable},
    {"OutOfMemory", ErrorKind::OutOfMemory},
    {"PciDeviceHeld", ErrorKind::NoFit},
    {"PinBeyondHost", ErrorKind::BadInput},
    {"PinningCollision", ErrorKind::BadInput},
    {"PolicyRefused", ErrorKind::BadInput},
    {"RealtimeConfigurationInvalid", ErrorKind::BadInput},
    {"RealtimeMaskNotFoundOrInvalid", ErrorKind::BadInput},
    {"RequiredMixedInstancePolicy", ErrorKind::BadInput},
    {"RequiredMixedOrRealtimeCPUMask", ErrorKind::BadInput},
    {"RunningGuestsUnknown", ErrorKind::HostUnavailable},
    {"StartFailed", ErrorKind::LibvirtRefused},
    {"TooManyNumaNodes", ErrorKind::BadInput},
    {"UnknownHostCell", ErrorKind::BadInput},
    {"UnknownPageSize", ErrorKind::BadInput},
    {"UnknownScoringStrategy", ErrorKind::BadInput},
    {"UnknownSpecKey", ErrorKind::BadInput},
    {"UnknownStrategy", ErrorKind::BadOption},
    {"UnknownTopologyPolicy", ErrorKind::BadOption},
    {"Unreachable", ErrorKind::Internal},
    {"UsageError", ErrorKind::Usage},
    {"ValueError", ErrorKind::BadInput},
    {"WouldStarveGuest", ErrorKind::NoFit},
    {"XmlForbiddenConstruct", ErrorKind::BadInput},
    {"XmlMalformed", ErrorKind::BadInput},
    {"XmlTooDeep", ErrorKind::BadInput},
    {"XmlTooLarge", ErrorKind::BadInput},
    {"XmlUnsupportedEncoding", ErrorKind::BadInput},
};

}  // namespace

std::span<const RegisteredError> registered_errors() { return kRegister; }

ErrorKind error_kind_of(std::string_view name) {
  const auto found = std::lower_bound(std::begin(kRegister), std::end(kRegister), name,
                                      [](const RegisteredError& entry, std::string_view key) { return entry.name < key; });
  return found != std::end(kRegister) && found->name == name ? found->kind : ErrorKind::BadInput;
}

std::string_view error_kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::BadInput: return "BadInput";
    case ErrorKind::BadOption: return "BadOption";
    case ErrorKind::Usage: return "Usage";
    case ErrorKind::FileAccess: return "FileAccess";
    case ErrorKind::NoFit: return "NoFit";
    case ErrorKind::HostUnavailable: return "HostUnavailable";
    case ErrorKind::LibvirtRefused: return "LibvirtRefused";
    case ErrorKind::OutOfMemory: return "OutOfMemory";
    case ErrorKind::Internal: return "Internal";
  }
  return "BadInput";
}

}  // namespace numaplace
