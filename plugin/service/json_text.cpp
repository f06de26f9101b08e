// SPDX-License-Identifier: LGPL-2.1-or-later
#include "plugin/service/json_text.h"

namespace numaplace::plugin {

std::string json_text(const nlohmann::json& document, int indent) {
  return document.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace numaplace::plugin
