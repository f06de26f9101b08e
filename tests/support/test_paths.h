/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Paths the tests read: the test data (tests/data, laid out in the build tree with the compressed
// vectors decompressed: cmake/TestData.cmake), the source tree and the built CLI.
#pragma once

#include <string>

namespace numaplace::testing {

// A file of the test data (conformance/, corpus/, samples/); the name recalls the shared/ directory
// these files came from.
inline std::string shared_path(const std::string& relative) { return std::string(NUMAPLACE_TEST_DATA_DIR) + "/" + relative; }
inline std::string source_path(const std::string& relative) { return std::string(NUMAPLACE_SOURCE_DIR) + "/" + relative; }
inline std::string cli_path() { return NUMAPLACE_CLI; }
// numaplace-dev, the build tree's developer-only commands (conformance, replay).
inline std::string dev_cli_path() { return NUMAPLACE_DEV_CLI; }

}  // namespace numaplace::testing
