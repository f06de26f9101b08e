// SPDX-License-Identifier: LGPL-2.1-or-later
// Hostile XML: an external entity pointing at a file (XXE), a billion-laughs document, a
// 100 MB document and a 10,000-deep nesting, through every reader of outside XML (the one
// parser, capabilities, node devices, domains via place_domain, hwloc exports, the CLI).
// Each is refused with a named error, quickly (loose bounds of seconds; speed targets belong
// in benchmarks), and nothing is read from disk: an inotify watch on the entity's target
// file sees no open, and its content appears in no output.
#include <gtest/gtest.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "plugin/sources/hwloc_source.h"
#include "plugin/service/place_domain.h"
#include "support/cli_runner.h"
#include "support/test_paths.h"
#include "xml/capabilities_reader.h"
#include "xml/nodedev_reader.h"
#include "xml/xml_document.h"

namespace numaplace {
namespace {

namespace fs = std::filesystem;
using numaplace::testing::cli_path;
using numaplace::testing::shared_path;

constexpr const char* kSecret = "NUMAPLACE-XXE-SECRET-7f3a";

// A scratch directory with a secret file whose every open is watched.
class XmlHardening : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("numaplace-xml-hardening-" + std::to_string(getpid()));
    fs::create_directories(dir_);
    secret_ = (dir_ / "secret.txt").string();
    std::ofstream(secret_) << kSecret << '\n';
    inotify_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    ASSERT_GE(inotify_, 0);
    ASSERT_GE(inotify_add_watch(inotify_, secret_.c_str(), IN_OPEN | IN_ACCESS), 0);
  }
  void TearDown() override {
    if (inotify_ >= 0) close(inotify_);
    fs::remove_all(dir_);
  }

  // True when anything opened or read the secret since the last call.
  bool secret_touched() {
    char buffer[4096];
    bool touched = false;
    while (read(inotify_, buffer, sizeof buffer) > 0) touched = true;
    return touched;
  }

  std::string write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  fs::path dir_;
  std::string secret_;
  int inotify_ = -1;
};

std::string utf16(const std::string& ascii) {
  std::string out = "\xff\xfe";  // little-endian BOM
  for (char c : ascii) {
    out += c;
    out += '\0';
  }
  return out;
}

// Runs `action`, returns its wall time in seconds.
double seconds_for(const std::function<void()>& action) {
  const auto start = std::chrono::steady_clock::now();
  action();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string xxe_domain(const std::string& target) {
  return "<?xml version=\"1.0\"?>\n<!DOCTYPE domain [<!ENTITY x SYSTEM \"file://" + target +
         "\">]>\n<domain type='kvm'><name>&x;</name><memory unit='MiB'>1024</memory><vcpu>2</vcpu></domain>\n";
}

std::string billion_laughs(const std::string& root) {
  std::string text = "<?xml version=\"1.0\"?>\n<!DOCTYPE " + root + " [\n<!ENTITY lol \"lol\">\n";
  for (int i = 1; i <= 9; ++i) {
    text += "<!ENTITY lol" + std::to_string(i) + " \"";
    for (int j = 0; j < 10; ++j) text += i == 1 ? "&lol;" : "&lol" + std::to_string(i - 1) + ";";
    text += "\">\n";
  }
  return text + "]>\n<" + root + "><name>&lol9;</name></" + root + ">\n";
}

std::string deep(std::size_t depth) {
  std::string text = "<domain type='kvm'>";
  for (std::size_t i = 0; i < depth; ++i) text += "<a>";
  for (std::size_t i = 0; i < depth; ++i) text += "</a>";
  return text + "<name>deep</name><memory>1048576</memory><vcpu>1</vcpu></domain>";
}

HostTopology two_cell_host() {
  auto text = xml::read_text_file(shared_path("samples/libvirt/caps-2cell.xml"), "caps");
  return *xml::read_capabilities(*text);
}

// Every reader of outside XML text refuses `text` with `name`, and none mentions `must_not_leak`.
void expect_every_reader_refuses(const std::string& text, const std::string& name, const std::string& must_not_leak) {
  std::vector<Error> errors;
  auto doc = xml::parse_document(text, "doc");
  ASSERT_FALSE(doc.ok());
  errors.push_back(doc.error());
  auto caps = xml::read_capabilities(text);
  ASSERT_FALSE(caps.ok());
  errors.push_back(caps.error());
  auto devices = xml::read_node_devices(text);
  ASSERT_FALSE(devices.ok());
  errors.push_back(devices.error());
  plugin::PlaceRequest request;
  request.domain_xml = text;
  request.flavor_specs = {{"hw:numa_nodes", "1"}};
  auto placed = plugin::place_domain(two_cell_host(), request);
  ASSERT_FALSE(placed.ok());
  errors.push_back(placed.error());
  for (const auto& error : errors) {
    EXPECT_EQ(error.name, name) << error.message;
    EXPECT_EQ(error.message.find(must_not_leak), std::string::npos) << error.message;
  }
}

// The CLI's exit code and everything it printed, stdout and stderr together (a refusal must not
// leak the secret on either).
struct CliRun {
  int exit_code = -1;
  std::string output;
};

CliRun run_cli(const std::string& args) {
  const testing::CliRun run = testing::run(args);
  return {run.exit_code, run.out + run.err};
}

TEST_F(XmlHardening, ExternalEntityIsRefusedAndItsFileNeverOpened) {
  const double elapsed = seconds_for([&] {
    expect_every_reader_refuses(xxe_domain(secret_), "XmlForbiddenConstruct", kSecret);
    // A parameter entity (loaded while reading the DTD) and the same document in UTF-16,
    // where the DOCTYPE is not visible as bytes.
    expect_every_reader_refuses("<!DOCTYPE domain [<!ENTITY % p SYSTEM \"file://" + secret_ + "\"> %p;]><domain/>",
                                "XmlForbiddenConstruct", kSecret);
    expect_every_reader_refuses(utf16(xxe_domain(secret_)), "XmlUnsupportedEncoding", kSecret);
  });
  EXPECT_FALSE(secret_touched());
  EXPECT_LT(elapsed, 5.0);
}

// An <xi:include> is neither processed nor copied on: every reader refuses it, wherever it sits
// (either XInclude namespace), and the CLI writes nothing.
TEST_F(XmlHardening, XIncludeIsRefusedAndItsFileNeverOpened) {
  for (const std::string ns : {"http://www.w3.org/2001/XInclude", "http://www.w3.org/2003/XInclude"}) {
    const std::string text = "<domain type='kvm'><name>x</name><memory>1048576</memory><vcpu>1</vcpu>"
                             "<devices><disk type='file'><source><xi:include xmlns:xi='" + ns + "' href='" + secret_ +
                             "' parse='text'/></source></disk></devices></domain>";
    expect_every_reader_refuses(text, "XmlForbiddenConstruct", kSecret);
  }
  const std::string path = (dir_ / "xinclude.xml").string();
  std::ofstream(path) << "<domain type='kvm'><name>x</name><memory>1048576</memory><vcpu>1</vcpu><xi:include "
                         "xmlns:xi='http://www.w3.org/2001/XInclude' href='" << secret_ << "' parse='text'/></domain>";
  const CliRun run = run_cli("place " + path + " --capabilities " + shared_path("samples/libvirt/caps-2cell.xml"));
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_NE(run.output.find("XmlForbiddenConstruct"), std::string::npos) << run.output;
  EXPECT_EQ(run.output.find(kSecret), std::string::npos) << run.output;
  EXPECT_FALSE(secret_touched());
}

TEST_F(XmlHardening, ExternalEntityOnEtcPasswdLeaksNothingThroughTheCli) {
  const std::string domain = write("xxe.xml", xxe_domain("/etc/passwd"));
  const std::string caps = shared_path("samples/libvirt/caps-2cell.xml");
  for (const std::string& args : {"place " + domain + " --capabilities " + caps + " --spec hw:numa_nodes=1",
                                  "place " + domain + " --capabilities " + caps + " --spec hw:numa_nodes=1 --json",
                                  "topology --capabilities " + domain, "topology --capabilities " + caps +
                                  " --nodedev " + domain}) {
    SCOPED_TRACE(args);
    const CliRun run = run_cli(args);
    EXPECT_NE(run.exit_code, 0) << run.output;
    EXPECT_NE(run.output.find("XmlForbiddenConstruct"), std::string::npos) << run.output;
    EXPECT_EQ(run.output.find("root:"), std::string::npos) << run.output;
  }
}

TEST_F(XmlHardening, HwlocExportWithExternalEntityIsRefusedAndReadsNothing) {
  auto sample = xml::read_text_file(shared_path("samples/hwloc/synth-1numa.xml"), "hwloc");
  ASSERT_TRUE(sample.ok());
  std::string xxe = *sample;
  const std::string doctype = "<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">";
  ASSERT_NE(xxe.find(doctype), std::string::npos);
  xxe.replace(xxe.find(doctype), doctype.size(),
              "<!DOCTYPE topology [<!ENTITY x SYSTEM \"file://" + secret_ + "\">]>");
  xxe.replace(xxe.find("<topology version=\"2.0\">"), 24, "<topology version=\"2.0\"><info name=\"x\" value=\"&x;\"/>");
  auto utf8 = plugin::load_hwloc_xml(write("hwloc-xxe.xml", xxe));
  ASSERT_FALSE(utf8.ok());
  EXPECT_EQ(utf8.error().name, "XmlForbiddenConstruct");
  // In UTF-16 the entity declaration is not visible as bytes; hwloc must still not read the file.
  std::string declared_utf16 = xxe;
  declared_utf16.replace(declared_utf16.find("encoding=\"UTF-8\""), 16, "encoding=\"UTF-16\"");
  auto wide = plugin::load_hwloc_xml(write("hwloc-xxe-16.xml", utf16(declared_utf16)));
  if (wide.ok()) {
    for (const auto& cell : wide->cells) EXPECT_FALSE(cell.cpus.empty());
  } else {
    EXPECT_FALSE(wide.error().name.empty());
    EXPECT_EQ(wide.error().message.find(kSecret), std::string::npos);
  }
  EXPECT_FALSE(secret_touched());
}

TEST_F(XmlHardening, BillionLaughsIsRefusedQuickly) {
  const double elapsed = seconds_for([&] {
    expect_every_reader_refuses(billion_laughs("domain"), "XmlForbiddenConstruct", "lollollol");
    expect_every_reader_refuses(utf16(billion_laughs("domain")), "XmlUnsupportedEncoding", "lollollol");
  });
  EXPECT_LT(elapsed, 5.0);
  const std::string path = write("lol.xml", billion_laughs("domain"));
  const CliRun run = run_cli("place " + path + " --capabilities " + shared_path("samples/libvirt/caps-2cell.xml") +
                             " --spec hw:numa_nodes=1");
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_NE(run.output.find("XmlForbiddenConstruct"), std::string::npos) << run.output;
}

TEST_F(XmlHardening, HundredMegabyteDocumentIsRefusedBeforeParsing) {
  const std::size_t size = 100u * 1024 * 1024;
  std::string big = "<domain type='kvm'><name>";
  big.resize(size - 32, 'x');
  big += "</name></domain>";
  const double in_memory = seconds_for([&] { expect_every_reader_refuses(big, "XmlTooLarge", "xxxxxxxx"); });
  EXPECT_LT(in_memory, 5.0);
  big.clear();
  big.shrink_to_fit();
  // On disk: a sparse 100 MB file, refused by its size before a byte of it is read.
  const std::string path = (dir_ / "big.xml").string();
  std::ofstream(path) << "<domain>";
  fs::resize_file(path, size);
  const double from_file = seconds_for([&] {
    auto text = xml::read_text_file(path, "domain XML");
    ASSERT_FALSE(text.ok());
    EXPECT_EQ(text.error().name, "XmlTooLarge");
    auto hwloc = plugin::load_hwloc_xml(path);
    ASSERT_FALSE(hwloc.ok());
    EXPECT_EQ(hwloc.error().name, "XmlTooLarge");
    const CliRun run = run_cli("place " + path + " --capabilities " + shared_path("samples/libvirt/caps-2cell.xml"));
    EXPECT_NE(run.exit_code, 0);
    EXPECT_NE(run.output.find("XmlTooLarge"), std::string::npos) << run.output;
  });
  EXPECT_LT(from_file, 5.0);
}

// Files that report no size (pipes, /proc) are read to their end under the same limit, and a
// directory is named as one rather than measured.
TEST_F(XmlHardening, PipesAreReadToTheirEndAndDirectoriesAreNamed) {
  auto directory = xml::read_text_file(dir_.string(), "domain XML");
  ASSERT_FALSE(directory.ok());
  EXPECT_EQ(directory.error().name, "CannotRead");
  EXPECT_NE(directory.error().message.find("it is a directory"), std::string::npos) << directory.error().message;
  auto missing = xml::read_text_file((dir_ / "missing.xml").string(), "domain XML");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().name, "CannotRead");
  EXPECT_NE(missing.error().message.find("missing.xml': No such file or directory"), std::string::npos)
      << missing.error().message;

  const std::string fifo = (dir_ / "pipe.xml").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  for (const std::size_t size : {std::size_t{100000}, xml::kMaxXmlBytes + 1}) {
    std::thread writer([&] {
      std::ofstream out(fifo, std::ios::binary);
      const std::string block(4096, 'x');
      for (std::size_t sent = 0; sent < size && out; sent += block.size()) {
        out.write(block.data(), static_cast<std::streamsize>(std::min(block.size(), size - sent)));
      }
    });
    auto text = xml::read_text_file(fifo, "domain XML");
    writer.join();
    if (size <= xml::kMaxXmlBytes) {
      ASSERT_TRUE(text.ok()) << text.error().message;
      EXPECT_EQ(text->size(), size);
    } else {
      ASSERT_FALSE(text.ok());
      EXPECT_EQ(text.error().name, "XmlTooLarge");
    }
  }
}

TEST_F(XmlHardening, TenThousandDeepNestingIsRefusedQuickly) {
  const double elapsed = seconds_for([&] { expect_every_reader_refuses(deep(10000), "XmlTooDeep", "<a><a>"); });
  EXPECT_LT(elapsed, 5.0);
  // A document nested as deep as real ones ever are still reads.
  EXPECT_TRUE(xml::parse_document(deep(100), "doc").ok());
}

// A document in another 8-bit encoding is read as UTF-8 whatever it declares (the DOCTYPE check
// reads bytes), so its first byte that is not UTF-8 is XmlUnsupportedEncoding saying so, on one
// line, not XmlMalformed: the document may well be well-formed in the encoding it declares.
TEST(XmlEncoding, ADocumentThatIsNotUtf8IsNamedAsSuchOnOneLine) {
  for (const std::string& text :
       {std::string("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><domain><name>caf\xe9</name></domain>"),
        std::string("<domain><name>caf\xe9</name></domain>")}) {
    auto doc = xml::parse_document(text, "doc");
    ASSERT_FALSE(doc.ok());
    EXPECT_EQ(doc.error().name, "XmlUnsupportedEncoding") << doc.error().message;
    EXPECT_EQ(doc.error().message.find('\n'), std::string::npos) << doc.error().message;
    EXPECT_NE(doc.error().message.find("0xE9"), std::string::npos) << doc.error().message;
  }
  auto broken = xml::parse_document("<domain><name>x</domain>", "doc");  // still malformed, and one line
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.error().name, "XmlMalformed");
  EXPECT_EQ(broken.error().message.find('\n'), std::string::npos) << broken.error().message;
}

}  // namespace
}  // namespace numaplace
