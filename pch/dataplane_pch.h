// SPDX-License-Identifier: Apache-2.0
// Precompiled header of zgdataplane: core_pch.h plus the OpenSSL,
// prometheus-cpp and abseil flags headers the data plane's operator
// surfaces include (clang builds only: use_pch in meson.build). No DPDK
// header: some sources define ALLOW_EXPERIMENTAL_API before including DPDK,
// and a precompiled copy would fix that choice for all of them.
#ifndef ZEITGEBER_PCH_DATAPLANE_PCH_H_
#define ZEITGEBER_PCH_DATAPLANE_PCH_H_

#include <openssl/evp.h>

#include <mutex>

#include "absl/flags/flag.h"
#include "pch/core_pch.h"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"

#endif  // ZEITGEBER_PCH_DATAPLANE_PCH_H_
