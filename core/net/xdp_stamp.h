// SPDX-License-Identifier: Apache-2.0
// The RX stamp header zeitgeber's XDP programs put in front of a steered
// frame's Ethernet header (dataplane/bpf/zg_xdp.c; zg_xdp_hwts.o):
//
//   octets 0-7   magic, native-endian uint64_t: which clock the stamp is
//                  kXdpStampMagicKernel  "zgrxstmp": bpf_ktime_get_ns,
//                                        CLOCK_MONOTONIC ns, read on entry
//                  kXdpStampMagicNic     "zgrxhwts": the driver's RX
//                                        hardware stamp (XDP metadata kfunc
//                                        bpf_xdp_metadata_rx_timestamp), ns
//                                        of the NIC's clock (its PHC)
//   octets 8-15  the stamp, native-endian uint64_t ns (0 is never valid)
//
// Written by: the XDP program in the kernel. Read by: XdpStampClock's RX
// callback on the worker (dataplane::XdpStampClock, dataplane/clock/
// nic_clock.h), which strips it.
// A frame without one (another program, a frame the program could not
// grow) starts with its Ethernet header: no magic, nullopt. Pure and
// allocation-free: runs on the hot path.
#ifndef ZG_CORE_NET_XDP_STAMP_H_
#define ZG_CORE_NET_XDP_STAMP_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace zg::core {

inline constexpr uint64_t kXdpStampMagicKernel = 0x7a67727873746d70ULL;
inline constexpr uint64_t kXdpStampMagicNic = 0x7a67727868777473ULL;
inline constexpr size_t kXdpStampLen = 16;

enum class XdpClock : uint8_t {
  kKernel,  // CLOCK_MONOTONIC ns (bpf_ktime_get_ns)
  kNic,     // the NIC's hardware clock ns (driver RX metadata)
};

struct XdpStamp {
  XdpClock clock = XdpClock::kKernel;
  uint64_t ns = 0;  // on `clock`'s scale
};

// The stamp at the front of `frame`, if it has a header: the magic matches
// one of the two and the stamp is non-zero (a zero stamp is rejected).
std::optional<XdpStamp> ParseXdpStamp(std::span<const uint8_t> frame);

// Writes a header for `stamp` into out[0..kXdpStampLen) (tests, fuzzing).
void WriteXdpStamp(const XdpStamp& stamp, uint8_t* out);

}  // namespace zg::core

#endif  // ZG_CORE_NET_XDP_STAMP_H_
