// SPDX-License-Identifier: LGPL-2.1-or-later
// What the numaplace binary writes stays a whole, readable document whatever bytes it was given:
// --json output with bytes that are not UTF-8 (a Latin-1 file name, a spec value's byte) is JSON
// (never an abort); a spec domain XML cannot hold is a named error with nothing written; output
// that standard output does not take (a full disk) is an error, not exit 0; rank's size flags
// refuse negative and overflowing numbers instead of wrapping them; with --json a usage error is
// JSON too, and without --json one line naming it; an empty output file name is a usage error; --svg
// and --html are written both or neither.
#include <gtest/gtest.h>
#include <libxml/parser.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <filesystem>
#include <algorithm>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <string>

#include "support/cli_runner.h"
#include "support/test_paths.h"

namespace numaplace {
namespace {

using numaplace::testing::CliRun;
using numaplace::testing::kExample;
using numaplace::testing::run;
using numaplace::testing::shared_path;
using numaplace::testing::source_path;

const std::string kCaps = " --capabilities " + shared_path("samples/libvirt/caps-2cell.xml");

// A shell word holding the bytes of `printf_format` (octal escapes), for the runner's /bin/sh.
std::string bytes(const std::string& printf_format) { return "\"$(printf '" + printf_format + "')\""; }

bool parses_as_xml(const std::string& text) {
  xmlDocPtr doc = xmlReadMemory(text.data(), static_cast<int>(text.size()), "out.xml", nullptr,
                                XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  const bool ok = doc != nullptr;
  xmlFreeDoc(doc);
  return ok;
}

TEST(OutputText, JsonWithBytesThatAreNotUtf8IsStillJson) {
  // An empty capabilities file whose name is Latin-1, not UTF-8: its error names it.
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("numaplace-latin1-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string latin1 = (dir / "caf\xe9.xml").string();
  std::ofstream(latin1).close();
  for (const std::string& args :
       std::initializer_list<std::string>{"place " + kExample + kCaps + " --json --spec " + bytes("hw:numa_nodes=\\377"),
        "place " + bytes("no\\377such.xml") + kCaps + " --json",
        "topology --capabilities '" + latin1 + "' --json",
        "rank --hosts " + shared_path("samples/libvirt") + " --vcpus 1 --memory 1 --json --spec " +
            bytes("hw:numa_nodes=\\377")}) {
    CliRun r = run(args);
    EXPECT_NE(r.exit_code, 0) << args;
    EXPECT_LT(r.exit_code, 64) << "killed or aborted: " << args << "\n" << r.err;
    const auto doc = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << args << "\n" << r.out;
    EXPECT_TRUE(doc.contains("error")) << r.out;
  }
  std::filesystem::remove_all(dir);
}

TEST(OutputText, ASpecTheDomainXmlCannotHoldIsRefusedWithNothingWritten) {
  for (const std::string& spec : {bytes("quota:x=a\\001b"), bytes("quota:x=a\\377b"), bytes("quota:x=a\\355\\240\\200b"),
                                  bytes("quota:\\033x=1")}) {
    CliRun r = run("place " + kExample + kCaps + " --spec " + spec);
    EXPECT_EQ(r.exit_code, 1) << spec << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_NE(r.err.find("InvalidSpecText"), std::string::npos) << r.err;
  }
  // What XML can hold is written, and the document parses: non-ASCII UTF-8, a tab, markup characters.
  CliRun r = run("place " + kExample + kCaps + " --spec " + bytes("quota:x=caf\\303\\251 <&>\\t\\042\\047"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(parses_as_xml(r.out)) << r.out;
  EXPECT_NE(r.out.find("caf\xc3\xa9"), std::string::npos);
}

TEST(OutputText, OutputStandardOutputDoesNotTakeIsAnError) {
  for (const std::string& args : {"place " + kExample + kCaps + " --spec hw:numa_nodes=2 > /dev/full",
                                  "place " + kExample + kCaps + " --json > /dev/full",
                                  "topology" + kCaps + " > /dev/full", std::string("place --help > /dev/full")}) {
    CliRun r = run(args);
    EXPECT_EQ(r.exit_code, 1) << args;
    EXPECT_NE(r.err.find("CannotWrite"), std::string::npos) << args << "\n" << r.err;
  }
}

TEST(OutputText, WithJsonAUsageErrorIsTheJsonError) {
  for (const std::string& args : {"place " + kExample + " --capabilities /nonexistent/caps.xml --json",
                                  "place " + kExample + kCaps + " --strategy bogus --json",
                                  std::string("rank --hosts /tmp --vcpus -4 --memory 4096 --json")}) {
    CliRun r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    const auto doc = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << args << "\n" << r.out;
    EXPECT_FALSE(doc["error"]["message"].get<std::string>().empty());
  }
}

TEST(OutputText, RankRefusesNegativeAndOverflowingSizes) {
  const std::string hosts = " --hosts " + shared_path("samples/libvirt");
  for (const char* size : {" --vcpus 4 --memory -5", " --vcpus -4 --memory 4096", " --vcpus 4 --memory 99999999999999999999",
                                  " --vcpus 4 --memory 18446744073709551616", " --vcpus 99999 --memory 4096",
                                  " --vcpus 0 --memory 4096", " --vcpus 2 --memory 4096 --top -1",
                                  " --vcpus 2 --memory 4096 --top 99999999999999999999999"}) {
    CliRun r = run("rank" + hosts + std::string(size));
    EXPECT_EQ(r.exit_code, 2) << size << "\n" << r.out << r.err;
    EXPECT_TRUE(r.out.empty()) << size;
  }
  CliRun fine = run("rank" + hosts + " --vcpus 2 --memory 1024 --top 1");
  EXPECT_EQ(fine.exit_code, 0) << fine.err;
}

// An output option given an empty file name is a usage error: before, '-o ""' wrote to stdout and
// '--svg ""' printed the table, as if the option were left out.
TEST(OutputText, AnEmptyOutputFileNameIsAUsageError) {
  for (const std::string& args : {"place " + kExample + kCaps + " --spec hw:numa_nodes=1 -o ''",
                                  "topology" + kCaps + " --svg ''", "topology" + kCaps + " --html ''"}) {
    CliRun r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << args << "\n" << r.out;
    EXPECT_NE(r.err.find("an empty file name"), std::string::npos) << r.err;
  }
}

// --no-prefer-closest is a flag of its own: the help does not show CLI11's "{false}", and giving
// both flags is a usage error rather than one silently winning.
TEST(OutputText, PreferClosestAndItsNegationAreTwoFlagsThatExcludeEachOther) {
  CliRun help = run("place --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_EQ(help.out.find("{false}"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--no-prefer-closest"), std::string::npos);
  CliRun both = run("place " + kExample + kCaps + " --prefer-closest --no-prefer-closest");
  EXPECT_EQ(both.exit_code, 2) << both.err;
  EXPECT_TRUE(both.out.empty());
  CliRun one = run("place " + kExample + kCaps + " --no-prefer-closest");
  EXPECT_EQ(one.exit_code, 0) << one.err;
}

// A first word that is no command is named (it was "A subcommand is required"), and every usage
// error is one "numaplace: UsageError: ..." line, as the other errors are.
TEST(OutputText, AWordThatIsNoCommandIsNamed) {
  CliRun typo = run("plac " + kExample);
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_TRUE(typo.out.empty());
  EXPECT_EQ(typo.err.rfind("numaplace: UsageError: 'plac' is not a command; the commands are place, topology", 0), 0u)
      << typo.err;
  EXPECT_EQ(std::count(typo.err.begin(), typo.err.end(), '\n'), 1) << typo.err;
  CliRun json = run("plac " + kExample + " --json");
  EXPECT_EQ(json.exit_code, 2);
  EXPECT_EQ(nlohmann::json::parse(json.out)["error"]["name"], "UsageError");
  // After "--" come arguments, not options: a "--json" there (a domain file of that name) does not
  // turn a usage error into JSON.
  CliRun after = run("place --bogus-flag -- --json");
  EXPECT_EQ(after.exit_code, 2);
  EXPECT_TRUE(after.out.empty()) << after.out;
  EXPECT_EQ(after.err.rfind("numaplace: UsageError: ", 0), 0u) << after.err;
}

// A file that cannot be read is CannotRead (exit 2) whichever argument names it, the DOMAIN or an
// option's FILE, in one line naming the option and the path; it was UsageError for options.
TEST(OutputText, AnUnreadableFileIsCannotReadWhicheverArgumentNamesIt) {
  const std::string missing = "/nonexistent/caps.xml";
  const std::string caps = " --capabilities " + shared_path("samples/libvirt/caps-2cell.xml");
  CliRun domain = run("place " + missing + caps);
  EXPECT_EQ(domain.exit_code, 2);
  EXPECT_EQ(domain.err.rfind("numaplace: CannotRead: ", 0), 0u) << domain.err;
  for (const std::string option : {"--capabilities", "--hwloc", "--nodedev", "--host-config", "--claim"}) {
    const std::string host = option == "--capabilities" || option == "--hwloc" ? "" : caps;
    CliRun r = run("place " + kExample + host + " " + option + " " + missing);
    EXPECT_EQ(r.exit_code, 2) << option;
    EXPECT_TRUE(r.out.empty()) << option << ": " << r.out;
    EXPECT_EQ(r.err, "numaplace: CannotRead: " + option + ": cannot read '" + missing +
                         "': No such file or directory\n") << option;
    CliRun json = run("place " + kExample + host + " " + option + " " + missing + " --json");
    EXPECT_EQ(json.exit_code, 2) << option;
    EXPECT_EQ(nlohmann::json::parse(json.out)["error"]["name"], "CannotRead") << option << ": " << json.out;
  }
  CliRun define = run("define " + kExample + " -c test:///default --dry-run --host-config " + missing);
  EXPECT_EQ(define.exit_code, 2);
  EXPECT_EQ(define.err.rfind("numaplace: CannotRead: --host-config: cannot read", 0), 0u) << define.err;
}

// A usage error points at the help that documents what went wrong: the command's own when one was
// given. An option before any command is named as such (it was "A subcommand is required"), and
// a count that is no whole number is said to be none, where CLI11 called it "not in range".
TEST(OutputText, UsageErrorsNameTheCommandsHelpAndWhatIsWrong) {
  CliRun rank = run("rank --hosts " + source_path("examples/hosts") + " --vcpus 2 --memory 12abc");
  EXPECT_EQ(rank.exit_code, 2);
  EXPECT_TRUE(rank.out.empty()) << rank.out;
  EXPECT_EQ(rank.err, "numaplace: UsageError: --memory: '12abc' is not a whole number; give one from 1 to "
                      "1099511627776 (numaplace rank --help)\n");
  for (const std::string count : {"-1", "1e3", " 4", ""}) {
    CliRun r = run("rank --hosts " + source_path("examples/hosts") + " --vcpus '" + count + "' --memory 1024");
    EXPECT_EQ(r.exit_code, 2) << count;
    EXPECT_NE(r.err.find("--vcpus: '" + count + "' is not a whole number; give one from 1 to"), std::string::npos)
        << count << ": " << r.err;
  }
  CliRun beyond = run("rank --hosts " + source_path("examples/hosts") + " --vcpus 2 --memory 99999999999999999999");
  EXPECT_NE(beyond.err.find("--memory: 99999999999999999999 is out of range"), std::string::npos) << beyond.err;
  CliRun hook = run("hook --timeout 0 qemu vm prepare begin -");
  EXPECT_EQ(hook.exit_code, 2);
  EXPECT_NE(hook.err.find("--timeout: 0 is out of range; give a whole number from 1 to 3600 (numaplace hook --help)"),
            std::string::npos) << hook.err;
  CliRun first = run("--json place " + kExample + kCaps);
  EXPECT_EQ(first.exit_code, 2);
  EXPECT_EQ(nlohmann::json::parse(first.out)["error"]["message"],
            "'--json' is not an option of numaplace itself; give the command first (place, topology, define, start, "
            "hook, rank, audit), then its options");
  CliRun bare = run("--bogus");
  EXPECT_EQ(bare.exit_code, 2);
  EXPECT_EQ(bare.err.rfind("numaplace: UsageError: '--bogus' is not an option of numaplace itself;", 0), 0u) << bare.err;
  EXPECT_NE(bare.err.find("(numaplace --help)"), std::string::npos) << bare.err;
  EXPECT_EQ(run("--version").exit_code, 0);
}

// A command without --json (the hook, whose reader is libvirt) says it has none, on stderr, rather
// than answering in JSON that its option was not expected.
TEST(OutputText, JsonGivenToACommandWithoutItIsNamedInText) {
  for (const std::string args : {"hook --json qemu x prepare begin -", "hook qemu --json -- x prepare begin -"}) {
    CliRun r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_TRUE(r.out.empty()) << args << "\n" << r.out;
    EXPECT_EQ(r.err, "numaplace: UsageError: numaplace hook has no --json option; leave it out (numaplace hook --help)\n");
  }
}

// A guest name holding a newline or a tab (libvirt refuses such names; a --claim file need not be
// libvirt's) prints escaped, so that each line of topology and audit stays one line.
TEST(OutputText, AGuestNameWithControlCharactersStaysOnItsLine) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("numaplace-names-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ifstream in(shared_path("samples/libvirt/domain-testdriver-2cell.xml"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto at = text.find("<name>numa-test</name>");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 22, "<name>bad&#10;name&#9;x</name>");
  const std::string claim = (dir / "claim.xml").string();
  std::ofstream(claim) << text;
  CliRun topology = run("topology" + kCaps + " --claim " + claim);
  EXPECT_EQ(topology.exit_code, 0) << topology.err;
  EXPECT_NE(topology.out.find("  bad\\x0aname\\x09x: cell 0"), std::string::npos) << topology.out;
  std::filesystem::remove_all(dir);
}

// --svg and --html are written both or neither: the second failing leaves no first behind.
TEST(OutputText, SvgAndHtmlAreWrittenBothOrNeither) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("numaplace-map-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string svg = (dir / "host.svg").string();
  CliRun failed = run("topology" + kCaps + " --svg " + svg + " --html " + (dir / "no-such-dir" / "host.html").string());
  EXPECT_EQ(failed.exit_code, 1) << failed.err;
  EXPECT_NE(failed.err.find("CannotWrite"), std::string::npos) << failed.err;
  EXPECT_NE(failed.err.find("its directory '" + (dir / "no-such-dir").string() + "' does not exist"), std::string::npos)
      << failed.err;
  EXPECT_FALSE(std::filesystem::exists(svg));
  EXPECT_TRUE(std::filesystem::is_empty(dir));  // no temporary file left either
  CliRun both = run("topology" + kCaps + " --svg " + svg + " --html " + (dir / "host.html").string());
  EXPECT_EQ(both.exit_code, 0) << both.err;
  EXPECT_TRUE(std::filesystem::exists(svg));
  EXPECT_TRUE(std::filesystem::exists(dir / "host.html"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace numaplace
