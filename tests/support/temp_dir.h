/* SPDX-License-Identifier: LGPL-2.1-or-later */
// A directory of a test's own under the system's temporary directory, removed with everything in
// it when the test is done; `file` writes one file there and gives its path.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace numaplace::testing {

struct TempDir {
  explicit TempDir(const std::string& prefix)
      : path(std::filesystem::temp_directory_path() / (prefix + "-" + std::to_string(getpid()))) {
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string file(const std::string& name, const std::string& text) const {
    const std::string at = (path / name).string();
    std::ofstream(at) << text;
    return at;
  }

  std::filesystem::path path;
};

}  // namespace numaplace::testing
