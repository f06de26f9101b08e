/* SPDX-License-Identifier: LGPL-2.1-or-later */
// What the property tests over random domains share: a sample host read once, a domain placed with
// flavor specs, and the text that says what was placed when a check fails.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "plugin/service/place_domain.h"
#include "support/test_paths.h"
#include "xml/capabilities_reader.h"
#include "xml/xml_document.h"

namespace numaplace::testing {

// The capabilities sample `name` (tests/data/samples/libvirt/NAME) as the host model.
inline HostTopology sample_capabilities_host(const std::string& name) {
  auto caps = xml::read_text_file(shared_path("samples/libvirt/" + name), "caps");
  if (!caps) {
    ADD_FAILURE() << caps.error().message;
    return {};
  }
  auto host = xml::read_capabilities(*caps);
  if (!host) ADD_FAILURE() << host.error().message;
  return host ? *host : HostTopology{};
}

inline Result<plugin::PlaceOutcome> place_with_specs(const HostTopology& host, const std::string& domain_xml,
                                                     const SpecMap& specs) {
  plugin::PlaceRequest request;
  request.domain_xml = domain_xml;
  request.flavor_specs = specs;
  return plugin::place_domain(host, request);
}

// The domain, the specs, the output and its warnings, for a failing check's message.
inline std::string placement_context(const std::string& domain_xml, const SpecMap& specs,
                                     const plugin::PlaceOutcome& outcome) {
  std::string context = domain_xml + "\nspecs:";
  for (const auto& [key, value] : specs) context += " " + key + "=" + value;
  context += "\nout: " + outcome.domain_xml;
  for (const auto& warning : outcome.warnings) context += "\nwarning: " + warning;
  return context;
}

}  // namespace numaplace::testing
