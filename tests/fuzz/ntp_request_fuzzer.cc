// SPDX-License-Identifier: Apache-2.0
// Fuzzes the server side of NTP on arbitrary UDP payloads: ValidateNtpRequest,
// the extension-field walker and trailer summary, BuildNtpReply +
// StampNtpTransmit and the KoD builder. Properties: nothing is read or written
// outside [payload, payload + len) (ASan: the buffer is an exact-size heap
// copy), the reply is never longer than the request, a dropped request is left
// untouched, and an answered one parses back as a mode-4 reply that echoes the
// version and the client's transmit timestamp.
//
// Input layout: byte 0 selects the model (synced / stale / unsynchronised /
// leap pending), the rest is the payload.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "core/ntp/ntp_reply.h"
#include "core/ntp/ntp_wire.h"
#include "core/time/clock_model.h"

namespace {

using namespace zg::core;

constexpr int64_t kS = kNanosPerSecond;

ClockModel ModelFor(uint8_t selector) {
  ClockModel m;
  m.tai_anchor = TaiNs{(2'085'978'496 - 3600 + 37) * kS};  // near 2036
  m.ns_per_tick_q32 = uint64_t{1} << 32;
  m.error_bound_ns = 1000;
  m.error_growth_ns_per_s = 100;
  m.max_extrapolation_ns = (selector & 1) ? 7200 * kS : kS;
  m.state = (selector & 2) ? SyncState::kLocked : SyncState::kFreerun;
  m.stratum = static_cast<uint8_t>(selector >> 4);
  m.leap = static_cast<LeapPending>((selector >> 2) % 3);
  m.leap_at = m.tai_anchor + 3600 * kS;
  m.reference_id = NtpRefId("GPS\0");
  m.reference_time = m.tai_anchor;
  return m;
}

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

void WalkEverything(const uint8_t* p, uint32_t len) {
  NtpExtensionWalker walker(p, len);
  NtpExtensionField f;
  uint32_t fields = 0;
  uint32_t end = kNtpHeaderSize;
  NtpExtensionWalker::Step step;
  while ((step = walker.Next(&f)) == NtpExtensionWalker::Step::kField) {
    Check(f.offset == end && f.length >= 16 && f.length % 4 == 0);
    Check(f.value == p + f.offset + 4 && f.offset + f.length <= len);
    end = f.offset + f.length;
    ++fields;
  }
  if (step == NtpExtensionWalker::Step::kMac) {
    Check(walker.mac_offset() == end &&
          walker.mac_offset() + walker.mac_size() == len);
  }
  Check(walker.Next(&f) == step);  // sticky
  for (uint8_t v = 0; v < 8; ++v) {
    const NtpTrailer t = ParseNtpTrailer(p, len, v);
    if (v == 4 && !t.malformed) Check(t.extension_fields == fields);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1 || size > 2001) return 0;
  const ClockModel model = ModelFor(data[0]);
  const uint32_t len = static_cast<uint32_t>(size - 1);
  // Exact-size heap copies so ASan sees any access past len.
  std::unique_ptr<uint8_t[]> buf(new uint8_t[len == 0 ? 1 : len]);
  std::unique_ptr<uint8_t[]> orig(new uint8_t[len == 0 ? 1 : len]);
  if (len > 0) {
    std::memcpy(buf.get(), data + 1, len);
    std::memcpy(orig.get(), data + 1, len);
  }
  uint8_t* p = len == 0 ? nullptr : buf.get();

  WalkEverything(p, len);
  const NtpRequestCheck check = ValidateNtpRequest(p, len);
  Check(static_cast<size_t>(check.drop) < kNtpDropCount);
  Check(NtpDropName(check.drop)[0] != '\0');
  // With a MAC reported (a server with --ntp_keys): the same verdict but
  // for the MAC, which is a 20/24-byte trailer ending the message.
  const NtpRequestCheck report =
      ValidateNtpRequest(p, len, NtpMacHandling::kReport);
  if (check.drop != NtpDrop::kMacPresent) Check(report.drop == check.drop);
  if (report.drop == NtpDrop::kNone && check.drop == NtpDrop::kMacPresent) {
    Check(report.trailer.mac == NtpMacKind::kSymmetric);
    Check(report.trailer.mac_size == 20 || report.trailer.mac_size == 24);
    Check(report.trailer.mac_offset + report.trailer.mac_size == len);
  }

  // With NTS reported (a server with --nts_master_key): the same verdict
  // but for NTS requests (and their MACs), which pass for the NTS check.
  const NtpRequestCheck nts = ValidateNtpRequest(p, len, NtpMacHandling::kDrop,
                                                 NtpNtsHandling::kReport);
  if (check.drop != NtpDrop::kNtsUnsupported &&
      check.drop != NtpDrop::kMacPresent) {
    Check(nts.drop == check.drop);
  }
  if (nts.drop == NtpDrop::kNone && check.drop != NtpDrop::kNone) {
    Check(nts.trailer.nts_fields != 0);
  }

  const TaiNs rx = model.tai_anchor + 3599 * kS + 999'999'999;
  uint32_t reply_len = 0xdeadbeef;
  const NtpDrop drop = BuildNtpReply(p, len, rx, model, &reply_len);
  Check(drop == check.drop);
  Check(reply_len <= len);
  if (drop != NtpDrop::kNone) {
    Check(reply_len == 0);
    Check(len == 0 || std::memcmp(buf.get(), orig.get(), len) == 0);
    return 0;
  }
  Check(reply_len == kNtpHeaderSize);
  StampNtpTransmit(p, rx + 2 * kS, model);  // across the era rollover
  NtpHeader h;
  Check(ParseNtpHeader(p, reply_len, &h));
  Check(h.mode == NtpMode::kServer && h.version == check.version);
  Check(std::memcmp(p + kNtpOffsetOriginTime,
                    orig.get() + kNtpOffsetTransmitTime, 8) == 0);
  Check(h.poll_log2 >= kNtpReplyMinPollLog2 &&
        h.poll_log2 <= kNtpReplyMaxPollLog2);
  Check(h.stratum < kNtpMaxStratum);
  Check((h.stratum == 0) == (h.leap == NtpLeapIndicator::kUnsynchronized));
  // Bytes past the 48-byte reply are not written.
  Check(std::memcmp(p + kNtpHeaderSize, orig.get() + kNtpHeaderSize,
                    len - kNtpHeaderSize) == 0);

  std::memcpy(buf.get(), orig.get(), len);
  Check(WriteNtpKissOfDeath(p, check, kNtpKissRate, 4) <= len);
  Check(ParseNtpHeader(p, len, &h) && ClassifyNtpKiss(h) == NtpKiss::kRate);
  return 0;
}
