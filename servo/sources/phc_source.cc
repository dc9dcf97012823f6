// SPDX-License-Identifier: Apache-2.0
#include "servo/sources/phc_source.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"
#include "core/time/time_format.h"
#include "servo/sources/refid.h"

namespace zg::servo {
namespace {

// PHCs that were never set start at 0 (1970); anything before 2000 is
// "not set".
constexpr int64_t kPhcUnsetBeforeNs = 946'684'800LL * core::kNanosPerSecond;

SystemTimeMapOptions MapOptions(clockid_t clock, int reads) {
  SystemTimeMapOptions o;
  o.clock = clock;
  o.tries = reads;
  return o;
}

}  // namespace

const char* PhcReadMethodName(PhcReadMethod m) {
  switch (m) {
    case PhcReadMethod::kPrecise:
      return "PTP_SYS_OFFSET_PRECISE";
    case PhcReadMethod::kExtendedMonoRaw:
      return "PTP_SYS_OFFSET_EXTENDED(CLOCK_MONOTONIC_RAW)";
    case PhcReadMethod::kExtendedRealtime:
      return "PTP_SYS_OFFSET_EXTENDED(CLOCK_REALTIME)";
    case PhcReadMethod::kBasic:
      return "PTP_SYS_OFFSET";
  }
  return "invalid";
}

SourceInfo PhcSourceOptions::DefaultInfo() {
  SourceInfo info;
  info.kind = SourceKind::kPhc;
  info.ntp_refid = NtpRefId("PHC");
  info.stratum = 0;
  info.ptp_time_source = core::PtpTimeSource::kPtp;
  info.priority = 20;
  return info;
}

std::optional<PhcTriple> TightestPhcTriple(const std::vector<PhcTriple>& t) {
  std::optional<PhcTriple> best;
  for (const PhcTriple& x : t) {
    if (x.sys_after_ns < x.sys_before_ns) continue;
    if (!best || x.sys_after_ns - x.sys_before_ns <
                     best->sys_after_ns - best->sys_before_ns) {
      best = x;
    }
  }
  return best;
}

clockid_t PhcSource::SystemClockOf(PhcReadMethod m) {
  return m == PhcReadMethod::kPrecise || m == PhcReadMethod::kExtendedMonoRaw
             ? CLOCK_MONOTONIC_RAW
             : CLOCK_REALTIME;
}

absl::StatusOr<std::unique_ptr<PhcSource>> PhcSource::Create(
    RawClock* raw, std::unique_ptr<PhcDevice> device, PhcSourceOptions options,
    SystemClockOps* ops) {
  if (device == nullptr) {
    return absl::InvalidArgumentError("PHC source: no device");
  }
  if (options.timescale == PhcSourceOptions::Timescale::kUtc &&
      !options.tai_minus_utc) {
    return absl::InvalidArgumentError(
        "PHC source: a UTC-scale PHC needs TAI-UTC (the leap-seconds file)");
  }
  if (options.info.name.empty()) {
    options.info.name = absl::StrCat("phc:", device->path());
  }
  ZG_ASSIGN_OR_RETURN(PhcCaps caps, device->GetCaps());
  std::vector<PhcReadMethod> candidates;
  if (options.allow_precise && caps.cross_timestamping) {
    candidates.push_back(PhcReadMethod::kPrecise);
  }
  candidates.insert(candidates.end(),
                    {PhcReadMethod::kExtendedMonoRaw,
                     PhcReadMethod::kExtendedRealtime, PhcReadMethod::kBasic});
  std::string tried;
  for (PhcReadMethod m : candidates) {
    auto src = std::unique_ptr<PhcSource>(
        new PhcSource(raw, nullptr, options, ops, caps, m));
    src->device_ = std::move(device);
    absl::StatusOr<Reading> r = src->Read(m);
    if (r.ok()) return src;
    device = std::move(src->device_);
    absl::StrAppend(&tried, tried.empty() ? "" : "; ", PhcReadMethodName(m),
                    ": ", r.status().message());
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "PHC ", device->path(), ": no way to read it against system time works (",
      tried, "). Check the NIC driver supports PHC reads (`phc_ctl ",
      device->path(), " get`)"));
}

PhcSource::PhcSource(RawClock* raw, std::unique_ptr<PhcDevice> device,
                     PhcSourceOptions options, SystemClockOps* ops,
                     PhcCaps caps, PhcReadMethod method)
    : device_(std::move(device)),
      options_(std::move(options)),
      ops_(ops),
      caps_(caps),
      method_(method),
      map_(raw, ops, MapOptions(SystemClockOf(method), options_.anchor_reads)),
      health_(options_.timeout_ns) {}

absl::StatusOr<PhcSource::Reading> PhcSource::Read(PhcReadMethod m) {
  Reading r;
  if (m == PhcReadMethod::kPrecise) {
    PhcCrossStamp x;
    ZG_RETURN_IF_ERROR(device_->ReadPrecise(&x));
    r.sys_ns = x.sys_monoraw_ns;
    r.phc_ns = x.phc_ns;
    return r;
  }
  std::vector<PhcTriple> triples;
  if (m == PhcReadMethod::kBasic) {
    ZG_RETURN_IF_ERROR(device_->ReadBasic(options_.samples_per_read, &triples));
  } else {
    ZG_RETURN_IF_ERROR(device_->ReadExtended(
        SystemClockOf(m), options_.samples_per_read, &triples));
  }
  const std::optional<PhcTriple> t = TightestPhcTriple(triples);
  if (!t) {
    return absl::InternalError(
        "every (system, PHC, system) triple ran backwards");
  }
  const int64_t width = t->sys_after_ns - t->sys_before_ns;
  r.sys_ns = t->sys_before_ns + width / 2;
  r.half_width_ns = width - width / 2;
  r.phc_ns = t->phc_ns;
  return r;
}

absl::Status PhcSource::Fail(absl::Status why) {
  health_.OnFailure(why);
  return why;
}

absl::Status PhcSource::Poll(std::vector<ReferenceSample>* out) {
  const int64_t mono = MonotonicNs(*ops_);
  if (!map_.Anchor()) {
    return Fail(
        absl::InternalError("PHC source: cannot read the system clock"));
  }
  absl::StatusOr<Reading> r = Read(method_);
  if (!r.ok()) {
    return Fail(absl::UnavailableError(absl::StrCat(
        "PHC ", device_->path(), " read failed: ", r.status().message())));
  }
  if (!map_.Anchor()) {
    return Fail(
        absl::InternalError("PHC source: cannot read the system clock"));
  }
  if (r->phc_ns < kPhcUnsetBeforeNs) {
    return Fail(absl::FailedPreconditionError(absl::StrCat(
        "PHC ", device_->path(), " reads ",
        core::FormatUtc(core::UtcNs{r->phc_ns}),
        ": it has never been set. Is ptp4l (or ts2phc, or the Time Card's "
        "GNSS) disciplining it? `phc_ctl ",
        device_->path(), " get` shows its time")));
  }
  const std::optional<SystemTimeMap::Mapping> m = map_.TicksAt(r->sys_ns);
  if (!m) {
    return Fail(absl::InternalError("PHC source: no TSC anchor"));
  }
  core::TaiNs tai{r->phc_ns};
  if (options_.timescale == PhcSourceOptions::Timescale::kUtc) {
    const std::optional<core::TaiNs> t =
        UtcToTaiUnambiguous(core::UtcNs{r->phc_ns}, options_.tai_minus_utc);
    if (!t) {  // within a second of a leap: skip
      health_.Refresh(mono);
      return absl::OkStatus();
    }
    tai = *t;
  }
  last_bracket_ns_ = 2 * r->half_width_ns;
  ReferenceSample s;
  s.raw_ticks = m->ticks;
  s.reference_tai = tai;
  s.uncertainty_ns =
      r->half_width_ns + m->uncertainty_ns + options_.phc_error_ns;
  s.taken_at = tai;
  out->push_back(s);
  ++samples_;
  health_.OnSample(mono);
  return absl::OkStatus();
}

}  // namespace zg::servo
