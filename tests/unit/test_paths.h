// Paths the tests read: the shared samples/corpus and the built CLI.
#pragma once

#include <string>

namespace numaplace::testing {

inline std::string shared_path(const std::string& relative) { return std::string(NUMAPLACE_SHARED_DIR) + "/" + relative; }
inline std::string source_path(const std::string& relative) { return std::string(NUMAPLACE_SOURCE_DIR) + "/" + relative; }
inline std::string cli_path() { return NUMAPLACE_CLI; }

}  // namespace numaplace::testing
