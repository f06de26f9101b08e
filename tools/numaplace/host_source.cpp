#include "numaplace/host_source.h"

#include "plugin/libvirt_connection.h"
#include "xml/capabilities_reader.h"
#include "xml/xml_document.h"

namespace numaplace::cli {

std::string describe_source(const HostSourceOptions& options) {
  if (!options.capabilities_file.empty()) return "capabilities file '" + options.capabilities_file + "'";
  return "libvirt '" + (options.connect_uri.empty() ? std::string(plugin::kDefaultUri) : options.connect_uri) + "'";
}

std::string libvirt_uri(const HostSourceOptions& options) {
  if (!options.capabilities_file.empty()) return {};
  return options.connect_uri.empty() ? std::string(plugin::kDefaultUri) : options.connect_uri;
}

Result<HostTopology> load_host(const HostSourceOptions& options) {
  if (!options.capabilities_file.empty()) {
    auto text = xml::read_text_file(options.capabilities_file, "capabilities file");
    if (!text) return text.error();
    return xml::read_capabilities(*text, "capabilities file '" + options.capabilities_file + "'");
  }
  const std::string uri = options.connect_uri.empty() ? plugin::kDefaultUri : options.connect_uri;
  auto conn = plugin::LibvirtConnection::open_read_only(uri);
  if (!conn) return conn.error();
  auto caps = conn->capabilities_xml();
  if (!caps) return caps.error();
  return xml::read_capabilities(*caps, "capabilities of '" + uri + "'");
}

}  // namespace numaplace::cli
