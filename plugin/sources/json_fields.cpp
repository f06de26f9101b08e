// SPDX-License-Identifier: LGPL-2.1-or-later
#include "plugin/sources/json_fields.h"

#include "placement/model/utf8_text.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace numaplace::plugin::json_fields {

using nlohmann::json;

namespace {

// nlohmann's SAX events built into a document as its own DOM parser builds one, noting the first
// member an object names twice (the DOM parser would overwrite it): as fast as a plain parse.
class MembersOnceDom {
 public:
  explicit MembersOnceDom(ParsedJson& out) : out_(out) {}
  bool null() { return add(nullptr); }
  bool boolean(bool value) { return add(value); }
  bool number_integer(json::number_integer_t value) { return add(value); }
  bool number_unsigned(json::number_unsigned_t value) { return add(value); }
  bool number_float(json::number_float_t value, const std::string& /*text*/) { return add(value); }
  bool string(json::string_t& value) { return add(std::move(value)); }
  bool binary(json::binary_t& value) { return add(std::move(value)); }
  bool start_object(std::size_t /*size*/) { return open(json::value_t::object); }
  bool start_array(std::size_t /*size*/) { return open(json::value_t::array); }
  bool key(json::string_t& name) {
    json& object = *open_.back();
    if (out_.repeated_member.empty() && object.contains(name)) out_.repeated_member = name;
    member_ = &object[name];
    return true;
  }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool parse_error(std::size_t /*position*/, const std::string& /*token*/, const nlohmann::detail::exception& /*error*/) {
    failed_ = true;
    return false;
  }
  bool failed() const { return failed_; }

 private:
  // Where the next value goes: the root, the member just named, or the end of the open array.
  template <typename Value>
  json* place(Value&& value) {
    if (open_.empty()) {
      out_.value = json(std::forward<Value>(value));
      return &out_.value;
    }
    if (open_.back()->is_array()) {
      open_.back()->emplace_back(std::forward<Value>(value));
      return &open_.back()->back();
    }
    *member_ = json(std::forward<Value>(value));
    return member_;
  }
  template <typename Value>
  bool add(Value&& value) {
    place(std::forward<Value>(value));
    return true;
  }
  bool open(json::value_t kind) {
    open_.push_back(place(json(kind)));
    return true;
  }
  bool close() {
    open_.pop_back();
    return true;
  }

  ParsedJson& out_;
  std::vector<json*> open_;
  json* member_ = nullptr;
  bool failed_ = false;
};

}  // namespace

ParsedJson parse_json(std::string_view text) {
  ParsedJson out;
  MembersOnceDom dom(out);
  const bool read = json::sax_parse(text.begin(), text.end(), &dom, nlohmann::detail::input_format_t::json, true);
  if (!read || dom.failed()) out.value = json(json::value_t::discarded);
  return out;
}

std::string repeated_member_problem(const std::string& member) {
  return "member \"" + printable_text(member) + "\" is given twice in one object; give it once";
}

void bad(const std::string& where, const std::string& problem) { throw BadField{where + ": " + problem}; }

const json* field(const json& object, const char* name) {
  auto it = object.find(name);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

std::uint64_t unsigned_of(const json& value, const std::string& where, std::uint64_t max) {
  // A signed integer is what a document built in memory (not parsed from text) holds for any
  // whole number; only a negative one is refused as such.
  if (value.is_number_integer() && !value.is_number_unsigned() && value.get<std::int64_t>() < 0) bad(where, "is negative");
  if (value.is_number_integer()) {
    const auto v = value.get<std::uint64_t>();
    if (v > max) bad(where, "is " + std::to_string(v) + ", above the limit " + std::to_string(max));
    return v;
  }
  if (value.is_number_float()) {
    const double d = value.get<double>();
    if (d >= 0 && d == std::floor(d) && d <= static_cast<double>(max)) return static_cast<std::uint64_t>(d);
  }
  bad(where, "must be a whole number from 0 to " + std::to_string(max));
}

CpuSet cpus_of(const json& value, const std::string& where) {
  if (value.is_string()) {
    auto parsed = parse_cpu_list(value.get<std::string>(), where);
    if (!parsed) {
      // bad() names the place itself; the list's message names it too.
      const std::string& message = parsed.error().message;
      bad(where, message.rfind(where + ": ", 0) == 0 ? message.substr(where.size() + 2) : message);
    }
    return *parsed;
  }
  if (!value.is_array()) bad(where, "must be a list of CPU ids or a cpulist string such as \"0-3,8\"");
  CpuSet set;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const json& id = value[i];
    // The usual id is read without making its location's text, which only an error needs.
    const auto cpu = id.is_number_unsigned() && id.get<std::uint64_t>() <= kMaxCpuId
                         ? static_cast<std::uint32_t>(id.get<std::uint64_t>())
                         : static_cast<std::uint32_t>(unsigned_of(id, where + "[" + std::to_string(i) + "]", kMaxCpuId));
    set.insert(cpu);  // a CPU listed twice is one CPU: writers join overlapping sets (Nova's cpuset and pcpuset)
  }
  return set;
}

namespace {

// What is wrong with a name or value (at most 255 bytes, not empty, without control characters),
// or nullptr when nothing is: its callers make the location's text only for an error, since a
// host's PCI tags are read on every host a scheduler converts.
const char* text_problem(const std::string& text) {
  constexpr std::size_t kMaxName = 255;
  if (text.empty()) return "must not be empty";
  if (text.size() > kMaxName) return "is longer than 255 bytes";
  if (std::any_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; })) {
    return "holds a control character";
  }
  return nullptr;
}

}  // namespace

std::map<std::string, PciTagValue> tag_map_of(const json& value, const std::string& where) {
  constexpr std::size_t kMaxKeys = 64;
  constexpr std::size_t kMaxJsonText = 255;
  if (!value.is_object()) bad(where, "must be an object of \"KEY\": \"VALUE\" members");
  if (value.size() > kMaxKeys) bad(where, "has more than " + std::to_string(kMaxKeys) + " keys");
  std::map<std::string, PciTagValue> out;
  for (const auto& [key, member] : value.items()) {
    if (const char* problem = text_problem(key)) bad(where + " key '" + key + "'", problem);
    if (member.is_string()) {
      const std::string& text = member.get_ref<const std::string&>();
      if (const char* problem = text_problem(text)) bad(where + "." + key, problem);
      out.emplace(key, text);
    } else if (member.is_null()) {
      out.emplace(key, PciTagValue::none());
    } else {
      std::string text = member.dump();
      if (text.size() > kMaxJsonText) bad(where + "." + key, "is longer than " + std::to_string(kMaxJsonText) + " bytes as JSON");
      out.emplace(key, PciTagValue::json(std::move(text)));
    }
  }
  return out;
}

json tag_map_json(const std::map<std::string, PciTagValue>& tags) {
  json out = json::object();
  for (const auto& [key, value] : tags) {
    switch (value.kind()) {
      case PciTagValue::Kind::String: out[key] = value.text(); break;
      case PciTagValue::Kind::None: out[key] = nullptr; break;
      case PciTagValue::Kind::Json: out[key] = json::parse(value.text()); break;
    }
  }
  return out;
}

NetworkAffinity network_of(const json& value, const std::string& where) {
  constexpr std::size_t kMaxPhysnets = 4096;
  if (!value.is_object()) bad(where, "must be {\"physnets\": [NAME, ...], \"tunneled\": true | false}");
  for (const auto& [key, member] : value.items()) {
    if (key != "physnets" && key != "tunneled") bad(where + "." + key, "is not a field (physnets, tunneled)");
  }
  NetworkAffinity out;
  if (const json* physnets = field(value, "physnets")) {
    if (!physnets->is_array()) bad(where + ".physnets", "must be a list of physnet names");
    if (physnets->size() > kMaxPhysnets) bad(where + ".physnets", "has more than " + std::to_string(kMaxPhysnets) + " names");
    for (std::size_t i = 0; i < physnets->size(); ++i) {
      const json& name = (*physnets)[i];
      const char* problem = name.is_string() ? text_problem(name.get_ref<const std::string&>()) : "must be a string";
      if (problem != nullptr) bad(where + ".physnets[" + std::to_string(i) + "]", problem);
      out.physnets.push_back(name.get<std::string>());
    }
    std::sort(out.physnets.begin(), out.physnets.end());
    out.physnets.erase(std::unique(out.physnets.begin(), out.physnets.end()), out.physnets.end());
  }
  if (const json* tunneled = field(value, "tunneled")) {
    if (!tunneled->is_boolean()) bad(where + ".tunneled", "must be true or false");
    out.tunneled = tunneled->get<bool>();
  }
  return out;
}

// A misspelt field ("pinnned_cpus") would otherwise be dropped without a word, and a busy cell
// read as idle.
void check_members(const json& object, std::initializer_list<std::string_view> known, const std::string& where) {
  for (const auto& [key, value] : object.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string names;
    for (std::string_view name : known) names += (names.empty() ? "" : ", ") + std::string(name);
    bad(where + "." + key, "is not a field (" + names + "); check its spelling");
  }
}

std::uint64_t memory_of(const json& object, const std::string& where, bool required) {
  constexpr std::uint64_t kMaxKib = std::uint64_t{1} << 50;  // 1 EiB
  if (const json* kib = field(object, "memory_kib")) {
    const std::uint64_t memory_kib = unsigned_of(*kib, where + ".memory_kib", kMaxKib);
    // Both, as np_derive writes them, must say the same; which was meant cannot be told otherwise.
    if (const json* mib = field(object, "memory_mib");
        mib != nullptr && unsigned_of(*mib, where + ".memory_mib", kMaxKib / 1024) * 1024 != memory_kib) {
      bad(where, "gives memory_mib and memory_kib that differ; give one");
    }
    return memory_kib;
  }
  if (const json* mib = field(object, "memory_mib")) return unsigned_of(*mib, where + ".memory_mib", kMaxKib / 1024) * 1024;
  if (required) bad(where, "has neither memory_mib nor memory_kib");
  return 0;
}

}  // namespace numaplace::plugin::json_fields
