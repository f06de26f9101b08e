// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/model/memory_size.h"

#include <gtest/gtest.h>

namespace numaplace {
namespace {

TEST(MemorySize, ConvertsEveryLibvirtUnit) {
  EXPECT_EQ(*memory_to_kib("4", "GiB", "m"), 4u * 1024 * 1024);
  EXPECT_EQ(*memory_to_kib("4", "G", "m"), 4u * 1024 * 1024);
  EXPECT_EQ(*memory_to_kib("2048", "MiB", "m"), 2048u * 1024);
  EXPECT_EQ(*memory_to_kib("2048", "M", "m"), 2048u * 1024);
  EXPECT_EQ(*memory_to_kib("512", "KiB", "m"), 512u);
  EXPECT_EQ(*memory_to_kib("512", "k", "m"), 512u);
  EXPECT_EQ(*memory_to_kib("512", "", "m"), 512u);  // libvirt's default unit
  EXPECT_EQ(*memory_to_kib("1024", "KB", "m"), 1000u);
  EXPECT_EQ(*memory_to_kib("1048576", "b", "m"), 1024u);
  EXPECT_EQ(*memory_to_kib("1048576", "bytes", "m"), 1024u);
  EXPECT_EQ(*memory_to_kib("1", "TiB", "m"), 1024ull * 1024 * 1024);
  EXPECT_EQ(*memory_to_kib("1", "PiB", "m"), 1024ull * 1024 * 1024 * 1024);
}

// libvirt reads a unit without case (virScaleInteger): a domain libvirt accepts is read.
TEST(MemorySize, ReadsAUnitWithoutCaseAsLibvirtDoes) {
  EXPECT_EQ(*memory_to_kib("4", "g", "m"), 4u * 1024 * 1024);
  EXPECT_EQ(*memory_to_kib("4", "gib", "m"), 4u * 1024 * 1024);
  EXPECT_EQ(*memory_to_kib("4", "GIB", "m"), 4u * 1024 * 1024);
  EXPECT_EQ(*memory_to_kib("2048", "m", "m"), 2048u * 1024);
  EXPECT_EQ(*memory_to_kib("2048", "mb", "m"), 2048u * 1000 * 1000 / 1024);
  EXPECT_EQ(*memory_to_kib("2048", "Mb", "m"), 2048u * 1000 * 1000 / 1024);
  EXPECT_EQ(*memory_to_kib("1048576", "B", "m"), 1024u);
  EXPECT_EQ(*memory_to_kib("1048576", "Byte", "m"), 1024u);
  EXPECT_EQ(*memory_to_kib("1048576", "BYTES", "m"), 1024u);
  EXPECT_EQ(*memory_to_kib("2", "kib", "m"), 2u);
  EXPECT_EQ(*memory_to_kib("1", "eib", "m"), 1024ull * 1024 * 1024 * 1024 * 1024);
  EXPECT_EQ(*memory_to_kib("1", "t", "m"), 1024ull * 1024 * 1024);
  for (const char* unit : {"kibb", "ki", "xb", "mbytes", "gi", "bb", "kbyte"}) {
    EXPECT_FALSE(memory_to_kib("1", unit, "m").ok()) << unit;
  }
}

TEST(MemorySize, RefusesWhatCannotBeASize) {
  for (auto [value, unit] : std::initializer_list<std::pair<const char*, const char*>>{
           {"-1", "KiB"}, {"abc", "KiB"}, {"1.5", "GiB"}, {"", "KiB"}, {"1", "parsecs"},
           {"99999999999999999999999", "KiB"}, {"18446744073709551615", "GiB"}, {"1000", "EiB"}, {"1", "b"}}) {
    auto kib = memory_to_kib(value, unit, "memory");
    EXPECT_FALSE(kib.ok()) << value << " " << unit;
    if (!kib.ok()) {
      EXPECT_EQ(kib.error().name, "InvalidMemorySize");
    }
  }
}

// A domain's size as libvirt reads it (virDomainParseMemory): blanks before the number and a '+'
// taken, nothing after it; rounded up to whole KiB; at most 2^63 - 1 bytes. Checked against
// libvirt's test driver by DomainMemoryProperty (libvirt_numbers_property_test.cpp).
TEST(MemorySize, ReadsADomainsSizeAsLibvirtDoes) {
  EXPECT_EQ(*domain_memory_to_kib("+512", "MiB", "m"), 512u * 1024);
  EXPECT_EQ(*domain_memory_to_kib(" \t\n512", "KiB", "m"), 512u);
  EXPECT_EQ(*domain_memory_to_kib("1000", "b", "m"), 1u);
  EXPECT_EQ(*domain_memory_to_kib("1025", "b", "m"), 2u);
  EXPECT_EQ(*domain_memory_to_kib("1", "GB", "m"), 976563u);
  EXPECT_EQ(*domain_memory_to_kib("0", "KiB", "m"), 0u);
  EXPECT_EQ(*domain_memory_to_kib("8191", "PiB", "m"), 8191ull << 40);
  for (auto [value, unit] : std::initializer_list<std::pair<const char*, const char*>>{
           {"512 ", "KiB"}, {"512\n", "KiB"}, {"++1", "KiB"}, {"+-1", "KiB"}, {" -1", "KiB"}, {"", "KiB"}, {" ", "KiB"},
           {"1", " MiB"}, {"8192", "PiB"}, {"9223372036854775808", "b"}, {"18446744073709551616", "b"}}) {
    auto kib = domain_memory_to_kib(value, unit, "memory");
    EXPECT_FALSE(kib.ok()) << "'" << value << "' '" << unit << "'";
    if (!kib.ok()) {
      EXPECT_EQ(kib.error().name, "InvalidMemorySize");
    }
  }
  // A host source's size keeps its own reading: blanks around it let be, whole KiB only.
  EXPECT_EQ(*memory_to_kib(" 512 ", "KiB", "m"), 512u);
  EXPECT_FALSE(memory_to_kib("1000", "b", "m").ok());
}

}  // namespace
}  // namespace numaplace
