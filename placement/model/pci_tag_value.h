/* SPDX-License-Identifier: LGPL-2.1-or-later */
// One value of a PCI device's tag or of a PCI request spec's key, as Nova 26 holds it: a string
// (nearly always), Nova's None (a port on a tunneled network asks for "physical_network": None, a
// pool's tag can be None), or, in a compute node's own pools, any other JSON value of its device
// spec (true, 3, [...]). Nova's rule (pci_device_prop_match), as tag_matches applies it:
//   - two strings match when equal without case;
//   - None matches a missing tag or a None tag, and nothing else;
//   - any other value matches only the same value (compared as canonical JSON text): never a
//     string, so a spec's "true" does not match a pool's true.
// Nova compares a list with a list item by item (each wanted item among the pool's); its
// InstancePCIRequest refuses lists, so a spec reaching the fit never holds one, and two lists are
// compared whole here.
#pragma once

#include <string>
#include <utility>

#include "placement/model/ascii_case.h"  // Nova compares PCI ids and string tags without ASCII case

namespace numaplace {

class PciTagValue {
 public:
  enum class Kind { String, None, Json };

  PciTagValue() = default;
  // A string value, the common case: implicit, so that tags read `{"dev_type", "type-VF"}`.
  PciTagValue(std::string text) : text_(std::move(text)) {}  // NOLINT(google-explicit-constructor)
  PciTagValue(const char* text) : text_(text) {}              // NOLINT(google-explicit-constructor)

  static PciTagValue none() { return PciTagValue(Kind::None, ""); }
  // A value that is neither a string nor None, as its canonical JSON text (sorted keys, no spaces).
  static PciTagValue json(std::string canonical_text) { return PciTagValue(Kind::Json, std::move(canonical_text)); }

  Kind kind() const { return kind_; }
  bool is_string() const { return kind_ == Kind::String; }
  // The string (String), the JSON text (Json) or empty (None).
  const std::string& text() const { return text_; }

  bool operator==(const PciTagValue&) const = default;

 private:
  PciTagValue(Kind kind, std::string text) : kind_(kind), text_(std::move(text)) {}

  Kind kind_ = Kind::String;
  std::string text_;
};

// Whether a spec asking for `wanted` is met by a device whose value is `have` (nullptr: the device
// has no such tag, which Nova reads as None).
bool tag_matches(const PciTagValue& wanted, const PciTagValue* have);

}  // namespace numaplace
