// SPDX-License-Identifier: Apache-2.0
#include "tests/util/tshark.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/base/status_macros.h"
#include "nlohmann/json.hpp"
#include "tests/util/pcap.h"
#include "tests/util/subprocess.h"
#include "tests/util/temp_dir.h"

namespace zg::testutil {
namespace {

// ordered_json keeps the dissection tree's order.
using Json = nlohmann::ordered_json;

// Defaults, stated explicitly so a packaging change cannot silently stop
// tshark decoding our ports.
const char* const kDecodeAs[] = {"udp.port==123,ntp", "udp.port==319,ptp",
                                 "udp.port==320,ptp", "ethertype==0x88f7,ptp"};
const char* const kChecksumPrefs[] = {"ip.check_checksum:TRUE",
                                      "udp.check_checksum:TRUE",
                                      "tcp.check_checksum:TRUE"};

// epan/proto.h: severity in bits 20..23, group in bits 24..31.
ExpertSeverity SeverityFromMask(uint32_t v) {
  if (v >= 0x00800000) return ExpertSeverity::kError;
  if (v >= 0x00600000) return ExpertSeverity::kWarning;
  if (v >= 0x00400000) return ExpertSeverity::kNote;
  if (v >= 0x00200000) return ExpertSeverity::kChat;
  return ExpertSeverity::kComment;
}

std::string GroupName(uint32_t v) {
  static const char* const kGroups[] = {
      "",          "Checksum",   "Sequence",    "Response",   "Request",
      "Undecoded", "Reassemble", "Malformed",   "Debug",      "Protocol",
      "Security",  "Comment",    "Decryption",  "Assumption", "Deprecated",
      "Receive",   "Interface",  "DissectorBug"};
  const uint32_t index = v >> 24;
  if (index > 0 && index < std::size(kGroups)) return kGroups[index];
  return absl::StrFormat("0x%08x", v);
}

std::string ScalarText(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "";
  return v.dump();
}

void AddExpert(const Json& node, const std::string& layer,
               DissectedPacket& out) {
  if (node.is_array()) {
    for (const Json& e : node) AddExpert(e, layer, out);
    return;
  }
  if (!node.is_object()) return;
  ExpertItem item;
  item.layer = layer;
  for (const auto& [key, value] : node.items()) {
    const std::string text = ScalarText(value);
    uint32_t num = 0;
    if (key == "_ws.expert.message") {
      item.message = text;
    } else if (key == "_ws.expert.severity") {
      if (absl::SimpleAtoi(text, &num)) item.severity = SeverityFromMask(num);
    } else if (key == "_ws.expert.group") {
      item.group = absl::SimpleAtoi(text, &num) ? GroupName(num) : text;
    } else {
      item.name = key;
    }
  }
  out.expert.push_back(std::move(item));
}

void Flatten(const Json& node, const std::string& layer, DissectedPacket& out);

void AddValue(const std::string& key, const Json& value,
              const std::string& layer, DissectedPacket& out) {
  if (value.is_object()) {
    Flatten(value, layer, out);
  } else if (value.is_array()) {
    for (const Json& v : value) AddValue(key, v, layer, out);
  } else {
    out.fields[key].push_back(ScalarText(value));
  }
}

void Flatten(const Json& node, const std::string& layer, DissectedPacket& out) {
  for (const auto& [key, value] : node.items()) {
    if (key == "_ws.expert") {
      AddExpert(value, layer, out);
      continue;
    }
    if (key == "_ws.malformed") out.malformed = true;
    AddValue(key, value, layer, out);
  }
}

absl::StatusOr<DissectedPacket> ParsePacket(const Json& packet, size_t index) {
  const Json* layers = nullptr;
  if (packet.is_object() && packet.contains("_source") &&
      packet["_source"].is_object() && packet["_source"].contains("layers") &&
      packet["_source"]["layers"].is_object()) {
    layers = &packet["_source"]["layers"];
  }
  if (layers == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tshark JSON packet ", index, " has no _source.layers object"));
  }
  DissectedPacket p;
  for (const auto& [layer, value] : layers->items()) {
    // Each top-level layer owns the expert items found in its subtree.
    if (layer == "_ws.expert") {
      AddExpert(value, layer, p);
      continue;
    }
    if (layer == "_ws.malformed") p.malformed = true;
    AddValue(layer, value, layer, p);
  }
  if (std::optional<std::string> n = p.Field("frame.number")) {
    if (!absl::SimpleAtoi(*n, &p.frame_number)) p.frame_number = 0;
  }
  if (std::optional<std::string> s = p.Field("frame.protocols")) {
    p.protocols = absl::StrSplit(*s, ':', absl::SkipEmpty());
  }
  return p;
}

}  // namespace

absl::string_view ExpertSeverityName(ExpertSeverity s) {
  switch (s) {
    case ExpertSeverity::kComment:
      return "comment";
    case ExpertSeverity::kChat:
      return "chat";
    case ExpertSeverity::kNote:
      return "note";
    case ExpertSeverity::kWarning:
      return "warning";
    case ExpertSeverity::kError:
      return "error";
  }
  return "?";
}

bool DissectedPacket::HasProtocol(absl::string_view protocol) const {
  return std::find(protocols.begin(), protocols.end(), protocol) !=
         protocols.end();
}

std::optional<std::string> DissectedPacket::Field(
    absl::string_view name) const {
  auto it = fields.find(std::string(name));
  if (it == fields.end() || it->second.empty()) return std::nullopt;
  return it->second.front();
}

std::vector<std::string> DissectedPacket::FieldValues(
    absl::string_view name) const {
  auto it = fields.find(std::string(name));
  return it == fields.end() ? std::vector<std::string>{} : it->second;
}

std::vector<ExpertItem> DissectedPacket::ExpertAtLeast(
    ExpertSeverity min) const {
  std::vector<ExpertItem> out;
  for (const ExpertItem& e : expert) {
    if (e.severity >= min) out.push_back(e);
  }
  return out;
}

bool DissectedPacket::Clean() const {
  return !malformed && ExpertAtLeast(ExpertSeverity::kWarning).empty();
}

std::string DissectedPacket::Summary() const {
  std::string out =
      absl::StrCat("frame ", frame_number, " ", absl::StrJoin(protocols, ":"));
  for (const ExpertItem& e : expert) {
    absl::StrAppend(&out, "; ", ExpertSeverityName(e.severity), "/", e.group,
                    " in ", e.layer, ": ", e.message);
  }
  if (malformed) absl::StrAppend(&out, "; MALFORMED");
  return out;
}

bool TsharkAvailable(const TsharkOptions& options) {
  return ProgramAvailable(options.tshark);
}

std::vector<std::string> TsharkCommand(const std::string& pcap_path,
                                       const TsharkOptions& options) {
  std::vector<std::string> argv = {options.tshark, "-n"};
  argv.insert(argv.end(), options.extra_args.begin(), options.extra_args.end());
  for (const char* d : kDecodeAs) argv.insert(argv.end(), {"-d", d});
  for (const std::string& d : options.decode_as) {
    argv.insert(argv.end(), {"-d", d});
  }
  if (options.check_checksums) {
    for (const char* p : kChecksumPrefs) argv.insert(argv.end(), {"-o", p});
  }
  for (const std::string& p : options.prefs) argv.insert(argv.end(), {"-o", p});
  argv.insert(argv.end(),
              {"-r", pcap_path, "-T", "json", "--no-duplicate-keys"});
  return argv;
}

absl::StatusOr<std::vector<DissectedPacket>> ParseTsharkJson(
    absl::string_view json) {
  Json root;
  try {
    root = Json::parse(json.begin(), json.end());
  } catch (const Json::exception& e) {
    // parse_error, and out_of_range for a number beyond double (1E450).
    return absl::InvalidArgumentError(
        absl::StrCat("tshark JSON does not parse: ", e.what()));
  }
  if (!root.is_array()) {
    return absl::InvalidArgumentError("tshark JSON is not an array of packets");
  }
  std::vector<DissectedPacket> packets;
  for (size_t i = 0; i < root.size(); ++i) {
    ZG_ASSIGN_OR_RETURN(DissectedPacket p, ParsePacket(root[i], i));
    packets.push_back(std::move(p));
  }
  return packets;
}

absl::StatusOr<std::vector<DissectedPacket>> DissectPcapFile(
    const std::string& path, const TsharkOptions& options) {
  // An empty personal configuration directory: the user's own Wireshark
  // preferences must not change what the tests see.
  ZG_ASSIGN_OR_RETURN(TempDir config, TempDir::Create("wireshark"));
  SubprocessOptions sub;
  sub.env = {"WIRESHARK_CONFIG_DIR=" + config.path()};
  ZG_ASSIGN_OR_RETURN(CommandResult r, RunCommand(TsharkCommand(path, options),
                                                  options.timeout, sub));
  if (!r.ok()) return absl::InternalError(r.Describe());
  absl::StatusOr<std::vector<DissectedPacket>> packets =
      ParseTsharkJson(r.stdout_text);
  if (!packets.ok()) {
    return absl::InternalError(
        absl::StrCat(path, ": ", packets.status().message()));
  }
  return packets;
}

absl::StatusOr<std::vector<DissectedPacket>> DissectFrames(
    const std::vector<std::vector<uint8_t>>& frames,
    const TsharkOptions& options) {
  ZG_ASSIGN_OR_RETURN(TempDir dir, TempDir::Create("frames"));
  const std::string path = dir.File("frames.pcap");
  ZG_RETURN_IF_ERROR(WritePcapFile(path, EthernetPcap(frames)));
  ZG_ASSIGN_OR_RETURN(std::vector<DissectedPacket> packets,
                      DissectPcapFile(path, options));
  if (packets.size() != frames.size()) {
    return absl::InternalError(
        absl::StrFormat("tshark returned %d packets for %d frames",
                        packets.size(), frames.size()));
  }
  return packets;
}

absl::StatusOr<DissectedPacket> DissectFrame(absl::Span<const uint8_t> frame,
                                             const TsharkOptions& options) {
  ZG_ASSIGN_OR_RETURN(
      std::vector<DissectedPacket> packets,
      DissectFrames({std::vector<uint8_t>(frame.begin(), frame.end())},
                    options));
  return std::move(packets.front());
}

absl::Status CheckClean(const std::vector<DissectedPacket>& packets) {
  std::vector<std::string> bad;
  for (const DissectedPacket& p : packets) {
    if (!p.Clean()) bad.push_back(p.Summary());
  }
  if (bad.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("tshark flagged ", bad.size(), " of ", packets.size(),
                   " packets:\n  ", absl::StrJoin(bad, "\n  ")));
}

absl::Status CheckFields(const DissectedPacket& p, const FieldValues& want) {
  // Wanted values per name, names in first-mention order.
  std::vector<std::string> names;
  std::map<std::string, std::vector<std::string>> wanted;
  for (const auto& field : want) {
    std::vector<std::string>& values = wanted[field.first];
    if (values.empty()) names.push_back(field.first);
    values.push_back(field.second);
  }
  // StrCat, not `"\"" + std::string&&`: GCC 12 at -O3 reports a false
  // -Wrestrict inside std::string's insert for that operator+.
  const auto quoted = [](const std::vector<std::string>& v) {
    return absl::StrCat("\"", absl::StrJoin(v, "\", \""), "\"");
  };
  std::vector<std::string> bad;
  for (const std::string& name : names) {
    const std::vector<std::string>& values = wanted[name];
    const std::vector<std::string> got = p.FieldValues(name);
    const bool ok =
        values.size() == 1
            ? !got.empty() && std::all_of(got.begin(), got.end(),
                                          [&](const std::string& v) {
                                            return v == values.front();
                                          })
            : got == values;
    if (!ok) {
      bad.push_back(absl::StrCat(name, " is ",
                                 got.empty() ? "absent" : quoted(got),
                                 ", want ", quoted(values)));
    }
  }
  if (bad.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrJoin(bad, "; "));
}

absl::Status DissectAndCheck(const std::vector<FrameCheck>& checks,
                             const TsharkOptions& options) {
  std::vector<std::vector<uint8_t>> frames;
  for (const FrameCheck& c : checks) frames.push_back(c.frame);
  ZG_ASSIGN_OR_RETURN(std::vector<DissectedPacket> packets,
                      DissectFrames(frames, options));
  std::vector<std::string> bad;
  for (size_t i = 0; i < checks.size(); ++i) {
    const DissectedPacket& p = packets[i];
    std::vector<std::string> why;
    if (!p.Clean()) why.push_back(p.Summary());
    if (absl::Status s = CheckFields(p, checks[i].want); !s.ok()) {
      why.push_back(std::string(s.message()));
    }
    if (checks[i].extra) {
      if (absl::Status s = checks[i].extra(p); !s.ok()) {
        why.push_back(std::string(s.message()));
      }
    }
    if (!why.empty()) {
      bad.push_back(absl::StrCat(checks[i].name, " (frame ", i + 1,
                                 "): ", absl::StrJoin(why, "; ")));
    }
  }
  if (bad.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat(bad.size(), " of ", checks.size(), " frames differ:\n  ",
                   absl::StrJoin(bad, "\n  ")));
}

}  // namespace zg::testutil
