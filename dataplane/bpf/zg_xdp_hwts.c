// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
// zeitgeber's XDP steering program with driver RX hardware stamps: zg_xdp.c
// built with ZG_XDP_HWTS (see there). Each steered frame's stamp header
// carries the driver's RX time of the frame (bpf_xdp_metadata_rx_timestamp,
// ZG_STAMP_MAGIC_HW, the NIC's clock in ns) where the driver gives one, and
// bpf_ktime_get_ns (ZG_STAMP_MAGIC, CLOCK_MONOTONIC) where it does not.
// Must be loaded device-bound (BPF_F_XDP_DEV_BOUND_ONLY and the interface's
// ifindex): zeitgeberd --xdp_rx_metadata does that and swaps it in for the
// zg_xdp.o the PMD attached (dataplane/port/xdp_hwts.h).
//
// Build: clang -O2 -g -target bpf -c zg_xdp_hwts.c -o zg_xdp_hwts.o
// (dataplane/meson.build)
#define ZG_XDP_HWTS 1
#include "zg_xdp.c"
