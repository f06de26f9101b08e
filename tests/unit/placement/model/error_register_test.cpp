// SPDX-License-Identifier: LGPL-2.1-or-later
// The error register (placement/model/error_kind.h) against the code and against docs/errors.md:
// every error name the source makes is registered; the C ABI's explicit statuses agree with the
// kind; the page lists every registered name with the kind, exit code and C status that the
// register and the two switches give.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "numaplace.h"
#include "numaplace/exit_codes.h"
#include "placement/model/error.h"
#include "placement/model/error_kind.h"
#include "plugin/capi/error_status.h"
#include "support/test_paths.h"

namespace numaplace {
namespace {

std::string read_all(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::set<std::string> registered_names() {
  std::set<std::string> names;
  for (const auto& entry : registered_errors()) names.insert(std::string(entry.name));
  return names;
}

TEST(ErrorRegister, NamesAreSortedAndUnique) {
  const auto entries = registered_errors();
  ASSERT_GT(entries.size(), 50u);
  for (std::size_t i = 1; i < entries.size(); ++i) EXPECT_LT(entries[i - 1].name, entries[i].name) << entries[i].name;
}

TEST(ErrorRegister, MakeErrorSetsTheRegisteredKind) {
  EXPECT_EQ(make_error("NoFit", "x").kind, ErrorKind::NoFit);
  EXPECT_EQ(make_error("LibvirtUnavailable", "x").kind, ErrorKind::HostUnavailable);
  EXPECT_EQ(make_error("DefineFailed", "x").kind, ErrorKind::LibvirtRefused);
  EXPECT_EQ(make_error("InvalidCpuList", "x").kind, ErrorKind::BadInput);
  EXPECT_EQ(make_error("NoSuchNameAnywhere", "x").kind, ErrorKind::BadInput);
}

// Scans every source file of the library, the adapters and the tools for the names they make.
TEST(ErrorRegister, EveryNameTheSourceMakesIsRegisteredAndExplicitStatusesAgree) {
  const std::set<std::string> names = registered_names();
  const std::regex made(R"re(make_error\(\s*"([A-Za-z]+)")re");
  const std::regex explicit_status(R"re(fail\(\s*\w+,\s*(NP_ERR_[A-Z_]+),\s*"([A-Za-z]+)")re");
  std::size_t files = 0;
  std::set<std::string> seen;
  for (const char* dir : {"placement", "plugin", "xml", "tools"}) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(testing::source_path(dir))) {
      const auto ext = entry.path().extension();
      if (ext != ".cpp" && ext != ".h") continue;
      ++files;
      const std::string text = read_all(entry.path());
      for (std::sregex_iterator it(text.begin(), text.end(), made), end; it != end; ++it) {
        const std::string name = (*it)[1];
        seen.insert(name);
        EXPECT_TRUE(names.count(name)) << name << " is made in " << entry.path() << " but not registered";
      }
      for (std::sregex_iterator it(text.begin(), text.end(), explicit_status), end; it != end; ++it) {
        const std::string status = (*it)[1];
        const std::string name = (*it)[2];
        EXPECT_TRUE(names.count(name)) << name << " in " << entry.path();
        EXPECT_EQ(status, np_status_name(capi::status_for(error_kind_of(name)))) << name << " in " << entry.path();
      }
    }
  }
  EXPECT_GT(files, 100u);
  EXPECT_GT(seen.size(), 80u) << "the scan finds the names the code makes";
}

struct DocumentedError {
  std::string kind;
  int exit_code = -1;
  std::string status;
};

// The rows of docs/errors.md's "Every error" table: | `Name` | Kind | exit | STATUS | what to do |
std::map<std::string, DocumentedError> documented_errors() {
  std::map<std::string, DocumentedError> rows;
  std::istringstream page(read_all(testing::source_path("docs/errors.md")));
  const std::regex row(R"re(^\| `([A-Za-z]+)` \| ([A-Za-z]+) \| ([0-9]+) \| (NP_ERR_[A-Z_]+) \| .+ \|$)re");
  std::string line;
  while (std::getline(page, line)) {
    std::smatch m;
    if (!std::regex_match(line, m, row)) continue;
    EXPECT_EQ(rows.count(m[1]), 0u) << m[1] << " is listed twice";
    rows[m[1]] = DocumentedError{m[2], std::stoi(m[3]), m[4]};
  }
  return rows;
}

TEST(ErrorRegister, DocsErrorsListsEveryRegisteredNameWithItsKindExitCodeAndStatus) {
  const auto documented = documented_errors();
  EXPECT_EQ(documented.size(), registered_errors().size());
  for (const auto& entry : registered_errors()) {
    const std::string name(entry.name);
    auto found = documented.find(name);
    if (found == documented.end()) {
      ADD_FAILURE() << name << " is registered but not in docs/errors.md";
      continue;
    }
    EXPECT_EQ(found->second.kind, error_kind_name(entry.kind)) << name;
    EXPECT_EQ(found->second.exit_code, cli::exit_code_for(entry.kind)) << name;
    EXPECT_EQ(found->second.status, np_status_name(capi::status_for(entry.kind))) << name;
  }
  const std::set<std::string> names = registered_names();
  for (const auto& [name, row] : documented) {
    EXPECT_TRUE(names.count(name)) << name << " is in docs/errors.md but not registered";
  }
}

}  // namespace
}  // namespace numaplace
