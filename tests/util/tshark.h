// SPDX-License-Identifier: Apache-2.0
// The tshark harness: dissect frames with Wireshark, a peer none of us wrote,
// and look at what it says about them. Runs
//   tshark -r FILE -T json --no-duplicate-keys -o <prefs> -d <decode-as>
// (UDP 123 as NTP, UDP 319/320 and EtherType 0x88F7 as PTP, IPv4/UDP/TCP
// checksum validation on) and flattens its JSON into, per packet:
//   - the protocol stack (frame.protocols: eth, ethertype, ip, udp, ntp),
//   - every named field with its value(s) ("ntp.stratum" -> {"1"}),
//   - the expert-info items (_ws.expert: severity, group, message), and
//   - whether tshark marked the packet malformed (_ws.malformed).
//
//   std::vector<uint8_t> frame = BuildSomeNtpReply();
//   ZG_ASSIGN_OR_RETURN(DissectedPacket p, DissectFrame(frame));
//   EXPECT_TRUE(p.HasProtocol("ntp"));
//   EXPECT_EQ(p.Field("ntp.stratum"), "1");
//   EXPECT_TRUE(CheckClean({p}).ok()) << CheckClean({p});  // no warnings
//
// Serializer tests build many frames and dissect them in one tshark run
// (a run costs a second or more on a busy machine):
//
//   std::vector<FrameCheck> checks;
//   checks.push_back({"ntp reply v4", frame, {{"ntp.stratum", "1"},
//                                             {"udp.checksum.status", "1"}}});
//   absl::Status s = DissectAndCheck(checks);  // clean, and every field as set
//   EXPECT_TRUE(s.ok()) << s;
//
// Tests that use it should GTEST_SKIP() when !TsharkAvailable().
#ifndef ZG_TESTS_UTIL_TSHARK_H_
#define ZG_TESTS_UTIL_TSHARK_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"

namespace zg::testutil {

// Wireshark's expert severities (epan/proto.h PI_*), in increasing order.
enum class ExpertSeverity { kComment, kChat, kNote, kWarning, kError };

absl::string_view ExpertSeverityName(ExpertSeverity s);

struct ExpertItem {
  ExpertSeverity severity = ExpertSeverity::kNote;
  std::string group;    // "Checksum", "Malformed", "Protocol", ... (PI_*)
  std::string message;  // "Bad checksum [should be 0xd336]"
  std::string name;     // the expert field, e.g. "udp.checksum.bad"
  std::string layer;    // the top-level layer it sits under, e.g. "udp"
};

struct DissectedPacket {
  uint32_t frame_number = 0;
  // The protocol stack, outermost first: {"eth", "ethertype", "ip", "udp",
  // "ntp"}.
  std::vector<std::string> protocols;
  // Every named field anywhere in the tree, in tree order. Repeated fields
  // (e.g. "udp.port", TLVs) have several values. Values are tshark's text.
  std::map<std::string, std::vector<std::string>> fields;
  std::vector<ExpertItem> expert;
  // tshark's "Malformed Packet" marker (a dissector ran out of bytes or
  // threw). Also listed in `expert` (group "Malformed", severity error).
  bool malformed = false;

  bool HasProtocol(absl::string_view protocol) const;
  // The first value of `name`, if present.
  std::optional<std::string> Field(absl::string_view name) const;
  // All values of `name` (empty if absent).
  std::vector<std::string> FieldValues(absl::string_view name) const;
  // Expert items at `min` severity or above.
  std::vector<ExpertItem> ExpertAtLeast(ExpertSeverity min) const;
  // Not malformed and no expert item at warning or error.
  bool Clean() const;
  // One line: "frame 2 eth:ethertype:ip:udp:ntp; error/Checksum: Bad ..."
  std::string Summary() const;
};

struct TsharkOptions {
  // Validate IPv4, UDP and TCP checksums (tshark's default is off).
  bool check_checksums = true;
  // Extra preferences, "name:value" each, passed with -o.
  std::vector<std::string> prefs;
  // Extra decode-as rules, "table==value,protocol" each, passed with -d.
  std::vector<std::string> decode_as;
  // Extra arguments placed before -r (e.g. {"-Y", "ptp"} to filter).
  std::vector<std::string> extra_args;
  std::string tshark = "tshark";
  absl::Duration timeout = absl::Seconds(120);
};

// True if tshark can be run (tests skip otherwise).
bool TsharkAvailable(const TsharkOptions& options = {});

// The full tshark argument list for `pcap_path` (exposed for logs and docs).
std::vector<std::string> TsharkCommand(const std::string& pcap_path,
                                       const TsharkOptions& options);

// Dissects every packet of a pcap or pcapng file.
absl::StatusOr<std::vector<DissectedPacket>> DissectPcapFile(
    const std::string& path, const TsharkOptions& options = {});

// Writes `frames` (Ethernet, no FCS) to a temporary pcap and dissects them.
absl::StatusOr<std::vector<DissectedPacket>> DissectFrames(
    const std::vector<std::vector<uint8_t>>& frames,
    const TsharkOptions& options = {});

// Dissects a single Ethernet frame.
absl::StatusOr<DissectedPacket> DissectFrame(absl::Span<const uint8_t> frame,
                                             const TsharkOptions& options = {});

// Parses `tshark -T json --no-duplicate-keys` output (pure; no tshark run).
absl::StatusOr<std::vector<DissectedPacket>> ParseTsharkJson(
    absl::string_view json);

// OK if every packet is Clean(); otherwise an error listing each packet's
// Summary(). Usage: EXPECT_TRUE(CheckClean(p).ok()) << CheckClean(p);
absl::Status CheckClean(const std::vector<DissectedPacket>& packets);

// Field name -> the value tshark must show for it. A name listed once must
// have that value every time tshark shows it (a flag repeated in subtrees);
// a name listed several times must be shown exactly those values in that
// order (one per TLV, say).
using FieldValues = std::vector<std::pair<std::string, std::string>>;

// OK if `p` shows every field of `want` as FieldValues says; otherwise an
// error listing each missing or different field and what tshark showed.
absl::Status CheckFields(const DissectedPacket& p, const FieldValues& want);

// A frame we built, what tshark must show in it, and optionally more checks
// that cannot be said as fixed values (e.g. a rendered date).
struct FrameCheck {
  std::string name;
  std::vector<uint8_t> frame;  // Ethernet, no FCS
  FieldValues want;
  std::function<absl::Status(const DissectedPacket&)> extra;
};

// Dissects every frame in one tshark run and checks each: Clean(), the
// fields in `want`, and `extra`. Returns an error naming each failing check
// and why, or why tshark could not run.
absl::Status DissectAndCheck(const std::vector<FrameCheck>& checks,
                             const TsharkOptions& options = {});

}  // namespace zg::testutil

#endif  // ZG_TESTS_UTIL_TSHARK_H_
