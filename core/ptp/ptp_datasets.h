// SPDX-License-Identifier: Apache-2.0
// From the published ClockModel to what a PTP grandmaster port advertises:
// its clock quality and time properties at one instant, the Announce body and
// flagField, the management data sets that `pmc` reads, the reply
// configurations of the in-place responders, and the BMCA dataset D0.
//
// The control thread (or a worker, once per burst) takes one snapshot of the
// model and derives everything from that one snapshot, so an Announce and the
// data sets never mix two models:
//
//   const PtpGrandmasterView gm =
//       MakePtpGrandmasterView(config, PtpClockIdentity::FromMac(mac), model,
//                              now_tai);
//   PtpAnnounce body = MakePtpAnnounceBody(gm, TaiToPtp(now_tai));
//   PtpFlags flags = PtpAnnounceFlags(gm.time_properties);
//   PtpDataSets ds = MakePtpDataSets(gm, config, /*port_number=*/1,
//                                    /*number_ports=*/1,
//                                    PtpPortState::kMaster);
//
// A model that is not synchronised at `now` (never locked, holdover out of
// spec, or stale past max_extrapolation_ns) is served with the profile's
// free-running clockClass (248), unknown accuracy and variance, and neither
// time- nor frequency-traceable. Pure functions; no allocation.
#ifndef ZG_CORE_PTP_PTP_DATASETS_H_
#define ZG_CORE_PTP_PTP_DATASETS_H_

#include <cstdint>

#include "core/ptp/ptp_management.h"
#include "core/ptp/ptp_profile.h"
#include "core/ptp/ptp_wire.h"
#include "core/time/clock_model.h"
#include "core/time/time_types.h"

namespace zg::core {

// The grandmaster as seen from one port at one instant.
struct PtpGrandmasterView {
  PtpClockIdentity identity;  // EUI-64 of the port's MAC
  uint8_t priority1 = 128;
  uint8_t priority2 = 128;
  uint8_t local_priority = 128;  // G.8275.x only; not on the wire
  PtpClockQuality quality;
  PtpTimePropertiesDataSet time_properties;
  bool synchronized = false;  // model.IsSynchronized(now)
  bool uncertain = false;     // locking: synchronizationUncertain
  friend constexpr bool operator==(const PtpGrandmasterView&,
                                   const PtpGrandmasterView&) = default;
};

// Clock quality served at `now`: the model's while it is synchronised or
// current in HOLDOVER_OUT_OF_SPEC (the degradation classes), else the
// profile's free-running quality (stale, no rate, FREERUN).
PtpClockQuality PtpServedClockQuality(const ClockModel& model, TaiNs now,
                                      const PtpProfile& profile);

// timePropertiesDS at `now`: currentUtcOffset in effect, leap61/leap59
// during the UTC day that ends with the leap, utcOffsetValid once the model
// has locked (it stays valid through holdover), ptpTimescale, traceability
// only while synchronised, and the model's timeSource.
PtpTimePropertiesDataSet PtpTimePropertiesAt(const ClockModel& model,
                                             TaiNs now);

PtpGrandmasterView MakePtpGrandmasterView(const PtpPortConfig& config,
                                          const PtpClockIdentity& identity,
                                          const ClockModel& model, TaiNs now);

// flagField bits that carry time properties (octet 1: leap61 ... FTRA, and
// synchronizationUncertain), as sent in Announce (and, per 1588-2019 7.3.8,
// in every message a master sends).
PtpFlags PtpTimePropertiesFlags(const PtpTimePropertiesDataSet& tp,
                                bool uncertain);
inline PtpFlags PtpAnnounceFlags(const PtpGrandmasterView& gm) {
  return PtpTimePropertiesFlags(gm.time_properties, gm.uncertain);
}

// The Announce body (stepsRemoved 0: we are the grandmaster).
PtpAnnounce MakePtpAnnounceBody(const PtpGrandmasterView& gm,
                                PtpTimestamp origin);

// Data sets for the management responder of port `port_number` of a clock
// with `number_ports` PTP ports. currentDS is all zero (a grandmaster has
// no master); parentDS names ourselves.
PtpDataSets MakePtpDataSets(const PtpGrandmasterView& gm,
                            const PtpPortConfig& config, uint16_t port_number,
                            uint16_t number_ports, PtpPortState state);

// Configurations of the in-place responders (ptp_wire.h, ptp_management.h).
PtpReplyConfig MakePtpReplyConfig(const PtpPortConfig& config,
                                  const PtpPortIdentity& port);
PtpManagementConfig MakePtpManagementConfig(const PtpPortConfig& config,
                                            const PtpPortIdentity& port);

}  // namespace zg::core

#endif  // ZG_CORE_PTP_PTP_DATASETS_H_
