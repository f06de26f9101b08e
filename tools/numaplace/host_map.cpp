// SPDX-License-Identifier: LGPL-2.1-or-later
#include "numaplace/host_map.h"

#include <algorithm>
#include <array>
#include <optional>

#include "numaplace/cli_common.h"
#include "numaplace/markup_writer.h"
#include "numaplace/topology_table.h"
#include "placement/lifecycle/default_placement.h"

namespace numaplace::cli {
namespace {

constexpr std::string_view kSvgNamespace = "http://www.w3.org/2000/svg";

// Geometry, in SVG user units (pixels at 100 %).
constexpr double kWidth = 1400;
constexpr double kMargin = 20;
constexpr double kPanelGap = 20;
constexpr double kPad = 12;
constexpr double kThreadW = 62;
constexpr double kThreadH = 44;
constexpr double kThreadGap = 4;
constexpr double kCorePad = 4;
constexpr double kCoreGap = 8;
constexpr double kLine = 18;
constexpr double kBarH = 12;

// Guests' colours, in claim order (repeating past the last; the names tell them apart then).
constexpr std::array<const char*, 9> kPalette{"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1",
                                              "#76b7b2", "#edc948", "#9c755f", "#ff9da7"};
constexpr const char* kSeveral = "#8c8c8c";  // several guests float on one pCPU
constexpr const char* kFree = "#ffffff";
constexpr const char* kHostOnly = "#e4e4e4";
constexpr const char* kUsedMemory = "#3b5b7f";

const char* colour_of(std::size_t guest) { return kPalette[guest % kPalette.size()]; }

std::string mib(std::uint64_t kib) { return std::to_string(kib / 1024) + " MiB"; }

// Where a guest's floating vCPUs may run, as its threads say (a vCPU allowed on several pCPUs, or
// on one it does not hold); claims read from libvirt and --claim files always carry them.
CpuSet floating_set(const GuestClaim& claim) {
  const CpuSet held = claim.held_cpus();
  CpuSet floating;
  for (const auto& thread : claim.threads) {
    if (thread.kind != ThreadAffinity::Kind::Vcpu) continue;
    if (thread.cpus.size() == 1 && held.contains(thread.cpus.first())) continue;
    floating = floating.united(thread.cpus);
  }
  return floating;
}

struct GuestView {
  const GuestClaim* claim = nullptr;
  std::size_t index = 0;
  CpuSet floating;  // over all cells
};

// Who is on one pCPU, from the claims.
struct CpuView {
  std::string state;                   // pinned, idle, floating, free, host
  std::vector<std::size_t> pinned_by;  // guest indexes
  std::vector<std::size_t> idle_by;
  std::vector<std::size_t> floating;
};

CpuView view_of_cpu(const HostCell& cell, std::uint32_t cpu, const std::vector<GuestView>& guests,
                    const CpuSet& cell_floating) {
  CpuView view;
  for (const auto& guest : guests) {
    for (const auto& held : guest.claim->cells) {
      if (held.host_cell != cell.id) continue;
      if (held.pinned_cpus.contains(cpu)) view.pinned_by.push_back(guest.index);
      if (held.reserved_cpus.contains(cpu)) view.idle_by.push_back(guest.index);
      if (held.shared_vcpus > 0) {
        // A claim made without threads floats wherever the cell lets floating vCPUs run.
        const bool floats = guest.claim->threads.empty() ? cell_floating.contains(cpu) : guest.floating.contains(cpu);
        if (floats) view.floating.push_back(guest.index);
      }
    }
  }
  if (!view.pinned_by.empty()) {
    view.state = "pinned";
  } else if (!view.idle_by.empty()) {
    view.state = "idle";
  } else if (!view.floating.empty()) {
    view.state = "floating";
  } else if (cell.shared_cpus.contains(cpu) || cell.dedicated_cpus.contains(cpu)) {
    view.state = "free";
  } else {
    view.state = "host";
  }
  return view;
}

// The cell's cores: its sibling groups in the host's order, each CPU once; CPUs in no group are
// cores of their own.
std::vector<std::vector<std::uint32_t>> cores_of(const HostCell& cell) {
  std::vector<std::vector<std::uint32_t>> cores;
  CpuSet seen;
  for (const auto& group : cell.siblings) {
    std::vector<std::uint32_t> core;
    for (std::uint32_t cpu : group) {
      if (!cell.cpus.contains(cpu) || seen.contains(cpu)) continue;
      seen.insert(cpu);
      core.push_back(cpu);
    }
    if (!core.empty()) cores.push_back(std::move(core));
  }
  for (std::uint32_t cpu : cell.cpus) {
    if (!seen.contains(cpu)) cores.push_back({cpu});
  }
  return cores;
}

double core_width(std::size_t threads) {
  return static_cast<double>(threads) * kThreadW + static_cast<double>(threads - 1) * kThreadGap + 2 * kCorePad;
}

struct CoreBox {
  double x = 0, y = 0;  // relative to the grid's top left
  const std::vector<std::uint32_t>* cpus = nullptr;
};

// Cores flowed left to right, wrapping at `width`; returns the grid's height.
double flow_cores(const std::vector<std::vector<std::uint32_t>>& cores, double width, std::vector<CoreBox>& boxes) {
  double x = 0, y = 0;
  const double row_h = kThreadH + 2 * kCorePad + kCoreGap;
  for (const auto& core : cores) {
    const double w = core_width(core.size());
    if (x > 0 && x + w > width) {
      x = 0;
      y += row_h;
    }
    boxes.push_back({x, y, &core});
    x += w + kCoreGap;
  }
  return cores.empty() ? 0 : y + row_h - kCoreGap;
}

std::vector<const PciDevice*> devices_of_cell(const HostTopology& host, std::uint32_t cell) {
  std::vector<const PciDevice*> out;
  for (const auto& dev : host.pci) {
    if (dev.numa_node == cell) out.push_back(&dev);
  }
  return out;
}

std::vector<const PciDevice*> devices_without_cell(const HostTopology& host) {
  std::vector<const PciDevice*> out;
  for (const auto& dev : host.pci) {
    if (!dev.numa_node || host.find_cell(*dev.numa_node) == nullptr) out.push_back(&dev);
  }
  return out;
}

// The cell panel's height for a grid of `grid_h`.
double panel_height(const HostCell& cell, double grid_h, std::size_t devices) {
  double h = kPad + 2 * kLine + 6 + grid_h + 10;  // header, sub-header, grid
  h += kLine + kBarH + 8;                          // memory
  h += static_cast<double>(cell.pages.size()) * (kLine + 2);
  if (devices > 0) h += kLine + static_cast<double>(devices) * kLine;
  return h + kPad;
}

class Renderer {
 public:
  Renderer(const HostTopology& host, const std::vector<GuestClaim>& claims) : host_(host) {
    for (std::size_t i = 0; i < claims.size(); ++i) guests_.push_back({&claims[i], i, floating_set(claims[i])});
  }

  std::string svg(std::string_view title, bool standalone) {
    // Layout first: every panel's height, then the document's.
    const std::size_t columns = host_.cells.size() > 1 ? 2 : 1;
    const double panel_w = (kWidth - 2 * kMargin - static_cast<double>(columns - 1) * kPanelGap) / static_cast<double>(columns);
    std::vector<std::vector<CoreBox>> boxes(host_.cells.size());
    std::vector<std::vector<std::vector<std::uint32_t>>> cores(host_.cells.size());
    std::vector<double> grid_h(host_.cells.size()), panel_h(host_.cells.size());
    for (std::size_t i = 0; i < host_.cells.size(); ++i) {
      cores[i] = cores_of(host_.cells[i]);
      grid_h[i] = flow_cores(cores[i], panel_w - 2 * kPad, boxes[i]);
      panel_h[i] = panel_height(host_.cells[i], grid_h[i], devices_of_cell(host_, host_.cells[i].id).size());
    }
    const double key_top = kMargin + 34;
    const double key_h = guest_key_height();
    double y = key_top + 2 * kLine + key_h + 10;
    std::vector<double> panel_y(host_.cells.size());
    for (std::size_t row = 0; row * columns < host_.cells.size(); ++row) {
      double row_h = 0;
      for (std::size_t c = 0; c < columns && row * columns + c < host_.cells.size(); ++c) {
        panel_y[row * columns + c] = y;
        row_h = std::max(row_h, panel_h[row * columns + c]);
      }
      for (std::size_t c = 0; c < columns && row * columns + c < host_.cells.size(); ++c) {
        panel_h[row * columns + c] = row_h;  // panels of a row end together
      }
      y += row_h + kPanelGap;
    }
    const auto loose = devices_without_cell(host_);
    if (!loose.empty()) y += kLine + static_cast<double>(loose.size()) * kLine + kPanelGap;
    const double height = y - kPanelGap + kMargin;

    MarkupWriter w;
    w.open("svg").attr("xmlns", kSvgNamespace).attr("version", "1.1").attr("width", kWidth).attr("height", height);
    w.attr("viewBox", "0 0 " + format_number(kWidth) + " " + format_number(height));
    w.attr("font-family", "DejaVu Sans, Verdana, sans-serif").attr("font-size", 12).attr("class", "numaplace-host-map");
    w.element("title", "numaplace host map: " + std::string(title));
    defs(w);
    w.open("rect").attr("width", "100%").attr("height", "100%").attr("fill", "#ffffff").close();
    w.open("text").attr("x", kMargin).attr("y", kMargin + 16).attr("font-size", 18).attr("font-weight", "bold");
    w.text("host: " + shorten(title, 120)).close();
    std::string summary = std::to_string(host_.cells.size()) + (host_.cells.size() == 1 ? " NUMA cell" : " NUMA cells");
    summary += ", " + std::to_string(guests_.size()) + (guests_.size() == 1 ? " guest" : " guests") + " holding resources";
    if (host_.unbound_memory_kib > 0) summary += ", " + mib(host_.unbound_memory_kib) + " of guest memory bound to no cell";
    summary += host_.accounting == Accounting::Nova ? " (Nova's accounting)" : "";
    w.open("text").attr("x", kMargin).attr("y", kMargin + 34).attr("fill", "#444").text(summary).close();
    legend(w, key_top + kLine);
    guest_key(w, key_top + 2 * kLine + 4);
    for (std::size_t i = 0; i < host_.cells.size(); ++i) {
      const double x = kMargin + static_cast<double>(i % columns) * (panel_w + kPanelGap);
      cell_panel(w, host_.cells[i], boxes[i], x, panel_y[i], panel_w, panel_h[i]);
    }
    if (!loose.empty()) {
      double ly = y - kPanelGap - static_cast<double>(loose.size()) * kLine;
      w.open("text").attr("x", kMargin).attr("y", ly).attr("font-weight", "bold").text("PCI devices without a NUMA node").close();
      for (const PciDevice* dev : loose) {
        ly += kLine;
        pci_line(w, *dev, kMargin, ly);
      }
    }
    std::string out = w.finish();
    return standalone ? "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + out + "\n" : out;
  }

 private:
  std::string name_of(std::size_t guest) const { return guests_[guest].claim->name; }

  std::string names_of(const std::vector<std::size_t>& guests) const {
    std::string out;
    for (std::size_t g : guests) out += (out.empty() ? "" : ", ") + name_of(g);
    return out;
  }

  void defs(MarkupWriter& w) const {
    w.open("defs");
    auto hatch = [&](const std::string& id, const char* colour) {
      w.open("pattern").attr("id", id).attr("patternUnits", "userSpaceOnUse").attr("width", 8).attr("height", 8);
      w.attr("patternTransform", "rotate(45)");
      w.open("rect").attr("width", 8).attr("height", 8).attr("fill", "#ffffff").close();
      w.open("rect").attr("width", 4).attr("height", 8).attr("fill", colour).close();
      w.close();
    };
    auto dots = [&](const std::string& id, const char* colour) {
      w.open("pattern").attr("id", id).attr("patternUnits", "userSpaceOnUse").attr("width", 7).attr("height", 7);
      w.open("rect").attr("width", 7).attr("height", 7).attr("fill", "#ffffff").close();
      w.open("circle").attr("cx", 3.5).attr("cy", 3.5).attr("r", 2).attr("fill", colour).close();
      w.close();
    };
    for (const auto& guest : guests_) {
      hatch("float-" + std::to_string(guest.index), colour_of(guest.index));
      dots("idle-" + std::to_string(guest.index), colour_of(guest.index));
    }
    hatch("float-several", kSeveral);
    hatch("float-legend", "#555555");
    dots("idle-legend", "#555555");
    w.close();
  }

  // The fill and the label of a pCPU box.
  std::pair<std::string, std::string> look_of(const CpuView& view) const {
    if (view.state == "pinned") return {colour_of(view.pinned_by.front()), name_of(view.pinned_by.front())};
    if (view.state == "idle") {
      return {"url(#idle-" + std::to_string(view.idle_by.front()) + ")", name_of(view.idle_by.front())};
    }
    if (view.state == "floating") {
      if (view.floating.size() == 1) {
        return {"url(#float-" + std::to_string(view.floating.front()) + ")", name_of(view.floating.front())};
      }
      return {"url(#float-several)", std::to_string(view.floating.size()) + " guests"};
    }
    if (view.state == "free") return {kFree, "free"};
    return {kHostOnly, "host"};
  }

  // A text with a white halo, legible over any fill.
  static void label(MarkupWriter& w, double x, double y, std::string_view text, int size, bool bold = false) {
    w.open("text").attr("x", x).attr("y", y).attr("font-size", size);
    if (bold) w.attr("font-weight", "bold");
    w.attr("stroke", "#ffffff").attr("stroke-width", 3).attr("stroke-linejoin", "round").attr("paint-order", "stroke");
    w.attr("fill", "#111111").text(text).close();
  }

  void legend(MarkupWriter& w, double y) const {
    struct Item {
      const char* fill;
      const char* text;
    };
    const Item items[] = {{"#555555", "pinned (a dedicated vCPU)"},
                          {"url(#idle-legend)", "held idle (isolate's sibling, emulator pCPU)"},
                          {"url(#float-legend)", "floating vCPUs may run here (grey: several guests)"},
                          {kFree, "free"},
                          {kHostOnly, "host's own (not for guests)"}};
    double x = kMargin;
    w.open("g").attr("class", "legend");
    for (const auto& item : items) {
      w.open("rect").attr("x", x).attr("y", y - 11).attr("width", 22).attr("height", 14).attr("rx", 2);
      w.attr("fill", item.fill).attr("stroke", "#777777").close();
      w.open("text").attr("x", x + 28).attr("y", y).text(item.text).close();
      x += 28 + 6.6 * static_cast<double>(std::string_view(item.text).size()) + 24;
    }
    w.close();
  }

  // The guests' colours, wrapped over as many lines as they need.
  template <typename Emit>
  double flow_guest_key(Emit emit) const {
    double x = kMargin, y = 0;
    for (const auto& guest : guests_) {
      const std::string text = shorten(guest.claim->name, 32) + (guest.claim->running ? "" : " (defined)");
      const double w = 22 + 7.0 * static_cast<double>(std::min<std::size_t>(text.size(), 48)) + 20;
      if (x > kMargin && x + w > kWidth - kMargin) {
        x = kMargin;
        y += kLine;
      }
      emit(guest, text, x, y);
      x += w;
    }
    return guests_.empty() ? 0 : y + kLine;
  }

  double guest_key_height() const {
    return flow_guest_key([](const GuestView&, const std::string&, double, double) {});
  }

  void guest_key(MarkupWriter& w, double top) const {
    if (guests_.empty()) return;
    w.open("g").attr("class", "guests");
    flow_guest_key([&](const GuestView& guest, const std::string& text, double x, double y) {
      w.open("g").attr("class", "guest").attr("data-guest", guest.claim->name);
      w.open("rect").attr("x", x).attr("y", top + y + 2).attr("width", 14).attr("height", 14).attr("rx", 2);
      w.attr("fill", colour_of(guest.index)).close();
      w.open("text").attr("x", x + 20).attr("y", top + y + 13).text(text).close();
      w.close();
    });
    w.close();
  }

  void cell_panel(MarkupWriter& w, const HostCell& cell, const std::vector<CoreBox>& boxes, double x, double y,
                  double width, double height) const {
    const std::uint64_t free_kib = strict_memory_room_kib(host_, cell);
    const CpuSet cell_floating = floating_cpus_of(host_, cell);
    w.open("g").attr("class", "cell").attr("data-cell", cell.id).attr("data-memory-kib", cell.memory_kib);
    w.attr("data-used-kib", cell.usage.memory_kib).attr("data-free-kib", free_kib);
    w.open("rect").attr("x", x).attr("y", y).attr("width", width).attr("height", height).attr("rx", 8);
    w.attr("fill", "#f7f7f9").attr("stroke", "#9a9aa6").close();
    const double ix = x + kPad;
    double cy = y + kPad + 14;
    w.open("text").attr("x", ix).attr("y", cy).attr("font-size", 15).attr("font-weight", "bold");
    w.text("cell " + std::to_string(cell.id)).close();
    std::string head = std::to_string(cell.cpus.size()) + " CPUs (" + to_cpu_list(cell.cpus) + ") in " +
                       std::to_string(boxes.size()) + " cores";
    if (cell.socket) head += " · socket " + std::to_string(*cell.socket);
    if (!cell.cache_domains.empty()) head += " · " + std::to_string(cell.cache_domains.size()) + " L3 domains";
    if (!cell.distances.empty()) {
      head += " · distances";
      for (auto d : cell.distances) head += " " + std::to_string(d);
    }
    w.open("text").attr("x", ix + 60).attr("y", cy).text(head).close();
    cy += kLine;
    const CpuSet held_free = cell.shared_cpus.united(cell.dedicated_cpus).minus(cell.usage.pinned_cpus);
    w.open("text").attr("x", ix).attr("y", cy).attr("fill", "#444");
    w.text("held pCPUs " + (cell.usage.pinned_cpus.empty() ? std::string("-") : to_cpu_list(cell.usage.pinned_cpus)) +
           " · free pCPUs " + (held_free.empty() ? std::string("-") : to_cpu_list(held_free)) + " · floating load " +
           format_load(cell.usage.shared_cpus) + " on " + std::to_string(cell_floating.size()) + " pCPUs");
    w.close();
    cy += 10;
    for (const auto& box : boxes) {
      const double bx = ix + box.x, by = cy + box.y;
      // The core's L3 domain, when the host reports several: alternate domains are shaded apart.
      std::optional<std::size_t> l3;
      for (std::size_t d = 0; d < cell.cache_domains.size() && !box.cpus->empty(); ++d) {
        if (cell.cache_domains[d].contains(box.cpus->front())) l3 = d;
      }
      w.open("g").attr("class", "core");
      if (l3) w.attr("data-l3", *l3);
      w.open("rect").attr("x", bx).attr("y", by).attr("width", core_width(box.cpus->size()));
      w.attr("height", kThreadH + 2 * kCorePad).attr("rx", 5);
      w.attr("fill", l3 && *l3 % 2 == 1 ? "#c8d4e6" : "#dcdce4").attr("stroke", "#b4b4c0").close();
      for (std::size_t t = 0; t < box.cpus->size(); ++t) {
        cpu_box(w, cell, (*box.cpus)[t], bx + kCorePad + static_cast<double>(t) * (kThreadW + kThreadGap), by + kCorePad,
                *box.cpus, cell_floating);
      }
      w.close();
    }
    double grid_h = 0;
    for (const auto& box : boxes) grid_h = std::max(grid_h, box.y + kThreadH + 2 * kCorePad);
    cy += grid_h + 10 + 14;
    memory(w, cell, free_kib, ix, cy, width - 2 * kPad);
    cy += kBarH + 8;
    for (const auto& pool : cell.pages) {
      cy += kLine + 2;
      pages(w, pool, ix, cy - 4);
    }
    const auto devices = devices_of_cell(host_, cell.id);
    if (!devices.empty()) {
      cy += kLine + 4;
      w.open("text").attr("x", ix).attr("y", cy).attr("font-weight", "bold").text("PCI devices").close();
      for (const PciDevice* dev : devices) {
        cy += kLine;
        pci_line(w, *dev, ix, cy);
      }
    }
    w.close();
  }

  void cpu_box(MarkupWriter& w, const HostCell& cell, std::uint32_t cpu, double x, double y,
               const std::vector<std::uint32_t>& core, const CpuSet& cell_floating) const {
    const CpuView view = view_of_cpu(cell, cpu, guests_, cell_floating);
    const auto [fill, text] = look_of(view);
    w.open("g").attr("class", "pcpu " + view.state).attr("id", "cpu-" + std::to_string(cpu));
    w.attr("data-cpu", cpu).attr("data-cell", cell.id).attr("data-state", view.state);
    if (!view.pinned_by.empty()) {
      w.attr("data-holder", name_of(view.pinned_by.front()));
    } else if (!view.idle_by.empty()) {
      w.attr("data-holder", name_of(view.idle_by.front()));
    }
    std::string title = "pCPU " + std::to_string(cpu) + ", cell " + std::to_string(cell.id);
    if (core.size() > 1) {
      CpuSet siblings;
      for (auto c : core) siblings.insert(c);
      title += ", core of " + to_cpu_list(siblings);
    }
    if (!view.pinned_by.empty()) title += "; pinned by " + names_of(view.pinned_by);
    if (!view.idle_by.empty()) title += "; held idle by " + names_of(view.idle_by);
    if (!view.floating.empty()) title += "; floating: " + names_of(view.floating);
    if (view.state == "free") title += "; free";
    if (view.state == "host") title += "; the host's own (in neither the shared nor the dedicated set)";
    w.element("title", title);
    w.open("rect").attr("x", x).attr("y", y).attr("width", kThreadW).attr("height", kThreadH).attr("rx", 3);
    w.attr("fill", fill).attr("stroke", view.state == "free" ? "#8a8a8a" : "#555555");
    if (view.state == "idle") w.attr("stroke-dasharray", "3 2");
    w.close();
    label(w, x + 5, y + 16, std::to_string(cpu), 13, true);
    if (view.state == "pinned" || view.state == "idle" || view.state == "floating") {
      label(w, x + 5, y + 33, shorten(text, 7), 10);
    } else {
      w.open("text").attr("x", x + 5).attr("y", y + 33).attr("font-size", 10).attr("fill", "#777777").text(text).close();
    }
    w.close();
  }

  void memory(MarkupWriter& w, const HostCell& cell, std::uint64_t free_kib, double x, double y, double width) const {
    std::uint64_t huge_kib = 0;
    for (std::size_t i = 1; i < cell.pages.size(); ++i) huge_kib += cell.pages[i].size_kib * cell.pages[i].total;
    std::string text = "memory " + mib(cell.memory_kib) + ": " + mib(cell.usage.memory_kib) + " used, " + mib(free_kib) +
                       " free for a strict binding";
    if (huge_kib > 0) text += ", " + mib(huge_kib) + " in huge page pools";
    w.open("g").attr("class", "memory");
    w.open("text").attr("x", x).attr("y", y).text(text).close();
    const double top = y + 5;
    const double total = static_cast<double>(std::max<std::uint64_t>(cell.memory_kib, 1));
    auto share = [&](std::uint64_t kib) { return std::min(width, width * static_cast<double>(kib) / total); };
    w.open("rect").attr("x", x).attr("y", top).attr("width", width).attr("height", kBarH).attr("fill", "#ffffff");
    w.attr("stroke", "#8a8a8a").close();
    const double used_w = share(cell.usage.memory_kib);
    if (used_w > 0) {
      w.open("rect").attr("x", x).attr("y", top).attr("width", used_w).attr("height", kBarH).attr("fill", kUsedMemory).close();
    }
    const double huge_w = std::min(share(huge_kib), width - used_w);
    if (huge_w > 0) {
      w.open("rect").attr("x", x + width - huge_w).attr("y", top).attr("width", huge_w).attr("height", kBarH);
      w.attr("fill", "url(#float-legend)").attr("opacity", 0.5).close();
    }
    w.close();
  }

  void pages(MarkupWriter& w, const PagePool& pool, double x, double y) const {
    w.open("g").attr("class", "pages").attr("data-size-kib", pool.size_kib).attr("data-total", pool.total);
    w.attr("data-used", pool.used).attr("data-reserved", pool.reserved).attr("data-free", pool.free());
    const double bar_w = 160;
    const double total = static_cast<double>(std::max<std::uint64_t>(pool.total, 1));
    w.open("rect").attr("x", x).attr("y", y - 9).attr("width", bar_w).attr("height", 10).attr("fill", "#ffffff");
    w.attr("stroke", "#8a8a8a").close();
    const double used_w = std::min(bar_w, bar_w * static_cast<double>(pool.used + pool.reserved) / total);
    if (pool.total > 0 && used_w > 0) {
      w.open("rect").attr("x", x).attr("y", y - 9).attr("width", used_w).attr("height", 10).attr("fill", kUsedMemory).close();
    }
    std::string text = std::to_string(pool.size_kib) + " KiB pages: " + std::to_string(pool.used) + " used, ";
    if (pool.reserved > 0) text += std::to_string(pool.reserved) + " reserved, ";
    text += std::to_string(pool.free()) + " free of " + std::to_string(pool.total);
    w.open("text").attr("x", x + bar_w + 10).attr("y", y).text(text).close();
    w.close();
  }

  std::optional<std::size_t> guest_named(const std::string& name) const {
    for (const auto& guest : guests_) {
      if (guest.claim->name == name) return guest.index;
    }
    return std::nullopt;
  }

  void pci_line(MarkupWriter& w, const PciDevice& dev, double x, double y) const {
    w.open("g").attr("class", "pci").attr("data-pci", dev.address);
    if (!dev.held_by.empty()) w.attr("data-holder", dev.held_by);
    w.attr("data-allocated", dev.allocated ? "true" : "false");
    const auto holder = dev.held_by.empty() ? std::nullopt : guest_named(dev.held_by);
    const char* fill = holder ? colour_of(*holder) : (dev.allocated || !dev.held_by.empty()) ? kSeveral : kFree;
    w.open("rect").attr("x", x).attr("y", y - 10).attr("width", 12).attr("height", 12).attr("rx", 2).attr("fill", fill);
    w.attr("stroke", "#555555").close();
    std::string text = dev.address;
    if (!dev.vendor_id.empty() || !dev.product_id.empty()) text += "  " + dev.vendor_id + ":" + dev.product_id;
    if (!dev.class_id.empty()) text += "  class " + dev.class_id;
    if (dev.is_pf) text += "  SR-IOV PF";
    if (!dev.parent_pf.empty()) text += "  VF of " + dev.parent_pf;
    if (!dev.held_by.empty()) {
      text += "  held by " + dev.held_by;
    } else if (dev.allocated) {
      text += "  allocated";
    } else {
      text += "  free";
    }
    w.open("text").attr("x", x + 18).attr("y", y).text(text).close();
    w.close();
  }

  const HostTopology& host_;
  std::vector<GuestView> guests_;
};

}  // namespace

std::string host_map_svg(const HostTopology& host, const std::vector<GuestClaim>& claims, std::string_view title) {
  return Renderer(host, claims).svg(title, true);
}

std::string host_map_html(const HostTopology& host, const std::vector<GuestClaim>& claims, std::string_view title) {
  MarkupWriter w(/*html=*/true);
  w.open("html").attr("lang", "en");
  w.open("head");
  w.open("meta").attr("charset", "utf-8").close();
  w.element("title", "numaplace host map: " + std::string(title));
  w.open("style").raw(
      "body{font-family:'DejaVu Sans',Verdana,sans-serif;margin:16px;color:#111}"
      "table{border-collapse:collapse;margin:8px 0 20px}th,td{border:1px solid #bbb;padding:3px 8px;"
      "text-align:left;vertical-align:top;font-size:13px}th{background:#eee}"
      "svg{max-width:100%;height:auto}h1{font-size:20px}h2{font-size:17px;margin-top:24px}");
  w.close();
  w.close();  // head
  w.open("body");
  w.element("h1", "numaplace host map: " + std::string(title));
  w.raw(Renderer(host, claims).svg(title, false));
  w.element("h2", "NUMA cells");
  const auto rows = topology_rows(host);
  w.open("table").attr("class", "cells");
  for (std::size_t r = 0; r < rows.size(); ++r) {
    w.open("tr");
    for (const auto& value : rows[r]) w.element(r == 0 ? "th" : "td", value);
    w.close();
  }
  w.close();
  if (!claims.empty()) {
    w.element("h2", "Guests holding resources");
    w.open("table").attr("class", "guests");
    w.open("tr").element("th", "guest").element("th", "state").element("th", "holds").close();
    for (const auto& claim : claims) {
      std::string state = claim.running ? "running" : "defined, not running";
      if (claim.placed_by_numaplace) state += ", numaplace record";
      w.open("tr").attr("data-guest", claim.name);
      w.element("td", claim.name).element("td", state).element("td", describe_holdings(host, claim));
      w.close();
    }
    w.close();
  }
  return "<!DOCTYPE html>\n" + w.finish() + "\n";
}

}  // namespace numaplace::cli
