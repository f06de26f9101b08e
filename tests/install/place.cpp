// SPDX-License-Identifier: LGPL-2.1-or-later
// The C++ API (numaplace.hpp) built against the INSTALLED library by install_test.sh.
#include <numaplace.hpp>

#include <fstream>
#include <iostream>
#include <sstream>

static std::string slurp(const char* path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  auto host = numaplace::api::Host::from_capabilities_xml(slurp(argv[1]));
  auto placed = host.place({slurp(argv[2]), {{"hw:numa_nodes", "2"}}, {}, {}});
  std::cout << "C++: placed=" << placed.placed << " " << placed.placement_json << '\n';
  try {
    host.place({slurp(argv[2]), {{"hw:numa_nodes", "4"}}, {}, {}});
  } catch (const numaplace::api::Error& e) {
    std::cout << "C++: " << e.name() << ": " << e.what() << '\n';
    return placed.placed && e.name() == "NoFit" ? 0 : 1;
  }
  return 1;
}
