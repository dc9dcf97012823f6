// SPDX-License-Identifier: Apache-2.0
// PtpWorker on a send-on-timestamp port (--tx_schedule=auto, StampPlan
// ptp_tx = kScheduled; dataplane/clock/tx_scheduler.h): originated Syncs go
// one-step (the plugin turns two_step off for such a worker's port config,
// so no Follow_Up is reserved or sent) and BeforeTx writes each Sync's
// launch time, chosen by the worker's TxScheduler, as its originTimestamp:
// the NIC sends the Sync at exactly that NIC-clock time, so the origin is
// exact rather than a software stamp taken before tx_burst. Without a
// usable NIC-clock model yet, the Sync keeps the software stamp (still
// one-step). A Pdelay_Resp's t3 (FinaliseTx, ptp_follow_up.cc) is its
// launch time too: the worker schedules every frame with a FinaliseTx hook.
#include "dataplane/ptp/ptp_worker.h"

namespace zg::dataplane {

bool PtpSchedulesSyncs(const WorkerPort& port) {
  return port.stamps.ptp_tx == TxStampSource::kScheduled;
}

core::TaiNs PtpWorker::OneStepOrigin(rte_mbuf* m, const TxStamp& before) {
  if (tx_scheduler_ == nullptr) return before.tai;
  return tx_scheduler_->Schedule(m, before).tai;
}

}  // namespace zg::dataplane
