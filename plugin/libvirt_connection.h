// A read-only libvirt connection (RAII over virConnectPtr) and what numaplace
// reads through it. Errors carry libvirt's own message. The built-in
// "test:///default" driver needs no daemon, which makes it the default host.
#pragma once

#include <memory>
#include <string>

#include "placement/error.h"

typedef struct _virConnect virConnect;  // NOLINT: libvirt's own spelling

namespace numaplace::plugin {

inline constexpr const char* kDefaultUri = "test:///default";

class LibvirtConnection {
 public:
  static Result<LibvirtConnection> open_read_only(const std::string& uri);
  // For define and start; needs the rights to manage domains on `uri`.
  static Result<LibvirtConnection> open_read_write(const std::string& uri);

  // The raw handle, for the readers in plugin/ that need libvirt calls of their own.
  virConnect* handle() const { return conn_.get(); }

  Result<std::string> capabilities_xml() const;
  const std::string& uri() const { return uri_; }

 private:
  struct Closer {
    void operator()(virConnect* conn) const;
  };
  LibvirtConnection(std::string uri, virConnect* conn) : uri_(std::move(uri)), conn_(conn) {}

  std::string uri_;
  std::unique_ptr<virConnect, Closer> conn_;
};

}  // namespace numaplace::plugin
