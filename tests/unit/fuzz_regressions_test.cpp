// SPDX-License-Identifier: LGPL-2.1-or-later
// Every input that ever crashed a fuzz harness (tests/fuzz/regressions/ENTRY-what-it-was), fed
// to the same entry point (tests/fuzz/fuzz_entries.h): it must not crash (nor trip ASan/UBSan in
// the sanitizer build) and must end in success or a named, explained error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fuzz/fuzz_entries.h"
#include "support/test_paths.h"

namespace numaplace {
namespace {

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

TEST(FuzzRegressions, EveryKeptCrashIsRefusedByNameOrAccepted) {
  const std::filesystem::path dir = numaplace::testing::source_path("tests/fuzz/regressions");
  std::size_t replayed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    const std::string file = entry.path().filename().string();
    const std::string harness = file.substr(0, file.find('-'));
    SCOPED_TRACE(file);
    const auto outcome = fuzz::run(harness, slurp(entry.path()));
    if (outcome) {
      EXPECT_NE(outcome->name, "UnknownHarness") << "name the file ENTRY-what.ext: " << outcome->message;
      EXPECT_FALSE(outcome->name.empty());
      EXPECT_FALSE(outcome->message.empty()) << outcome->name;
    }
    ++replayed;
  }
  EXPECT_GT(replayed, 0u);
}

TEST(FuzzRegressions, EveryEntryAcceptsAnEmptyInputWithoutCrashing) {
  for (const char* harness : {"cpulist", "specs", "capabilities", "nodedev", "domain", "hwloc", "json", "fitrequest", "fithost", "hostcells"}) {
    const auto outcome = fuzz::run(harness, "");
    if (outcome) {
      EXPECT_NE(outcome->name, "UnknownHarness") << harness;
    }
  }
}

}  // namespace
}  // namespace numaplace
