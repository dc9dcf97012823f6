// SPDX-License-Identifier: Apache-2.0
#include "core/ptp/ptp_bmca.h"

#include <cstring>

namespace zg::core {
namespace {

int CompareClockIdentity(const PtpClockIdentity& a, const PtpClockIdentity& b) {
  return std::memcmp(a.octets.data(), b.octets.data(), a.octets.size());
}

// Lower is better for every attribute compared here.
template <typename T>
bool Differ(T a, T b, PtpBmcaResult* out) {
  if (a == b) return false;
  *out = a < b ? PtpBmcaResult::kABetter : PtpBmcaResult::kBBetter;
  return true;
}

// Figure 35: A and B name the same grandmaster.
PtpBmcaResult CompareTopology(const PtpBmcaDataset& a,
                              const PtpBmcaDataset& b) {
  const unsigned sa = a.steps_removed;
  const unsigned sb = b.steps_removed;
  if (sa + 1 < sb) return PtpBmcaResult::kABetter;
  if (sb + 1 < sa) return PtpBmcaResult::kBBetter;
  if (sa < sb) {
    // B is one step further: if B came through a port of ours it was
    // relayed by A's path ("receiver < sender": B is the worse path).
    const int d = ComparePtpPortIdentity(b.receiver, b.sender);
    if (d < 0) return PtpBmcaResult::kABetter;
    if (d > 0) return PtpBmcaResult::kABetterByTopology;
    return PtpBmcaResult::kError1;
  }
  if (sa > sb) {
    const int d = ComparePtpPortIdentity(a.receiver, a.sender);
    if (d < 0) return PtpBmcaResult::kBBetter;
    if (d > 0) return PtpBmcaResult::kBBetterByTopology;
    return PtpBmcaResult::kError1;
  }
  const int d = ComparePtpPortIdentity(a.sender, b.sender);
  if (d < 0) return PtpBmcaResult::kABetterByTopology;
  if (d > 0) return PtpBmcaResult::kBBetterByTopology;
  if (a.receiver.port_number < b.receiver.port_number) {
    return PtpBmcaResult::kABetterByTopology;
  }
  if (a.receiver.port_number > b.receiver.port_number) {
    return PtpBmcaResult::kBBetterByTopology;
  }
  return PtpBmcaResult::kError2;
}

PtpBmcaResult ByIdentity(const PtpBmcaDataset& a, const PtpBmcaDataset& b) {
  return CompareClockIdentity(a.gm_identity, b.gm_identity) < 0
             ? PtpBmcaResult::kABetter
             : PtpBmcaResult::kBBetter;
}

}  // namespace

const char* PtpBmcaResultName(PtpBmcaResult r) {
  switch (r) {
    case PtpBmcaResult::kABetter:
      return "a_better";
    case PtpBmcaResult::kABetterByTopology:
      return "a_better_by_topology";
    case PtpBmcaResult::kBBetter:
      return "b_better";
    case PtpBmcaResult::kBBetterByTopology:
      return "b_better_by_topology";
    case PtpBmcaResult::kError1:
      return "error1";
    case PtpBmcaResult::kError2:
      return "error2";
  }
  return "unknown";
}

int ComparePtpPortIdentity(const PtpPortIdentity& a, const PtpPortIdentity& b) {
  const int d = CompareClockIdentity(a.clock_identity, b.clock_identity);
  if (d != 0) return d;
  return static_cast<int>(a.port_number) - static_cast<int>(b.port_number);
}

PtpBmcaResult ComparePtpDatasets(const PtpBmcaDataset& a,
                                 const PtpBmcaDataset& b) {
  if (a.gm_identity == b.gm_identity) return CompareTopology(a, b);
  PtpBmcaResult r;
  if (Differ(a.gm_priority1, b.gm_priority1, &r)) return r;
  if (Differ(a.gm_quality.clock_class, b.gm_quality.clock_class, &r)) return r;
  if (Differ(a.gm_quality.clock_accuracy, b.gm_quality.clock_accuracy, &r)) {
    return r;
  }
  if (Differ(a.gm_quality.offset_scaled_log_variance,
             b.gm_quality.offset_scaled_log_variance, &r)) {
    return r;
  }
  if (Differ(a.gm_priority2, b.gm_priority2, &r)) return r;
  return ByIdentity(a, b);
}

PtpBmcaResult ComparePtpDatasetsG8275(const PtpBmcaDataset& a,
                                      const PtpBmcaDataset& b) {
  PtpBmcaResult r;
  if (Differ(a.gm_quality.clock_class, b.gm_quality.clock_class, &r)) return r;
  if (Differ(a.gm_quality.clock_accuracy, b.gm_quality.clock_accuracy, &r)) {
    return r;
  }
  if (Differ(a.gm_quality.offset_scaled_log_variance,
             b.gm_quality.offset_scaled_log_variance, &r)) {
    return r;
  }
  if (Differ(a.gm_priority2, b.gm_priority2, &r)) return r;
  if (Differ(a.local_priority, b.local_priority, &r)) return r;
  if (a.gm_quality.clock_class <= 127 || a.gm_identity == b.gm_identity) {
    return CompareTopology(a, b);
  }
  return ByIdentity(a, b);
}

PtpBmcaResult ComparePtpDatasetsFor(const PtpProfile& profile,
                                    const PtpBmcaDataset& a,
                                    const PtpBmcaDataset& b) {
  return profile.alternate_bmca ? ComparePtpDatasetsG8275(a, b)
                                : ComparePtpDatasets(a, b);
}

PtpBmcaDataset PtpBmcaDatasetOfLocalClock(const PtpGrandmasterView& gm) {
  PtpBmcaDataset d;
  d.gm_priority1 = gm.priority1;
  d.gm_identity = gm.identity;
  d.gm_quality = gm.quality;
  d.gm_priority2 = gm.priority2;
  d.local_priority = gm.local_priority;
  d.steps_removed = 0;
  d.sender = {gm.identity, 0};
  d.receiver = {gm.identity, 0};
  return d;
}

PtpBmcaDataset PtpBmcaDatasetFromAnnounce(const PtpHeader& header,
                                          const PtpAnnounce& announce,
                                          const PtpPortIdentity& receiver,
                                          uint8_t local_priority) {
  PtpBmcaDataset d;
  d.gm_priority1 = announce.grandmaster_priority1;
  d.gm_identity = announce.grandmaster_identity;
  d.gm_quality = announce.grandmaster_clock_quality;
  d.gm_priority2 = announce.grandmaster_priority2;
  d.local_priority = local_priority;
  d.steps_removed = announce.steps_removed;
  d.sender = header.source_port_identity;
  d.receiver = receiver;
  return d;
}

}  // namespace zg::core
