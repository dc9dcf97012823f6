// SPDX-License-Identifier: Apache-2.0
#include "core/ptp/ptp_datasets.h"

namespace zg::core {

PtpClockQuality PtpServedClockQuality(const ClockModel& model, TaiNs now,
                                      const PtpProfile& profile) {
  if (model.IsSynchronized(now)) return model.ptp_quality;
  // Out of holdover spec the time is not served as synchronised, but the
  // control plane's class for it (52/187, 140/150/160, 165) is the truth a
  // slave's BMCA needs: only a model that is stale, has no rate or is free
  // running gets the profile's free-run class.
  const bool current = model.ns_per_tick_q32 != 0 &&
                       model.AgeNs(now) <= model.max_extrapolation_ns;
  if (current && model.state == SyncState::kHoldoverOutOfSpec) {
    return model.ptp_quality;
  }
  return {profile.freerun_clock_class, 0xFE, 0xFFFF};
}

PtpTimePropertiesDataSet PtpTimePropertiesAt(const ClockModel& model,
                                             TaiNs now) {
  const bool synced = model.IsSynchronized(now);
  const LeapPending leap =
      synced ? model.LeapAnnouncedAt(now) : LeapPending::kNone;
  PtpTimePropertiesDataSet tp;
  tp.current_utc_offset = static_cast<int16_t>(model.UtcOffsetAt(now));
  tp.leap61 = leap == LeapPending::kInsert;
  tp.leap59 = leap == LeapPending::kDelete;
  tp.current_utc_offset_valid =
      model.ns_per_tick_q32 != 0 && model.state != SyncState::kFreerun;
  tp.ptp_timescale = true;
  tp.time_traceable = synced && model.time_traceable;
  tp.frequency_traceable = synced && model.frequency_traceable;
  tp.time_source = model.ptp_time_source;
  return tp;
}

PtpGrandmasterView MakePtpGrandmasterView(const PtpPortConfig& config,
                                          const PtpClockIdentity& identity,
                                          const ClockModel& model, TaiNs now) {
  const PtpProfile& profile = GetPtpProfile(config.profile);
  PtpGrandmasterView gm;
  gm.identity = identity;
  gm.priority1 = config.priority1;
  gm.priority2 = config.priority2;
  gm.local_priority = config.local_priority;
  gm.quality = PtpServedClockQuality(model, now, profile);
  gm.time_properties = PtpTimePropertiesAt(model, now);
  gm.synchronized = model.IsSynchronized(now);
  gm.uncertain = gm.synchronized && model.state == SyncState::kLocking;
  return gm;
}

PtpFlags PtpTimePropertiesFlags(const PtpTimePropertiesDataSet& tp,
                                bool uncertain) {
  PtpFlags f;
  f.Set(PtpFlag::kLeap61, tp.leap61)
      .Set(PtpFlag::kLeap59, tp.leap59)
      .Set(PtpFlag::kCurrentUtcOffsetValid, tp.current_utc_offset_valid)
      .Set(PtpFlag::kPtpTimescale, tp.ptp_timescale)
      .Set(PtpFlag::kTimeTraceable, tp.time_traceable)
      .Set(PtpFlag::kFrequencyTraceable, tp.frequency_traceable)
      .Set(PtpFlag::kSynchronizationUncertain, uncertain);
  return f;
}

PtpAnnounce MakePtpAnnounceBody(const PtpGrandmasterView& gm,
                                PtpTimestamp origin) {
  PtpAnnounce a;
  a.origin_timestamp = origin;
  a.current_utc_offset = gm.time_properties.current_utc_offset;
  a.grandmaster_priority1 = gm.priority1;
  a.grandmaster_clock_quality = gm.quality;
  a.grandmaster_priority2 = gm.priority2;
  a.grandmaster_identity = gm.identity;
  a.steps_removed = 0;
  a.time_source = gm.time_properties.time_source;
  return a;
}

PtpDataSets MakePtpDataSets(const PtpGrandmasterView& gm,
                            const PtpPortConfig& config, uint16_t port_number,
                            uint16_t number_ports, PtpPortState state) {
  PtpDataSets ds;
  ds.default_ds.two_step = config.two_step;
  ds.default_ds.slave_only = false;
  ds.default_ds.number_ports = number_ports;
  ds.default_ds.priority1 = gm.priority1;
  ds.default_ds.clock_quality = gm.quality;
  ds.default_ds.priority2 = gm.priority2;
  ds.default_ds.clock_identity = gm.identity;
  ds.default_ds.domain_number = config.domain_number;

  ds.current_ds = {0, PtpCorrection{0}, PtpCorrection{0}};

  ds.parent_ds.parent_port_identity = {gm.identity, 0};
  ds.parent_ds.parent_stats = false;
  ds.parent_ds.grandmaster_priority1 = gm.priority1;
  ds.parent_ds.grandmaster_clock_quality = gm.quality;
  ds.parent_ds.grandmaster_priority2 = gm.priority2;
  ds.parent_ds.grandmaster_identity = gm.identity;

  ds.time_properties_ds = gm.time_properties;

  PtpPortDataSet& p = ds.port_ds;
  p.port_identity = {gm.identity, port_number};
  p.port_state = state;
  p.log_min_delay_req_interval = config.log_min_delay_req_interval;
  p.peer_mean_path_delay = PtpCorrection{0};
  p.log_announce_interval = config.log_announce_interval;
  p.announce_receipt_timeout = config.announce_receipt_timeout;
  p.log_sync_interval = config.log_sync_interval;
  p.delay_mechanism = config.delay_mechanism;
  p.log_min_pdelay_req_interval = config.log_min_pdelay_req_interval;
  p.version_number = 2;
  p.minor_version_number = 0;  // linuxptp 3.1's pmc prints the whole octet
  return ds;
}

PtpReplyConfig MakePtpReplyConfig(const PtpPortConfig& config,
                                  const PtpPortIdentity& port) {
  PtpReplyConfig r;
  r.port_identity = port;
  r.domain_number = config.domain_number;
  r.sdo_id = 0;
  r.minor_version = config.minor_version;
  r.log_min_delay_req_interval = config.log_min_delay_req_interval;
  return r;
}

PtpManagementConfig MakePtpManagementConfig(const PtpPortConfig& config,
                                            const PtpPortIdentity& port) {
  PtpManagementConfig m;
  m.port_identity = port;
  m.domain_number = config.domain_number;
  m.sdo_id = 0;
  m.minor_version = config.minor_version;
  return m;
}

}  // namespace zg::core
