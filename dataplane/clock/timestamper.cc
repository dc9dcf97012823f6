// SPDX-License-Identifier: Apache-2.0
#include "dataplane/clock/timestamper.h"

#include <rte_errno.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace zg::dataplane {

absl::StatusOr<NicStampField> RegisterNicStampField() {
  NicStampField f;
  if (rte_mbuf_dyn_rx_timestamp_register(&f.offset, &f.flag) != 0) {
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot register the mbuf RX-timestamp dynamic field: ",
                     rte_strerror(rte_errno), " (is the EAL initialised?)"));
  }
  return f;
}

Timestamper::Timestamper(const Config& config)
    : tsc_reader_(config.tsc_clock), nic_field_(config.nic_field) {
  if (config.nic_clock != nullptr && config.nic_field.valid()) {
    nic_reader_.emplace(config.nic_clock);
  }
}

uint32_t Timestamper::BeginBurstAt(uint64_t tsc) {
  uint32_t failures = 0;
  const uint64_t tsc_fails = tsc_reader_.failed_reads();
  const core::ClockModel& tsc_model = tsc_reader_.Refresh();
  failures += static_cast<uint32_t>(tsc_reader_.failed_reads() - tsc_fails);
  burst_stamp_ = {tsc_model.RawToTai(tsc), tsc, RawClockKind::kTsc};
  if (nic_reader_) {
    const uint64_t nic_fails = nic_reader_->failed_reads();
    nic_usable_ = nic_reader_->Refresh().ns_per_tick_q32 != 0;
    failures += static_cast<uint32_t>(nic_reader_->failed_reads() - nic_fails);
  }
  return failures;
}

}  // namespace zg::dataplane
