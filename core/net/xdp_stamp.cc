// SPDX-License-Identifier: Apache-2.0
#include "core/net/xdp_stamp.h"

#include <cstring>

namespace zg::core {

std::optional<XdpStamp> ParseXdpStamp(std::span<const uint8_t> frame) {
  if (frame.size() < kXdpStampLen) return std::nullopt;
  uint64_t magic, ns;
  std::memcpy(&magic, frame.data(), 8);
  std::memcpy(&ns, frame.data() + 8, 8);
  if (ns == 0) return std::nullopt;
  if (magic == kXdpStampMagicKernel) return XdpStamp{XdpClock::kKernel, ns};
  if (magic == kXdpStampMagicNic) return XdpStamp{XdpClock::kNic, ns};
  return std::nullopt;
}

void WriteXdpStamp(const XdpStamp& stamp, uint8_t* out) {
  const uint64_t magic =
      stamp.clock == XdpClock::kNic ? kXdpStampMagicNic : kXdpStampMagicKernel;
  std::memcpy(out, &magic, 8);
  std::memcpy(out + 8, &stamp.ns, 8);
}

}  // namespace zg::core
