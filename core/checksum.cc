#include "core/checksum.h"

#include <bit>
#include <cstring>

namespace zg::core {
namespace {

// 64-bit add with end-around carry: the ones' complement sum of 64-bit words
// is congruent (mod 0xFFFF) to the sum of their 16-bit words, in the host's
// byte order (RFC 1071 2.B: byte-order independence).
inline uint64_t AddCarry(uint64_t acc, uint64_t v) {
  acc += v;
  return acc + (acc < v);
}

inline uint64_t Load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// Folds a 64-bit end-around-carry sum to 16 bits (nonzero unless acc == 0).
inline uint16_t Fold(uint64_t acc) {
  acc = (acc & 0xFFFFFFFF) + (acc >> 32);  // <= 2^33 - 2
  acc = (acc & 0xFFFFFFFF) + (acc >> 32);  // <= 2^32 - 1
  acc = (acc & 0xFFFF) + (acc >> 16);      // <= 0x1FFFE
  acc = (acc & 0xFFFF) + (acc >> 16);      // <= 0xFFFF
  return static_cast<uint16_t>(acc);
}

// Host-order sum of the data, not folded.
inline uint64_t SumNative(const uint8_t* p, uint32_t len) {
  // Two accumulators break the carry chain between consecutive adds.
  uint64_t a = 0, b = 0;
  while (len >= 32) {
    a = AddCarry(a, Load64(p));
    b = AddCarry(b, Load64(p + 8));
    a = AddCarry(a, Load64(p + 16));
    b = AddCarry(b, Load64(p + 24));
    p += 32;
    len -= 32;
  }
  while (len >= 8) {
    a = AddCarry(a, Load64(p));
    p += 8;
    len -= 8;
  }
  // Tail of 0..7 bytes. Only a byte's lane within its 16-bit word matters,
  // so the pieces are added as small integers; a last odd byte is the first
  // (most significant on the wire) byte of its word.
  uint64_t t = 0;
  if (len & 4) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    t += v;
    p += 4;
  }
  if (len & 2) {
    uint16_t v;
    std::memcpy(&v, p, 2);
    t += v;
    p += 2;
  }
  if (len & 1) {
    t += std::endian::native == std::endian::little ? uint64_t{p[0]}
                                                    : uint64_t{p[0]} << 8;
  }
  return AddCarry(AddCarry(a, b), t);
}

inline uint16_t ToBigEndianSum(uint16_t native) {
  if constexpr (std::endian::native == std::endian::little) {
    return __builtin_bswap16(native);
  }
  return native;
}

}  // namespace

uint16_t OnesComplementSum(const uint8_t* data, uint32_t len,
                           uint16_t initial) {
  const uint16_t s = ToBigEndianSum(Fold(SumNative(data, len)));
  return OnesComplementAdd(s, initial);
}

uint16_t Ipv4HeaderChecksum(const uint8_t* header, uint32_t header_len) {
  return L4Checksum(0, header, header_len, ipv4::kChecksum);
}

uint16_t PseudoHeaderSumV6(const uint8_t* src16, const uint8_t* dst16,
                           uint8_t next_header, uint32_t l4_len) {
  uint64_t acc = AddCarry(Load64(src16), Load64(src16 + 8));
  acc = AddCarry(acc, Load64(dst16));
  acc = AddCarry(acc, Load64(dst16 + 8));
  const uint16_t addr_sum = ToBigEndianSum(Fold(acc));
  // Upper-layer length (32 bits) and next header (low byte of a 32-bit word).
  return OnesComplementAdd(
      OnesComplementAdd(addr_sum, static_cast<uint16_t>(l4_len >> 16)),
      OnesComplementAdd(static_cast<uint16_t>(l4_len), next_header));
}

uint16_t L4Checksum(uint16_t pseudo_sum, const uint8_t* l4, uint32_t l4_len,
                    uint32_t checksum_offset) {
  // Sum everything, then take the current checksum field back out:
  // S - f == S + ~f in ones' complement arithmetic.
  const uint16_t with_field = OnesComplementSum(l4, l4_len, pseudo_sum);
  const uint16_t field = LoadBe16(l4 + checksum_offset);
  // The operands are never both 0 (with_field is 0 only if the field is 0),
  // so the sum is in [1, 0xFFFF] as a fold of the data without the field is.
  return static_cast<uint16_t>(
      ~OnesComplementAdd(with_field, static_cast<uint16_t>(~field)));
}

uint16_t ChecksumUpdateBytes(uint16_t checksum, uint32_t offset,
                             const uint8_t* old_bytes, const uint8_t* new_bytes,
                             uint32_t len) {
  uint16_t old_sum = OnesComplementSum(old_bytes, len);
  uint16_t new_sum = OnesComplementSum(new_bytes, len);
  if (offset & 1) {
    // A range starting at an odd offset contributes its sum byte-swapped.
    old_sum = static_cast<uint16_t>(old_sum << 8 | old_sum >> 8);
    new_sum = static_cast<uint16_t>(new_sum << 8 | new_sum >> 8);
  }
  return ChecksumUpdate16(checksum, old_sum, new_sum);
}

}  // namespace zg::core
