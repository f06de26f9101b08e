#include "plugin/libvirt_connection.h"

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include <cstdlib>

namespace numaplace::plugin {
namespace {

std::string last_libvirt_message() {
  const virError* error = virGetLastError();
  return error != nullptr && error->message != nullptr ? error->message : "no further detail from libvirt";
}

}  // namespace

void LibvirtConnection::Closer::operator()(virConnect* conn) const {
  if (conn != nullptr) virConnectClose(conn);
}

Result<LibvirtConnection> LibvirtConnection::open_read_only(const std::string& uri) {
  virConnect* conn = virConnectOpenReadOnly(uri.c_str());
  if (conn == nullptr) {
    return make_error("HostUnavailable", "cannot connect to libvirt at '" + uri + "': " + last_libvirt_message() +
                                             "; check the URI, or give the host as --capabilities FILE");
  }
  return LibvirtConnection(uri, conn);
}

Result<LibvirtConnection> LibvirtConnection::open_read_write(const std::string& uri) {
  virConnect* conn = virConnectOpen(uri.c_str());
  if (conn == nullptr) {
    return make_error("HostUnavailable", "cannot connect to libvirt at '" + uri + "' to manage domains: " +
                                             last_libvirt_message() + "; check the URI and that you may manage domains there");
  }
  return LibvirtConnection(uri, conn);
}

Result<std::string> LibvirtConnection::capabilities_xml() const {
  char* xml = virConnectGetCapabilities(conn_.get());
  if (xml == nullptr) {
    return make_error("HostUnavailable", "libvirt at '" + uri_ + "' did not return capabilities: " + last_libvirt_message());
  }
  std::string out(xml);
  std::free(xml);
  return out;
}

}  // namespace numaplace::plugin
