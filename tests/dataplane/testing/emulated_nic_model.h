// SPDX-License-Identifier: Apache-2.0
// TEST-ONLY: the NIC-clock ClockModel (NIC ns -> TAI) a test publishes for
// an EmulatedNic (emulated_nic.h), as the control plane's correlator would
// publish it: consistent with the TSC model `tsc` at `tsc_anchor` and exact
// for the emulated clock's rate (1 + drift_ppb * 1e-9 NIC ns per TSC ns),
// with every other field (state, error bound, stratum...) copied from `tsc`.
// StepNs after the call shifts the NIC clock off this model, as a step does
// until the correlator catches up.
//
//   core::ClockModel nic = EmulatedNicModel(*nic_, tsc_model, rte_rdtsc());
//   nic_published.Write(nic);   // Timestamper::Config::nic_clock
//   // T2 of a frame injected at wire_ns: nic.RawToTai(wire_ns)
#ifndef ZG_TESTS_DATAPLANE_TESTING_EMULATED_NIC_MODEL_H_
#define ZG_TESTS_DATAPLANE_TESTING_EMULATED_NIC_MODEL_H_

#include <cmath>
#include <cstdint>

#include "core/time/clock_model.h"
#include "tests/dataplane/testing/emulated_nic.h"

namespace zg::dataplane::testing {

inline core::ClockModel EmulatedNicModel(const EmulatedNic& nic,
                                         const core::ClockModel& tsc,
                                         uint64_t tsc_anchor) {
  core::ClockModel m = tsc;
  m.raw_anchor = static_cast<uint64_t>(nic.NicNsAtTsc(tsc_anchor));
  m.tai_anchor = tsc.RawToTai(tsc_anchor);
  const long double rate = 1.0L + nic.config().drift_ppb * 1e-9L;
  m.ns_per_tick_q32 = static_cast<uint64_t>(std::llround(4294967296.0L / rate));
  return m;
}

}  // namespace zg::dataplane::testing

#endif  // ZG_TESTS_DATAPLANE_TESTING_EMULATED_NIC_MODEL_H_
