// SPDX-License-Identifier: Apache-2.0
// The best master clock algorithm's dataset comparison: IEEE 1588-2019
// 9.3.4 (Figures 34 and 35) and the alternate comparison of the telecom
// profiles (ITU-T G.8275.1/G.8275.2 6.3.x, with localPriority).
//
// A comparison dataset describes a grandmaster as seen through one Announce
// (or our own defaultDS, "D0"): the grandmaster's attributes, how many steps
// away it is, who sent the Announce and which of our ports received it.
//
//   const PtpBmcaDataset d0 = PtpBmcaDatasetOfLocalClock(gm);
//   const PtpBmcaDataset e = PtpBmcaDatasetFromAnnounce(header, announce,
//                                                       our_port, 128);
//   if (PtpIsBetter(ComparePtpDatasets(e, d0))) { /* e wins: go PASSIVE */ }
//
// Pure and allocation-free; used by core/ptp/ptp_port_state.h.
#ifndef ZG_CORE_PTP_PTP_BMCA_H_
#define ZG_CORE_PTP_PTP_BMCA_H_

#include <cstdint>

#include "core/ptp/ptp_datasets.h"
#include "core/ptp/ptp_wire.h"
#include "core/time/clock_model.h"

namespace zg::core {

struct PtpBmcaDataset {
  uint8_t gm_priority1 = 128;
  PtpClockIdentity gm_identity;
  PtpClockQuality gm_quality;
  uint8_t gm_priority2 = 128;
  uint8_t local_priority = 128;  // G.8275.x: the receiving port's setting
  uint16_t steps_removed = 0;
  PtpPortIdentity sender;    // sourcePortIdentity of the Announce
  PtpPortIdentity receiver;  // our port that received it
  friend constexpr bool operator==(const PtpBmcaDataset&,
                                   const PtpBmcaDataset&) = default;
};

// Result of comparing A with B. "By topology": the same grandmaster, A (or
// B) is the better path to it. kError1: A and B are the same message path
// seen twice (Figure 35 "error-1"); kError2: identical datasets ("error-2").
enum class PtpBmcaResult : uint8_t {
  kABetter,
  kABetterByTopology,
  kBBetter,
  kBBetterByTopology,
  kError1,
  kError2,
};
const char* PtpBmcaResultName(PtpBmcaResult r);
constexpr bool PtpABetter(PtpBmcaResult r) {
  return r == PtpBmcaResult::kABetter || r == PtpBmcaResult::kABetterByTopology;
}
constexpr bool PtpBBetter(PtpBmcaResult r) {
  return r == PtpBmcaResult::kBBetter || r == PtpBmcaResult::kBBetterByTopology;
}

// Lexicographic order of port identities (clockIdentity octets, then port
// number), as 1588 compares them: negative, zero or positive.
int ComparePtpPortIdentity(const PtpPortIdentity& a, const PtpPortIdentity& b);

// IEEE 1588-2019 9.3.4: priority1, clockClass, clockAccuracy,
// offsetScaledLogVariance, priority2, grandmaster identity; for the same
// grandmaster, the topology comparison of Figure 35 (stepsRemoved, then
// sender and receiver identities).
PtpBmcaResult ComparePtpDatasets(const PtpBmcaDataset& a,
                                 const PtpBmcaDataset& b);

// G.8275.x alternate comparison: clockClass, clockAccuracy,
// offsetScaledLogVariance, priority2, localPriority; then, for clockClass
// <= 127 (grandmaster-capable classes), the topology comparison; otherwise
// the grandmaster identity, and the topology for the same grandmaster.
// priority1 is not compared.
PtpBmcaResult ComparePtpDatasetsG8275(const PtpBmcaDataset& a,
                                      const PtpBmcaDataset& b);

// The comparison a profile uses.
PtpBmcaResult ComparePtpDatasetsFor(const PtpProfile& profile,
                                    const PtpBmcaDataset& a,
                                    const PtpBmcaDataset& b);

// D0: our own clock (stepsRemoved 0, sender = receiver = our clock with
// port number 0, as 9.3.4 prescribes for the defaultDS).
PtpBmcaDataset PtpBmcaDatasetOfLocalClock(const PtpGrandmasterView& gm);

// The dataset of a received Announce, received by `receiver`.
PtpBmcaDataset PtpBmcaDatasetFromAnnounce(const PtpHeader& header,
                                          const PtpAnnounce& announce,
                                          const PtpPortIdentity& receiver,
                                          uint8_t local_priority);

}  // namespace zg::core

#endif  // ZG_CORE_PTP_PTP_BMCA_H_
