// SPDX-License-Identifier: LGPL-2.1-or-later
// Loading a host in a child process: the answer comes back whole (every hwloc sample equals its
// in-process load), and a loader that crashes, stalls, exits or fails becomes a named error in the
// parent, which carries on.
#include "plugin/sources/isolated_host_load.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <thread>

#include "plugin/sources/host_json.h"
#include "plugin/sources/hwloc_source.h"
#include "support/test_paths.h"

namespace numaplace::plugin {
namespace {

using namespace std::chrono_literals;

TEST(IsolatedHostLoad, EveryHwlocSampleComesBackAsLoadedInProcess) {
  int samples = 0;
  for (const auto& entry : std::filesystem::directory_iterator(testing::shared_path("samples/hwloc"))) {
    const std::string path = entry.path().string();
    auto direct = load_hwloc_xml(path);
    ASSERT_TRUE(direct.ok()) << path << ": " << direct.error().message;
    auto isolated = load_host_in_child([&] { return load_hwloc_xml(path); }, "hwloc export '" + path + "'",
                                       "HwlocLoadFailed", "");
    ASSERT_TRUE(isolated.ok()) << path << ": " << isolated.error().name << ": " << isolated.error().message;
    EXPECT_EQ(host_to_json(*isolated), host_to_json(*direct)) << path;
    EXPECT_FALSE(isolated->cells.empty()) << path;
    ++samples;
  }
  EXPECT_GE(samples, 5);
}

TEST(IsolatedHostLoad, ErrorsOfTheLoaderArriveUnchanged) {
  auto host = load_host_in_child([] { return Result<HostTopology>(make_error("InvalidFoo", "the foo is bad")); },
                                 "a test input", "HwlocLoadFailed", "");
  ASSERT_FALSE(host.ok());
  EXPECT_EQ(host.error().name, "InvalidFoo");
  EXPECT_EQ(host.error().message, "the foo is bad");
}

TEST(IsolatedHostLoad, AMessageThatIsNotUtf8StillArrives) {
  auto host = load_host_in_child(
      [] { return Result<HostTopology>(make_error("HwlocLoadFailed", "cannot read '/tmp/\xff.xml': no such file")); },
      "a test input", "HwlocLoadFailed", "");
  ASSERT_FALSE(host.ok());
  EXPECT_EQ(host.error().name, "HwlocLoadFailed");
  EXPECT_NE(host.error().message.find(".xml': no such file"), std::string::npos) << host.error().message;
}

TEST(IsolatedHostLoad, ACrashInTheLoaderIsANamedError) {
  auto host = load_host_in_child(
      []() -> Result<HostTopology> {
        std::raise(SIGSEGV);
        return HostTopology{};
      },
      "hwloc export 'x.xml'", "HwlocLoadFailed", "re-create it");
  ASSERT_FALSE(host.ok());
  EXPECT_EQ(host.error().name, "HwlocLoadFailed");
  EXPECT_NE(host.error().message.find("reading hwloc export 'x.xml' crashed (signal 11"), std::string::npos)
      << host.error().message;
  EXPECT_NE(host.error().message.find("; re-create it"), std::string::npos) << host.error().message;
}

TEST(IsolatedHostLoad, ALoaderPastItsTimeIsStopped) {
  const auto start = std::chrono::steady_clock::now();
  auto host = load_host_in_child(
      []() -> Result<HostTopology> {
        std::this_thread::sleep_for(30s);
        return HostTopology{};
      },
      "a slow input", "HwlocLoadFailed", "", 300ms);
  ASSERT_FALSE(host.ok());
  EXPECT_EQ(host.error().name, "HwlocLoadFailed");
  EXPECT_NE(host.error().message.find("a slow input did not finish within 300 ms"), std::string::npos)
      << host.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - start, 20s);  // killed, not waited for
}

TEST(IsolatedHostLoad, ALoaderAskingForMoreThanItsMemoryIsStopped) {
  if (!child_memory_can_be_limited()) GTEST_SKIP() << "an AddressSanitizer build cannot cap the address space";
  auto host = load_host_in_child(
      []() -> Result<HostTopology> {
        // Under the cap the allocation fails before a byte is written; without it, 2 GiB are filled.
        std::vector<char> huge(std::size_t{2} << 30, 'x');
        if (huge.back() != 'x') return make_error("Unexpected", "the memory did not hold");
        return HostTopology{};
      },
      "a greedy input", "HwlocLoadFailed", "re-create it");
  ASSERT_FALSE(host.ok());
  EXPECT_EQ(host.error().name, "HwlocLoadFailed");
  EXPECT_EQ(host.error().message, "reading a greedy input needed more than its 1024 MiB of memory and was stopped; re-create it");
}

TEST(IsolatedHostLoad, AMemoryLimitOfZeroLetsTheLoaderTakeWhatItNeeds) {
  auto host = load_host_in_child(
      []() -> Result<HostTopology> {
        // 2 GiB of address space, never touched: more than the default cap would allow.
        void* large = ::mmap(nullptr, std::size_t{2} << 30, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (large == MAP_FAILED) return make_error("Unexpected", "2 GiB of address space was refused");
        ::munmap(large, std::size_t{2} << 30);
        HostTopology topology;
        topology.cells.push_back(HostCell{});
        topology.cells.back().id = 3;
        return topology;
      },
      "a test input", "HwlocLoadFailed", "", std::chrono::seconds(60), 0);
  ASSERT_TRUE(host.ok()) << host.error().message;
  ASSERT_EQ(host->cells.size(), 1u);
  EXPECT_EQ(host->cells[0].id, 3u);
}

TEST(IsolatedHostLoad, ALoaderThatExitsWithoutAnAnswerIsANamedError) {
  auto host = load_host_in_child(
      []() -> Result<HostTopology> {
        _exit(7);
      },
      "a test input", "HwlocLoadFailed", "");
  ASSERT_FALSE(host.ok());
  EXPECT_EQ(host.error().name, "HwlocLoadFailed");
  EXPECT_NE(host.error().message.find("ended without an answer (exit status 7)"), std::string::npos)
      << host.error().message;
}

}  // namespace
}  // namespace numaplace::plugin
