// SPDX-License-Identifier: LGPL-2.1-or-later
#include "plugin/sources/host_cells.h"


#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "plugin/sources/host_json.h"

namespace numaplace::plugin {
namespace {

// The same bounds as the JSON reader's fields (host_json.cpp, json_fields.cpp).
constexpr std::int64_t kMaxCellId = 65535;
constexpr std::int64_t kMaxMemoryMib = (std::int64_t{1} << 50) / 1024;
constexpr std::int64_t kMaxPageSizeKib = std::int64_t{1} << 30;
constexpr std::int64_t kMaxPages = std::int64_t{1} << 40;
constexpr std::int64_t kMaxSharedCpusUsed = 1'000'000'000;

struct BadWord {
  std::string message;
};

// Reads the words front to back. What each read is for is a plain text, made into a sentence (with
// the cell it belongs to) only when the word is bad or missing: the reads are the whole cost.
class WordReader {
 public:
  explicit WordReader(std::span<const std::int64_t> words) : words_(words) {}

  void start_cell(std::size_t index) { cell_ = index; }

  // The next word, within min..max; a missing or bad word throws BadWord naming it.
  std::int64_t next(std::int64_t min, std::int64_t max, const char* what) {
    if (at_ >= words_.size() || words_[at_] < min || words_[at_] > max) refuse(min, max, what);
    return words_[at_++];
  }

  // N, then N CPU ids.
  CpuSet cpus(const char* count_what, const char* what) {
    const auto count = next(0, static_cast<std::int64_t>(remaining()), count_what);
    CpuSet set;
    for (std::int64_t i = 0; i < count; ++i) set.insert(static_cast<std::uint32_t>(next(0, kMaxCpuId, what)));
    return set;
  }

  // A word already read (at `index`, before position()).
  std::int64_t at(std::size_t index) const { return words_[index]; }

  std::size_t remaining() const { return words_.size() - at_; }
  std::size_t position() const { return at_; }

  // `what`, with the cell being read when there is one ("cell 3 page size KiB").
  std::string named(const char* what) const {
    return cell_ == kNoCell ? std::string(what) : "cell " + std::to_string(cell_) + " " + what;
  }

  // Kept out of line: every host reads hundreds of words, and the text is made only for a bad one.
  [[noreturn, gnu::cold, gnu::noinline]] void refuse(std::int64_t min, std::int64_t max, const char* what) const {
    if (at_ >= words_.size()) throw BadWord{"the words end at word " + std::to_string(at_) + ", where " + named(what) + " was to come"};
    throw BadWord{"word " + std::to_string(at_) + " (" + named(what) + ") is " + std::to_string(words_[at_]) +
                  ", not within " + std::to_string(min) + ".." + std::to_string(max)};
  }

  static constexpr std::size_t kNoCell = static_cast<std::size_t>(-1);
  std::span<const std::int64_t> words_;
  std::size_t at_ = 0;
  std::size_t cell_ = kNoCell;
};

// Reads one cell into `cell`, which may hold a cell of an earlier host: it is reset to a new
// cell's fields first, only its sibling and page buffers kept (cleared) for their memory.
void read_cell(WordReader& words, HostCell& cell) {
  {
    std::vector<CpuSet> siblings = std::move(cell.siblings);
    std::vector<PagePool> pages = std::move(cell.pages);
    cell = HostCell{};
    siblings.clear();
    pages.clear();
    cell.siblings = std::move(siblings);
    cell.pages = std::move(pages);
  }
  cell.id = static_cast<std::uint32_t>(words.next(0, kMaxCellId, "id"));
  cell.memory_kib = static_cast<std::uint64_t>(words.next(0, kMaxMemoryMib, "memory MiB")) * 1024;
  cell.usage.shared_cpus = static_cast<double>(words.next(0, kMaxSharedCpusUsed, "shared CPUs used"));
  cell.usage.memory_kib = static_cast<std::uint64_t>(words.next(0, kMaxMemoryMib, "memory used MiB")) * 1024;
  const std::int64_t socket = words.next(-1, kMaxCellId, "socket");
  if (socket >= 0) cell.socket = static_cast<std::uint32_t>(socket);
  cell.shared_cpus = words.cpus("number of shared CPUs", "shared CPU id");
  cell.dedicated_cpus = words.cpus("number of dedicated CPUs", "dedicated CPU id");
  cell.cpus = cell.shared_cpus.united(cell.dedicated_cpus);
  cell.usage.pinned_cpus = words.cpus("number of pinned CPUs", "pinned CPU id");
  const auto groups = words.next(0, static_cast<std::int64_t>(words.remaining()), "number of sibling groups");
  // The sizes are checked as they are read, then read again where they lie (no copy per cell).
  const std::size_t sizes_at = words.position();
  std::int64_t left = static_cast<std::int64_t>(words.remaining()) - groups;
  for (std::int64_t g = 0; g < groups; ++g) left -= words.next(0, std::max<std::int64_t>(left, 0), "size of a sibling group");
  cell.siblings.resize(static_cast<std::size_t>(groups));
  for (std::size_t g = 0; g < cell.siblings.size(); ++g) {
    const std::int64_t size = words.at(sizes_at + g);
    for (std::int64_t i = 0; i < size; ++i) cell.siblings[g].insert(static_cast<std::uint32_t>(words.next(0, kMaxCpuId, "sibling CPU id")));
  }
  const auto pools = words.next(0, static_cast<std::int64_t>(words.remaining() / 4), "number of page pools");
  cell.pages.reserve(static_cast<std::size_t>(pools));
  for (std::int64_t p = 0; p < pools; ++p) {
    PagePool pool;
    pool.size_kib = static_cast<std::uint64_t>(words.next(1, kMaxPageSizeKib, "page size KiB"));
    pool.total = static_cast<std::uint64_t>(words.next(0, kMaxPages, "pages total"));
    pool.used = static_cast<std::uint64_t>(words.next(0, kMaxPages, "pages used"));
    pool.reserved = static_cast<std::uint64_t>(words.next(0, kMaxPages, "pages reserved"));
    cell.pages.push_back(pool);
  }
  if (const auto twice = sort_page_pools(cell.pages)) {
    throw BadWord{words.named("page sizes") + " list " + std::to_string(*twice) + " KiB more than once; give each size one pool"};
  }
}

// The index of the first cell whose id an earlier cell has, if any: compared pairwise on hosts of
// up to 64 cells (no memory asked for), else one bit per possible id (ids are at most kMaxCellId).
std::optional<std::size_t> first_repeated_id(const std::vector<HostCell>& cells) {
  if (cells.size() <= 64) {
    for (std::size_t i = 1; i < cells.size(); ++i) {
      for (std::size_t j = 0; j < i; ++j) {
        if (cells[j].id == cells[i].id) return i;
      }
    }
    return std::nullopt;
  }
  std::vector<bool> seen(static_cast<std::size_t>(kMaxCellId) + 1);
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (seen[cells[i].id]) return i;
    seen[cells[i].id] = true;
  }
  return std::nullopt;
}

std::string ratio_problem(double ratio, const char* name) {
  if (std::isfinite(ratio) && ratio > 0 && ratio <= 1e6) return {};
  return std::string("the ") + name + " allocation ratio must be a positive number up to 1e6 (both NaN: no limits)";
}

}  // namespace

Status read_host_cells(std::span<const std::int64_t> words, double cpu_ratio, double ram_ratio, HostTopology& into) {
  {
    std::vector<HostCell> cells = std::move(into.cells);
    into = HostTopology{};
    into.cells = std::move(cells);
  }
  into.accounting = Accounting::Nova;
  if (std::isnan(cpu_ratio) && std::isnan(ram_ratio)) {
    into.ratio.enforced = false;
  } else {
    for (const auto& problem : {ratio_problem(cpu_ratio, "CPU"), ratio_problem(ram_ratio, "RAM")}) {
      if (!problem.empty()) return make_error("InvalidHostCells", problem);
    }
    into.ratio.cpu = cpu_ratio;
    into.ratio.ram = ram_ratio;
  }
  try {
    WordReader reader(words);
    const auto count = static_cast<std::size_t>(reader.next(1, static_cast<std::int64_t>(words.size()), "the number of cells"));
    into.cells.resize(count);  // the cells an earlier host left are read over (read_cell resets each)
    for (std::size_t i = 0; i < count; ++i) {
      reader.start_cell(i);
      read_cell(reader, into.cells[i]);
    }
    if (const auto repeated = first_repeated_id(into.cells)) {
      throw BadWord{"cell " + std::to_string(*repeated) + " repeats cell id " + std::to_string(into.cells[*repeated].id)};
    }
    if (const auto problem = cell_cpu_problem(into)) throw BadWord{*problem};
    if (reader.remaining() != 0) {
      throw BadWord{std::to_string(reader.remaining()) + " words are left after the last cell (word " +
                    std::to_string(reader.position()) + " on)"};
    }
  } catch (const BadWord& problem) {
    return make_error("InvalidHostCells", "packed host cells: " + problem.message);
  }
  return Done{};
}

Result<HostTopology> host_from_cells(std::span<const std::int64_t> words, double cpu_ratio, double ram_ratio,
                                     std::string_view pci_json, std::string_view networks_json) {
  HostTopology topology;
  if (auto read = read_host_cells(words, cpu_ratio, ram_ratio, topology); !read) return read.error();
  if (!pci_json.empty()) {
    auto devices = pci_devices_from_json_text(pci_json);
    if (!devices) return devices.error();
    topology.pci = std::move(*devices);
  }
  if (!networks_json.empty()) {
    auto networks = cell_networks_from_json_text(networks_json, topology.cells.size());
    if (!networks) return networks.error();
    for (std::size_t i = 0; i < topology.cells.size(); ++i) topology.cells[i].network = std::move((*networks)[i]);
  }
  return topology;
}

}  // namespace numaplace::plugin
