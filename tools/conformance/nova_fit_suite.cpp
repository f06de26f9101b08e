// Suite nova-fit: the guest topology Nova derives (or the error it raises) and
// the host cells it chooses, for each vector of nova/edge.jsonl and nova/fit.jsonl.
#include <sstream>

#include "conformance/nova_vector.h"
#include "conformance/suite.h"
#include "placement/fit.h"
#include "placement/guest_topology.h"

namespace numaplace::conformance {
namespace {

std::string describe_cells(const std::vector<std::pair<std::uint32_t, std::uint32_t>>& cells) {
  std::ostringstream out;
  out << "fit [";
  for (std::size_t i = 0; i < cells.size(); ++i) {
    out << (i ? ", " : "") << "guest " << cells[i].first << "->host " << cells[i].second;
  }
  out << "]";
  return out.str();
}

}  // namespace

VectorOutcome check_nova_fit(const nlohmann::json& vector) {
  const nlohmann::json& expect =
      vector["expect"].contains("expect_fixed") ? vector["expect"]["expect_fixed"] : vector["expect"];
  const std::string kind = expect.at("kind").get<std::string>();
  GuestRequest request = request_from_nova_json(vector.at("request"));
  if (!uses_only_supported_keys(request)) {
    return VectorOutcome::skip("uses NUMA keys or PCI requests this version does not implement");
  }
  auto topology = derive_guest_topology(request);
  if (!topology) {
    if (kind == "invalid" && expect.value("error", "") == topology.error().name) return VectorOutcome::pass();
    std::string wanted = kind == "invalid" ? "invalid " + expect.value("error", "") : kind;
    return VectorOutcome::fail(wanted, "invalid " + topology.error().name + " (" + topology.error().message + ")");
  }
  if (kind == "invalid") {
    return VectorOutcome::fail("invalid " + expect.value("error", ""), topology->has_value() ? "a topology" : "no_topology");
  }
  if (!topology->has_value()) {
    return kind == "no_topology" ? VectorOutcome::pass() : VectorOutcome::fail(kind, "no_topology");
  }
  if (kind == "no_topology") return VectorOutcome::fail("no_topology", "a guest topology");

  HostTopology host = host_from_nova_json(vector.at("host"));
  FitResult result = fit_guest(host, **topology, options_from_nova_config(vector));
  if (!result.placement) {
    return kind == "no_fit" ? VectorOutcome::pass() : VectorOutcome::fail("fit", "no_fit (" + result.summary + ")");
  }
  std::vector<std::pair<std::uint32_t, std::uint32_t>> got;
  for (const auto& cell : result.placement->cells) got.emplace_back(cell.guest_cell, cell.host_cell);
  if (kind == "no_fit") return VectorOutcome::fail("no_fit", describe_cells(got));

  std::vector<std::pair<std::uint32_t, std::uint32_t>> wanted;
  for (const auto& cell : expect.at("cells")) {
    wanted.emplace_back(cell.at("guest_cell").get<std::uint32_t>(), cell.at("host_cell").get<std::uint32_t>());
  }
  if (wanted != got) return VectorOutcome::fail(describe_cells(wanted), describe_cells(got));
  return VectorOutcome::pass();
}

}  // namespace numaplace::conformance
