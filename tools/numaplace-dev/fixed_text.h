/* SPDX-License-Identifier: LGPL-2.1-or-later */
// A figure of numaplace-dev's tables and notes: `value` with `decimals` digits after the point
// ("0.981"), as printf's %.*f writes it.
#pragma once

#include <cstdio>
#include <string>

namespace numaplace::cli {

inline std::string fixed(double value, int decimals) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

}  // namespace numaplace::cli
