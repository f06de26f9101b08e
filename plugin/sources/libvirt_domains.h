/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The domains a libvirt connection knows, with their XML: running ones in their
// live form (what libvirt enforces now), defined-only ones in their inactive form.
#pragma once

#include <string>
#include <vector>

#include "placement/model/error.h"
#include "plugin/sources/libvirt_connection.h"

namespace numaplace::plugin {

struct DomainXml {
  std::string name;
  std::string uuid;
  bool running = false;
  std::string xml;
};

Result<std::vector<DomainXml>> list_domains(const LibvirtConnection& conn, bool include_inactive);

}  // namespace numaplace::plugin
