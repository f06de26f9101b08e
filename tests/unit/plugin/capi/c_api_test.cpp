// SPDX-License-Identifier: LGPL-2.1-or-later
// The C ABI (numaplace.h) as a C caller uses it, and the C++ API (numaplace.hpp) over it:
// every host source, claims, placement JSON, errors as status + name + message, NULLs,
// and one host shared by threads.
#include <gtest/gtest.h>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>
#include <thread>

#include "numaplace.h"
#include "numaplace.hpp"
#include "support/cli_runner.h"
#include "support/test_paths.h"

namespace numaplace {
namespace {

using testing::shared_path;
using testing::source_path;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

const np_pair kWorked[] = {{"hw:numa_nodes", "2"},
                           {"hw:numa_cpus.0", "0-5"},
                           {"hw:numa_cpus.1", "6,7"},
                           {"hw:numa_mem.0", "3072"},
                           {"hw:numa_mem.1", "1024"}};

struct CApi : ::testing::Test {
  void TearDown() override {
    np_result_free(result);
    np_error_free(error);
    np_host_free(host);
  }
  np_host* host = nullptr;
  np_result* result = nullptr;
  np_error* error = nullptr;
  std::string guest = slurp(source_path("examples/guest-8vcpu-4g.xml"));
  std::string caps_2cell = slurp(shared_path("samples/libvirt/caps-2cell.xml"));
};

TEST_F(CApi, PlacesOnACapabilitiesHost) {
  ASSERT_EQ(np_host_from_capabilities_xml(caps_2cell.c_str(), &host, &error), NP_OK);
  ASSERT_EQ(np_place(host, guest.c_str(), kWorked, 5, nullptr, 0, nullptr, 0, &result, &error), NP_OK);
  EXPECT_EQ(error, nullptr);
  EXPECT_EQ(np_result_placed(result), 1);
  EXPECT_NE(std::string(np_result_xml(result)).find("<numatune>"), std::string::npos);
  auto placement = nlohmann::json::parse(np_result_placement_json(result));
  ASSERT_EQ(placement["cells"].size(), 2u);
  EXPECT_EQ(placement["domain"], "numaplace-demo");
  auto explanation = nlohmann::json::parse(np_result_explanation_json(result));
  EXPECT_EQ(explanation["placed"], true);
  EXPECT_EQ(explanation["request"]["flavor"]["hw:numa_cpus.1"], "6,7");
}

// A copy holds the claims as claims and goes its own way: a claim added to it is not the original's.
TEST_F(CApi, ACopiedHostKeepsItsClaimsAndGoesItsOwnWay) {
  ASSERT_EQ(np_host_from_capabilities_xml(caps_2cell.c_str(), &host, &error), NP_OK);
  const np_pair dedicated[] = {{"hw:numa_nodes", "1"}, {"hw:cpu_policy", "dedicated"}};
  ASSERT_EQ(np_place(host, guest.c_str(), dedicated, 2, nullptr, 0, nullptr, 0, &result, &error), NP_OK);
  const std::string placed = np_result_xml(result);
  const char* claims[] = {placed.c_str()};
  ASSERT_EQ(np_host_add_claims(host, claims, 1, &error), NP_OK);
  np_host* copy = nullptr;
  ASSERT_EQ(np_host_copy(host, &copy, &error), NP_OK);
  char* original_json = nullptr;
  char* copy_json = nullptr;
  ASSERT_EQ(np_host_to_json(host, &original_json, &error), NP_OK);
  ASSERT_EQ(np_host_to_json(copy, &copy_json, &error), NP_OK);
  EXPECT_STREQ(original_json, copy_json);
  np_string_free(copy_json);
  copy_json = nullptr;
  // The copy still knows the guest by name: it gives it back, and the original keeps it.
  EXPECT_EQ(np_host_release(copy, "numaplace-demo", &error), NP_OK);
  ASSERT_EQ(np_host_to_json(copy, &copy_json, &error), NP_OK);
  EXPECT_STRNE(original_json, copy_json);
  char* still = nullptr;
  ASSERT_EQ(np_host_to_json(host, &still, &error), NP_OK);
  EXPECT_STREQ(original_json, still);
  np_string_free(still);
  np_string_free(copy_json);
  np_string_free(original_json);
  np_host_free(copy);
  np_host* none = nullptr;
  EXPECT_EQ(np_host_copy(nullptr, &none, &error), NP_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(none, nullptr);
}

TEST_F(CApi, EveryHostSourceLoads) {
  const std::string hwloc = slurp(shared_path("samples/hwloc/synth-2pkg-4numa-pci-distances.xml"));
  ASSERT_EQ(np_host_from_hwloc_xml(hwloc.c_str(), &host, &error), NP_OK) << np_error_message(error);
  np_host_free(host);
  host = nullptr;
  ASSERT_EQ(np_host_from_hwloc_file(shared_path("samples/hwloc/synth-2pkg-4numa-pci-distances.xml").c_str(), &host,
                                    &error),
            NP_OK);
  char* json = nullptr;
  ASSERT_EQ(np_host_to_json(host, &json, &error), NP_OK);
  EXPECT_EQ(nlohmann::json::parse(json)["cells"].size(), 4u);
  np_host* again = nullptr;
  EXPECT_EQ(np_host_from_json(json, &again, &error), NP_OK) << np_error_message(error);
  np_host_free(again);
  np_string_free(json);
  np_host_free(host);
  host = nullptr;
  ASSERT_EQ(np_host_from_libvirt("test:///default", NP_LIBVIRT_RUNNING_CLAIMS, &host, &error), NP_OK);
  EXPECT_EQ(np_place(host, guest.c_str(), kWorked, 5, nullptr, 0, nullptr, 0, &result, &error), NP_OK);
}

// One way to read a libvirt host: the C ABI's host with its running guests' claims is the document
// `numaplace topology --json` prints of the same connection (less the CLI's list of guests).
TEST_F(CApi, LibvirtHostIsTheOneTheCliReads) {
  ASSERT_EQ(np_host_from_libvirt("test:///default", NP_LIBVIRT_RUNNING_CLAIMS, &host, &error), NP_OK)
      << np_error_message(error);
  char* json = nullptr;
  ASSERT_EQ(np_host_to_json(host, &json, &error), NP_OK);
  const nlohmann::json library = nlohmann::json::parse(json);
  np_string_free(json);
  testing::CliRun cli = testing::run("topology --connect test:///default --json");
  ASSERT_EQ(cli.exit_code, 0) << cli.err;
  nlohmann::json printed = nlohmann::json::parse(cli.out);
  printed.erase("guests");
  EXPECT_EQ(library, printed);
  EXPECT_FALSE(library.contains("warnings")) << "test:///default's node devices all read";
}

// A running guest whose XML cannot be counted (its numaplace record damaged by hand) holds pCPUs the
// claims cannot show: the host with its running guests' claims is refused, not read without it.
TEST_F(CApi, ALibvirtHostWithARunningGuestItCannotReadIsRefused) {
  virSetErrorFunc(nullptr, [](void*, virErrorPtr) {});
  virConnectPtr conn = virConnectOpen("test:///default");  // test:///default lives while one is open
  ASSERT_NE(conn, nullptr);
  // The broken guest leaves the process's test:///default however the test ends.
  struct Cleanup {
    virConnectPtr conn;
    virDomainPtr domain = nullptr;
    ~Cleanup() {
      if (domain != nullptr) {
        virDomainDestroy(domain);
        virDomainUndefine(domain);
        virDomainFree(domain);
      }
      virConnectClose(conn);
    }
  } cleanup{conn};
  ASSERT_EQ(np_host_from_libvirt("test:///default", NP_LIBVIRT_RUNNING_CLAIMS, &host, &error), NP_OK);
  const std::string small = "<domain type='test'><name>capi-broken</name><memory unit='MiB'>256</memory><vcpu>2</vcpu>"
                            "<os><type arch='i686'>hvm</type></os><devices/></domain>";
  const np_pair dedicated[] = {{"hw:numa_nodes", "1"}, {"hw:cpu_policy", "dedicated"}};
  ASSERT_EQ(np_place(host, small.c_str(), dedicated, 2, nullptr, 0, nullptr, 0, &result, &error), NP_OK)
      << np_error_message(error);
  std::string broken = np_result_xml(result);
  const std::size_t pins = broken.find(" pins=\"");
  ASSERT_NE(pins, std::string::npos) << broken;
  broken.replace(pins, std::string(" pins=\"").size(), " pins=\"x");
  cleanup.domain = virDomainDefineXML(conn, broken.c_str());
  ASSERT_NE(cleanup.domain, nullptr);
  ASSERT_EQ(virDomainCreate(cleanup.domain), 0);
  np_host_free(host);
  host = nullptr;

  EXPECT_EQ(np_host_from_libvirt("test:///default", NP_LIBVIRT_RUNNING_CLAIMS, &host, &error), NP_ERR_HOST_UNAVAILABLE);
  EXPECT_EQ(host, nullptr);
  ASSERT_NE(error, nullptr);
  EXPECT_STREQ(np_error_name(error), "RunningGuestsUnknown");
  EXPECT_NE(std::string(np_error_message(error)).find("capi-broken"), std::string::npos) << np_error_message(error);
  np_error_free(error);
  error = nullptr;
  // Without the running guests' claims the host itself reads; the caller adds the claims it can.
  EXPECT_EQ(np_host_from_libvirt("test:///default", 0, &host, &error), NP_OK) << np_error_message(error);
}

TEST_F(CApi, ErrorsCarryStatusNameAndMessage) {
  const std::string caps_1cell = slurp(shared_path("samples/libvirt/caps-1cell.xml"));
  ASSERT_EQ(np_host_from_capabilities_xml(caps_1cell.c_str(), &host, &error), NP_OK);
  EXPECT_EQ(np_place(host, guest.c_str(), kWorked, 5, nullptr, 0, nullptr, 0, &result, &error), NP_ERR_NO_FIT);
  EXPECT_EQ(result, nullptr);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(np_error_status(error), NP_ERR_NO_FIT);
  EXPECT_STREQ(np_error_name(error), "NoFit");
  EXPECT_NE(std::string(np_error_message(error)).find("does not fit"), std::string::npos);
  np_error_free(error);
  error = nullptr;

  const np_pair asymmetric[] = {{"hw:numa_nodes", "3"}};
  EXPECT_EQ(np_place(host, guest.c_str(), asymmetric, 1, nullptr, 0, nullptr, 0, &result, &error), NP_ERR_INVALID_INPUT);
  EXPECT_STREQ(np_error_name(error), "ImageNUMATopologyAsymmetric");
  np_error_free(error);
  error = nullptr;

  const np_pair unknown_option[] = {{"colour", "blue"}};
  EXPECT_EQ(np_place(host, guest.c_str(), kWorked, 5, nullptr, 0, unknown_option, 1, &result, &error),
            NP_ERR_INVALID_ARGUMENT);
  np_error_free(error);
  error = nullptr;

  const np_pair twice[] = {{"hw:numa_nodes", "2"}, {"hw:numa_nodes", "1"}};
  EXPECT_EQ(np_place(host, guest.c_str(), twice, 2, nullptr, 0, nullptr, 0, &result, &error), NP_ERR_INVALID_ARGUMENT);
  np_error_free(error);
  error = nullptr;

  EXPECT_EQ(np_place(host, "<domain", kWorked, 5, nullptr, 0, nullptr, 0, &result, &error), NP_ERR_INVALID_INPUT);
  EXPECT_STREQ(np_error_name(error), "XmlMalformed");
}

TEST_F(CApi, NullsAreInvalidArgumentsNotCrashes) {
  EXPECT_EQ(np_host_from_capabilities_xml(nullptr, &host, &error), NP_ERR_INVALID_ARGUMENT);
  np_error_free(error);
  error = nullptr;
  EXPECT_EQ(np_host_from_capabilities_xml("x", nullptr, nullptr), NP_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(np_place(nullptr, guest.c_str(), nullptr, 0, nullptr, 0, nullptr, 0, &result, nullptr),
            NP_ERR_INVALID_ARGUMENT);
  ASSERT_EQ(np_host_from_capabilities_xml(caps_2cell.c_str(), &host, nullptr), NP_OK);
  EXPECT_EQ(np_place(host, guest.c_str(), nullptr, 3, nullptr, 0, nullptr, 0, &result, nullptr), NP_ERR_INVALID_ARGUMENT);
  const np_pair null_value[] = {{"hw:numa_nodes", nullptr}};
  EXPECT_EQ(np_place(host, guest.c_str(), null_value, 1, nullptr, 0, nullptr, 0, &result, nullptr),
            NP_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(np_host_add_claims(host, nullptr, 1, nullptr), NP_ERR_INVALID_ARGUMENT);
  np_host* fresh = host;  // any value: out parameters are NULL on failure
  EXPECT_EQ(np_host_from_libvirt("test:///default", 99, &fresh, nullptr), NP_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(fresh, nullptr);
  EXPECT_STREQ(np_error_name(nullptr), "");
  np_error_free(nullptr);
  np_result_free(nullptr);
  np_host_free(nullptr);
}

TEST_F(CApi, BadHostsAreNamedErrors) {
  EXPECT_EQ(np_host_from_json("{\"cells\": [{\"id\": 0, \"cpus\": [-1], \"memory_mib\": 1}]}", &host, &error),
            NP_ERR_INVALID_INPUT);
  EXPECT_STREQ(np_error_name(error), "InvalidHostJson");
  EXPECT_NE(std::string(np_error_message(error)).find("cells[0].cpus[0]"), std::string::npos) << np_error_message(error);
  np_error_free(error);
  error = nullptr;
  EXPECT_EQ(np_host_from_hwloc_xml("<topology><garbage", &host, &error), NP_ERR_INVALID_INPUT);
  EXPECT_STREQ(np_error_name(error), "InvalidHwlocXml");
  EXPECT_EQ(std::string(np_error_message(error)).find("/tmp"), std::string::npos) << np_error_message(error);
  np_error_free(error);
  error = nullptr;
  EXPECT_EQ(np_host_from_libvirt("nosuchdriver:///x", 0, &host, &error), NP_ERR_HOST_UNAVAILABLE);
}

TEST_F(CApi, ClaimsMoveTheNextGuestAndNeverItself) {
  ASSERT_EQ(np_host_from_capabilities_xml(caps_2cell.c_str(), &host, &error), NP_OK);
  const np_pair dedicated[] = {{"hw:numa_nodes", "1"}, {"hw:cpu_policy", "dedicated"}};
  std::string big = guest;
  big.replace(big.find("<vcpu>8</vcpu>"), 14, "<vcpu>16</vcpu>");
  ASSERT_EQ(np_place(host, big.c_str(), dedicated, 2, nullptr, 0, nullptr, 0, &result, &error), NP_OK);
  const std::string placed = np_result_xml(result);
  const auto first = nlohmann::json::parse(np_result_placement_json(result))["cells"][0]["host_cell"];
  np_result_free(result);
  result = nullptr;

  // The guest's own claim does not count against it: placing it again gives the same cell.
  const char* own[] = {placed.c_str()};
  ASSERT_EQ(np_host_add_claims(host, own, 1, &error), NP_OK);
  ASSERT_EQ(np_place(host, placed.c_str(), nullptr, 0, nullptr, 0, nullptr, 0, &result, &error), NP_OK);
  EXPECT_EQ(nlohmann::json::parse(np_result_placement_json(result))["cells"][0]["host_cell"], first);
  np_result_free(result);
  result = nullptr;

  // Another guest of that size goes to the other cell.
  std::string other = big;
  other.replace(other.find("numaplace-demo"), 14, "other");
  ASSERT_EQ(np_place(host, other.c_str(), dedicated, 2, nullptr, 0, nullptr, 0, &result, &error), NP_OK);
  EXPECT_NE(nlohmann::json::parse(np_result_placement_json(result))["cells"][0]["host_cell"], first);

  const char* broken[] = {"<domain"};
  EXPECT_EQ(np_host_add_claims(host, broken, 1, &error), NP_ERR_INVALID_INPUT);
  EXPECT_STREQ(np_error_name(error), "InvalidClaim");
  np_error_free(error);
  error = nullptr;

  // A guest counted already, or given twice in one call, is refused and adds nothing: counted
  // twice, its memory would be held twice (the CLI's --claim refuses it too).
  char* before = nullptr;
  ASSERT_EQ(np_host_to_json(host, &before, nullptr), NP_OK);
  EXPECT_EQ(np_host_add_claims(host, own, 1, &error), NP_ERR_INVALID_INPUT);
  EXPECT_STREQ(np_error_name(error), "InvalidClaim");
  EXPECT_NE(std::string(np_error_message(error)).find("guest 'numaplace-demo' is counted on this host already"),
            std::string::npos) << np_error_message(error);
  np_error_free(error);
  error = nullptr;
  const std::string other_placed = np_result_xml(result);
  const char* twice[] = {other_placed.c_str(), other_placed.c_str()};
  EXPECT_EQ(np_host_add_claims(host, twice, 2, &error), NP_ERR_INVALID_INPUT);
  EXPECT_NE(std::string(np_error_message(error)).find("guest 'other' is given twice"), std::string::npos)
      << np_error_message(error);
  char* after = nullptr;
  ASSERT_EQ(np_host_to_json(host, &after, nullptr), NP_OK);
  EXPECT_STREQ(before, after);
  np_string_free(before);
  np_string_free(after);
  // Released, the guest may be counted again.
  ASSERT_EQ(np_host_release(host, "numaplace-demo", nullptr), NP_OK);
  EXPECT_EQ(np_host_add_claims(host, own, 1, nullptr), NP_OK);
}

TEST_F(CApi, OneHostManyThreads) {
  ASSERT_EQ(np_host_from_capabilities_xml(caps_2cell.c_str(), &host, &error), NP_OK);
  std::vector<std::string> placements(8);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < placements.size(); ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 25; ++i) {
        np_result* mine = nullptr;
        if (np_place(host, guest.c_str(), kWorked, 5, nullptr, 0, nullptr, 0, &mine, nullptr) != NP_OK) return;
        placements[t] = np_result_placement_json(mine);
        np_result_free(mine);
        if (t == 0) {
          const char* none[] = {nullptr};
          np_host_add_claims(host, none, 0, nullptr);  // a writer among the readers
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (const auto& p : placements) EXPECT_EQ(p, placements[0]);
  EXPECT_FALSE(placements[0].empty());
}

// Two cells of 8 CPUs and 16 GiB; cell 1 already holds 12 GiB of another guest.
const char* kUnevenHostJson = R"({"cells": [
  {"id": 0, "cpus": [0,1,2,3,4,5,6,7], "memory_mib": 16384, "distances": [10, 21]},
  {"id": 1, "cpus": [8,9,10,11,12,13,14,15], "memory_mib": 16384, "distances": [21, 10],
   "usage": {"memory_mib": 12288}}]})";

std::uint32_t host_cell_of_single_cell_guest(const np_result* result) {
  auto placement = nlohmann::json::parse(np_result_placement_json(result));
  return placement["cells"].at(0)["host_cell"].get<std::uint32_t>();
}

TEST_F(CApi, StrategyOptionChoosesAmongFits) {
  ASSERT_EQ(np_host_from_json(kUnevenHostJson, &host, &error), NP_OK) << np_error_message(error);
  const np_pair one_cell[] = {{"hw:numa_nodes", "1"}};
  // Nova's order tries the cell with the most free memory first: cell 0.
  const np_pair nova[] = {{"strategy", "nova"}};
  ASSERT_EQ(np_place(host, guest.c_str(), one_cell, 1, nullptr, 0, nova, 1, &result, &error), NP_OK);
  EXPECT_EQ(host_cell_of_single_cell_guest(result), 0u);
  np_result_free(result);
  result = nullptr;
  // pack fills the fuller cell that still fits (4 GiB left on cell 1).
  const np_pair pack[] = {{"strategy", "pack"}};
  ASSERT_EQ(np_place(host, guest.c_str(), one_cell, 1, nullptr, 0, pack, 1, &result, &error), NP_OK)
      << np_error_message(error);
  EXPECT_EQ(host_cell_of_single_cell_guest(result), 1u);
  np_result_free(result);
  result = nullptr;
  const np_pair spread[] = {{"strategy", "spread"}, {"ratio_weights", "cpu=0,memory=1"}};
  ASSERT_EQ(np_place(host, guest.c_str(), one_cell, 1, nullptr, 0, spread, 2, &result, &error), NP_OK);
  EXPECT_EQ(host_cell_of_single_cell_guest(result), 0u);
}

// The default is the CLI's (adaptive: pack on a host of three or more cells), not Nova's first fit;
// cell_order=pack alone is Nova's packing order, and refused beside a scored strategy.
TEST_F(CApi, DefaultStrategyIsTheCliDefault) {
  ASSERT_EQ(np_host_from_json(R"({"cells": [
    {"id": 0, "cpus": [0,1,2,3,4,5,6,7], "memory_mib": 16384},
    {"id": 1, "cpus": [8,9,10,11,12,13,14,15], "memory_mib": 16384, "usage": {"memory_mib": 12288}},
    {"id": 2, "cpus": [16,17,18,19,20,21,22,23], "memory_mib": 16384}]})",
                              &host, &error),
            NP_OK)
      << np_error_message(error);
  const np_pair one_cell[] = {{"hw:numa_nodes", "1"}};
  ASSERT_EQ(np_place(host, guest.c_str(), one_cell, 1, nullptr, 0, nullptr, 0, &result, &error), NP_OK)
      << np_error_message(error);
  EXPECT_EQ(host_cell_of_single_cell_guest(result), 1u);  // the fullest cell that still takes 4 GiB
  np_result_free(result);
  result = nullptr;
  const np_pair nova_pack[] = {{"cell_order", "pack"}};
  ASSERT_EQ(np_place(host, guest.c_str(), one_cell, 1, nullptr, 0, nova_pack, 1, &result, &error), NP_OK);
  EXPECT_EQ(host_cell_of_single_cell_guest(result), 1u);  // Nova's packing order: least free memory first
  np_result_free(result);
  result = nullptr;
  const np_pair mixed[] = {{"cell_order", "pack"}, {"strategy", "spread"}};
  EXPECT_EQ(np_place(host, guest.c_str(), one_cell, 1, nullptr, 0, mixed, 2, &result, &error),
            NP_ERR_INVALID_ARGUMENT);
  ASSERT_NE(error, nullptr);
  EXPECT_STREQ(np_error_name(error), "InvalidArgument");
  EXPECT_NE(std::string(np_error_message(error)).find("strategy=nova"), std::string::npos) << np_error_message(error);
}

TEST_F(CApi, PolicyOptionConfinesAGuestWithoutTopology) {
  ASSERT_EQ(np_host_from_capabilities_xml(caps_2cell.c_str(), &host, &error), NP_OK);
  ASSERT_EQ(np_place(host, guest.c_str(), nullptr, 0, nullptr, 0, nullptr, 0, &result, &error), NP_OK);
  EXPECT_EQ(np_result_placed(result), 0);
  // (The example's own comment mentions <numatune>: look for the element's content.)
  EXPECT_NE(std::string(np_result_xml(result)).find("<memory mode=\"strict\" nodeset="), std::string::npos);
  np_result_free(result);
  result = nullptr;
  const np_pair none[] = {{"policy", "none"}};
  ASSERT_EQ(np_place(host, guest.c_str(), nullptr, 0, nullptr, 0, none, 1, &result, &error), NP_OK);
  EXPECT_EQ(std::string(np_result_xml(result)).find("<memory mode=\"strict\""), std::string::npos);
}

// Addresses in the pci option may be spaced after their commas and written short or in upper
// case; an address the host does not have is a warning, as for a <hostdev>.
TEST_F(CApi, PciOptionTakesAddressesAsPeopleWriteThem) {
  ASSERT_EQ(np_host_from_capabilities_xml(caps_2cell.c_str(), &host, &error), NP_OK);
  const np_pair pci[] = {{"pci", "0000:3B:00.0, 3c:00.1 ,"}};
  ASSERT_EQ(np_place(host, guest.c_str(), kWorked, 5, nullptr, 0, pci, 1, &result, &error), NP_OK)
      << np_error_message(error);
  const auto explanation = nlohmann::json::parse(np_result_explanation_json(result));
  const std::string warnings = explanation.at("warnings").dump();
  EXPECT_NE(warnings.find("0000:3b:00.0"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("0000:3c:00.1"), std::string::npos) << warnings;
}

TEST_F(CApi, BadOptionValuesAreNamedInvalidArguments) {
  ASSERT_EQ(np_host_from_capabilities_xml(caps_2cell.c_str(), &host, &error), NP_OK);
  const struct {
    np_pair option;
    const char* name;
  } cases[] = {{{"strategy", "fastest"}, "UnknownStrategy"},
               {{"policy", "strict"}, "UnknownTopologyPolicy"},
               {{"ratio_weights", "cpu=-1"}, "InvalidResourceWeights"},
               {{"ratio_shape", "0:0,100:10"}, "InvalidArgument"},  // without strategy=ratio
               {{"prefer_closest", "maybe"}, "InvalidArgument"},
               {{"colour", "blue"}, "InvalidArgument"},
               {{"pci", "0000:3b:00.0,zz:zz"}, "InvalidPciAddress"}};
  for (const auto& c : cases) {
    EXPECT_EQ(np_place(host, guest.c_str(), kWorked, 5, nullptr, 0, &c.option, 1, &result, &error),
              NP_ERR_INVALID_ARGUMENT)
        << c.option.key;
    EXPECT_EQ(result, nullptr);
    ASSERT_NE(error, nullptr);
    EXPECT_STREQ(np_error_name(error), c.name) << c.option.key << ": " << np_error_message(error);
    np_error_free(error);
    error = nullptr;
  }
}

TEST(CppApi, RaiiHostPlacesAndThrowsNamedErrors) {
  auto host = api::Host::from_capabilities_xml(slurp(shared_path("samples/libvirt/caps-2cell.xml")));
  api::Request request;
  request.domain_xml = slurp(source_path("examples/guest-8vcpu-4g.xml"));
  request.flavor = {{"hw:numa_nodes", "2"}};
  request.options = {{"cell_order", "pack"}};
  api::Placement placed = host.place(request);
  EXPECT_TRUE(placed.placed);
  EXPECT_NE(placed.xml.find("<vcpupin"), std::string::npos);
  request.flavor = {{"hw:numa_nodes", "5"}};
  try {
    host.place(request);
    FAIL() << "5 cells on a 2-cell host";
  } catch (const api::Error& e) {
    EXPECT_EQ(e.status(), NP_ERR_INVALID_INPUT);  // 8 vCPUs do not split into 5
    EXPECT_EQ(e.name(), "ImageNUMATopologyAsymmetric");
  }
  EXPECT_THROW(api::Host::from_json("[]"), api::Error);
}

}  // namespace
}  // namespace numaplace
