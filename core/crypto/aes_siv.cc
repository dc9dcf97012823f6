// SPDX-License-Identifier: Apache-2.0
#include "core/crypto/aes_siv.h"

#include <algorithm>
#include <cstring>

#include "core/crypto/aes_block.h"
#include "core/crypto/aesni_inl.h"
#include "core/crypto/aesni_lanes_inl.h"
#include "core/crypto/vaes_lanes.h"
#include "core/crypto/vaes_siv64.h"

namespace zg::core {
namespace {

// The prepared key of one AesSiv (pointers into it), and where S2V starts:
// its CMAC(0^128), or a prefix's D.
struct SivKeys {
  const uint8_t* s2v_rk;
  const uint8_t* ctr_rk;
  const uint8_t* k1;
  const uint8_t* k2;
  const uint8_t* d0;
};

// --- Portable path ----------------------------------------------------------

// S2V's D from k.d0 over the components ad[0..n).
void S2vFoldPortable(const SivKeys& k, std::span<const AesSivInput> ad,
                     uint8_t* d) {
  uint8_t mac[16];
  std::memcpy(d, k.d0, 16);
  for (const AesSivInput& c : ad) {
    aes::CmacPortable(k.s2v_rk, k.k1, k.k2, c.data, c.len, nullptr, mac);
    aes::DblPortable(d, d);
    for (int i = 0; i < 16; ++i) d[i] = static_cast<uint8_t>(d[i] ^ mac[i]);
  }
}

// RFC 5297 S2V over ad[0..n) then the plaintext.
void S2vPortable(const SivKeys& k, std::span<const AesSivInput> ad,
                 const uint8_t* pt, size_t len, uint8_t* v) {
  uint8_t d[16];
  S2vFoldPortable(k, ad, d);
  if (len >= 16) {
    aes::CmacPortable(k.s2v_rk, k.k1, k.k2, pt, len, d, v);
    return;
  }
  uint8_t t[16] = {0};
  aes::DblPortable(d, d);
  if (len != 0) std::memcpy(t, pt, len);
  t[len] = 0x80;
  for (int i = 0; i < 16; ++i) t[i] = static_cast<uint8_t>(t[i] ^ d[i]);
  aes::CmacPortable(k.s2v_rk, k.k1, k.k2, t, 16, nullptr, v);
}

// The CTR counter: V with bits 63 and 31 (of the 128-bit block) cleared.
void SivCounter(const uint8_t* v, uint8_t* q) {
  std::memcpy(q, v, 16);
  q[8] &= 0x7f;
  q[12] &= 0x7f;
}

bool TagsEqual(const uint8_t* a, const uint8_t* b) {
  uint8_t diff = 0;
  for (int i = 0; i < 16; ++i)
    diff = static_cast<uint8_t>(diff | (a[i] ^ b[i]));
  // Keep the compiler from turning the OR chain into an early exit.
  __asm__("" : "+r"(diff));
  return diff == 0;
}

void SealPortable(const SivKeys& k, std::span<const AesSivInput> ad,
                  const uint8_t* pt, size_t len, uint8_t* out) {
  uint8_t v[16], q[16];
  S2vPortable(k, ad, pt, len, v);
  SivCounter(v, q);
  std::memcpy(out, v, 16);
  aes::Ctr128(k.ctr_rk, q, pt, out + 16, len);
}

bool OpenPortable(const SivKeys& k, std::span<const AesSivInput> ad,
                  const uint8_t* in, size_t len, uint8_t* pt) {
  uint8_t v[16], q[16], t[16];
  std::memcpy(v, in, 16);  // before an in-place decryption
  SivCounter(v, q);
  aes::Ctr128(k.ctr_rk, q, in + 16, pt, len);
  S2vPortable(k, ad, pt, len, t);
  return TagsEqual(t, v);
}

void SetKeyPortable(const uint8_t* key, uint8_t* s2v_rk, uint8_t* ctr_rk,
                    uint8_t* k1, uint8_t* k2, uint8_t* zero) {
  aes::ExpandKey128Portable(key, s2v_rk);
  aes::ExpandKey128Portable(key + 16, ctr_rk);
  aes::CmacSubkeysPortable(s2v_rk, k1, k2);
  aes::EncryptBlockPortable(s2v_rk, k1, zero);
}

// Messages handled together per pass of the AES-NI path (the stack holds
// their lanes: kSivJobsPerChunk * 9 * 64 bytes).
constexpr size_t kSivJobsPerChunk = 32;

#ifdef ZG_HAVE_AESNI

// --- AES-NI path: every CMAC of a chunk's S2Vs in one lane engine ----------

// One S2V of a batch: its inputs, then V.
struct S2vJob {
  SivKeys k;
  std::span<const AesSivInput> ad;
  const uint8_t* pt;
  size_t len;
  __m128i v;
};

ZG_AESNI_INLINE __m128i LoadAligned(const uint8_t* p) {
  return _mm_load_si128(reinterpret_cast<const __m128i*>(p));
}

// V of each job (n <= kSivJobsPerChunk). First every job's component CMACs and
// the plaintext's blocks before its last 16 bytes (they do not depend on D),
// then each job's final one or two blocks, T with D xored in. The chains are
// laid out component by component (row c: every job's component c, the
// last row their plaintexts), so that like lengths run side by side in the
// wide engine.
ZG_AESNI void S2vNi(S2vJob* jobs, size_t n, bool wide) {
  aesni::MacLane lanes[kSivJobsPerChunk * (kAesSivMaxComponents + 1)];
  size_t rows = 0;
  for (size_t i = 0; i < n; ++i) {
    if (jobs[i].ad.size() > rows) rows = jobs[i].ad.size();
  }
  const size_t pt_row = rows * n;
  for (size_t i = 0; i < n; ++i) {
    const S2vJob& j = jobs[i];
    const aesni::Keys* keys = aesni::KeysAt(j.k.s2v_rk);
    const __m128i k1 = LoadAligned(j.k.k1), k2 = LoadAligned(j.k.k2);
    for (size_t c = 0; c < rows; ++c) {
      aesni::MacLane& l = lanes[c * n + i];
      if (c < j.ad.size()) {
        l = aesni::CmacLane(keys, j.ad[c].data, j.ad[c].len, k1, k2);
      } else {
        l.steps = 0;  // skipped
      }
    }
    const size_t prefix = j.len >= 16 ? (j.len - 16) / 16 : 0;
    aesni::MacLane& pl = lanes[pt_row + i];
    pl.keys = keys;
    pl.p = j.pt;
    pl.raw = prefix;
    pl.steps = prefix;
    pl.last = _mm_setzero_si128();
    pl.x = _mm_setzero_si128();
  }
  const size_t m = pt_row + n;
  vaes::RunMacLanesOn(wide, lanes, m);

  aesni::MacLane fin[kSivJobsPerChunk];
  alignas(16) uint8_t first_block[kSivJobsPerChunk][16];
  for (size_t i = 0; i < n; ++i) {
    const S2vJob& j = jobs[i];
    const __m128i k1 = LoadAligned(j.k.k1), k2 = LoadAligned(j.k.k2);
    const size_t nad = j.ad.size();
    __m128i d = LoadAligned(j.k.d0);
    for (size_t c = 0; c < nad; ++c) {
      d = _mm_xor_si128(aesni::Dbl(d), lanes[c * n + i].x);
    }
    aesni::MacLane& f = fin[i];
    f.keys = aesni::KeysAt(j.k.s2v_rk);
    f.p = first_block[i];
    f.raw = 0;
    f.steps = 1;
    f.x = lanes[pt_row + i].x;
    if (j.len < 16) {  // T = dbl(D) ^ pad(pt): one complete block
      const __m128i padded = aesni::PaddedTail(j.pt, j.len, j.len);
      f.last = _mm_xor_si128(_mm_xor_si128(aesni::Dbl(d), padded), k1);
      continue;
    }
    // T's blocks from the prefix on: the rest of pt (16..31 bytes) with D
    // xored into its last 16 bytes: one complete block, or a block whose
    // last 16 - r bytes take D's first ones and a padded block of r.
    const size_t prefix = (j.len - 16) / 16;
    const size_t r = j.len - 16 * prefix - 16;
    const __m128i end = _mm_xor_si128(aesni::Load(j.pt + j.len - 16), d);
    if (r == 0) {
      f.last = _mm_xor_si128(end, k1);
      continue;
    }
    _mm_store_si128(
        reinterpret_cast<__m128i*>(first_block[i]),
        _mm_xor_si128(aesni::Load(j.pt + 16 * prefix), aesni::ShiftUp(d, r)));
    f.raw = 1;
    f.steps = 2;
    f.last = _mm_xor_si128(
        _mm_or_si128(
            _mm_shuffle_epi8(end, aesni::Table(aesni::kPadTables.down[r])),
            aesni::Table(aesni::kPadTables.pad[r])),
        k2);
  }
  vaes::RunMacLanesOn(wide, fin, n);
  for (size_t i = 0; i < n; ++i) jobs[i].v = fin[i].x;
}

// jobs[i] sealed to out[i] (n <= kSivJobsPerChunk).
ZG_AESNI void SealNi(S2vJob* jobs, uint8_t* const* out, size_t n, bool wide) {
  S2vNi(jobs, n, wide);
  aesni::CtrJob ctr[kSivJobsPerChunk];
  for (size_t i = 0; i < n; ++i) {
    aesni::Store(out[i], jobs[i].v);
    ctr[i] = {aesni::KeysAt(jobs[i].k.ctr_rk), aesni::SivCounter(jobs[i].v),
              jobs[i].pt, out[i] + 16, jobs[i].len};
  }
  vaes::RunCtrOn(wide, ctr, n);
}

// in[i] (V || C, C as long as jobs[i].len) decrypted to jobs[i].pt, then
// checked (n <= kSivJobsPerChunk).
ZG_AESNI void OpenNi(S2vJob* jobs, const uint8_t* const* in, bool* ok, size_t n,
                     bool wide) {
  __m128i v[kSivJobsPerChunk];
  // Zeroed: GCC 12 takes the unused tail for an uninitialised read.
  aesni::CtrJob ctr[kSivJobsPerChunk] = {};
  for (size_t i = 0; i < n; ++i) {
    v[i] = aesni::Load(in[i]);  // before an in-place decryption
    ctr[i] = {aesni::KeysAt(jobs[i].k.ctr_rk), aesni::SivCounter(v[i]),
              in[i] + 16, const_cast<uint8_t*>(jobs[i].pt), jobs[i].len};
  }
  vaes::RunCtrOn(wide, ctr, n);
  S2vNi(jobs, n, wide);
  for (size_t i = 0; i < n; ++i) {
    const __m128i diff = _mm_xor_si128(jobs[i].v, v[i]);
    ok[i] = _mm_testz_si128(diff, diff) != 0;  // constant time
  }
}

// Keys set up per pass of SetKeysNi on the VAES lanes (4 on the AES-NI
// ones).
constexpr size_t kMaxSetKeys = 8;

// For each of n keys (n <= 4, wide: n <= 8): both schedules (written in
// place), L = E_K1(0), the CMAC subkeys L·x and L·x², and CMAC_K1(0^128) =
// E_K1(L·x); the key expansions of all n interleaved (wide: the VAES
// lanes expand them, four a vector).
ZG_AESNI void SetKeysNi(const uint8_t* const* key, uint8_t* const* s2v_rk,
                        uint8_t* const* ctr_rk, uint8_t* const* k1,
                        uint8_t* const* k2, uint8_t* const* zero, size_t n,
                        bool wide) {
  static constexpr int kRcon[10] = {0x01, 0x02, 0x04, 0x08, 0x10,
                                    0x20, 0x40, 0x80, 0x1b, 0x36};
  aesni::Keys ks[4];  // the S2V schedules, for L and CMAC(0)
  const aesni::Keys* ka[kMaxSetKeys];
  if (wide) {
    const uint8_t* keys[2 * kMaxSetKeys];
    uint8_t* rk[2 * kMaxSetKeys];
    for (size_t s = 0; s < n; ++s) {
      keys[s] = key[s];
      rk[s] = s2v_rk[s];
      keys[n + s] = key[s] + 16;
      rk[n + s] = ctr_rk[s];
    }
    vaes::ExpandKeys(keys, rk, 2 * n);
    for (size_t s = 0; s < kMaxSetKeys; ++s) {
      ka[s] = aesni::KeysAt(s2v_rk[s < n ? s : 0]);
    }
  } else {
    // Four schedules of each kind (the last key again where n < 4),
    // expanded in registers and then stored: through the pointers the
    // compiler would reload every round key (the schedules may alias).
    __m128i ea[4], eb[4];
    for (size_t s = 0; s < 4; ++s) {
      const uint8_t* k = key[s < n ? s : n - 1];
      ea[s] = aesni::Load(k);
      eb[s] = aesni::Load(k + 16);
      ks[s].k[0] = ea[s];
      if (s < n) aesni::Store(ctr_rk[s], eb[s]);
    }
    for (int i = 1; i < 11; ++i) {
      for (size_t s = 0; s < 4; ++s) {
        ea[s] = aesni::ExpandStep(ea[s], kRcon[i - 1]);
        eb[s] = aesni::ExpandStep(eb[s], kRcon[i - 1]);
        ks[s].k[i] = ea[s];
        if (s < n) aesni::Store(ctr_rk[s] + 16 * i, eb[s]);
      }
    }
    for (size_t s = 0; s < n; ++s) {
      for (int i = 0; i < 11; ++i) {
        aesni::Store(s2v_rk[s] + 16 * i, ks[s].k[i]);
      }
    }
    for (size_t s = 0; s < 4; ++s) ka[s] = &ks[s];
  }
  // L and CMAC(0): four lanes, or eight where the VAES lanes set up eight.
  const size_t lanes = wide && n > 4 ? 8 : 4;
  __m128i x[kMaxSetKeys];
  for (size_t s = 0; s < kMaxSetKeys; ++s) x[s] = _mm_setzero_si128();
  if (lanes == 8) {
    aesni::EncLanes<8>(x, ka);
  } else {
    aesni::EncLanes<4>(x, ka);
  }
  for (size_t s = 0; s < lanes; ++s) {
    x[s] = aesni::Dbl(x[s]);
    if (s >= n) continue;
    _mm_store_si128(reinterpret_cast<__m128i*>(k1[s]), x[s]);
    _mm_store_si128(reinterpret_cast<__m128i*>(k2[s]), aesni::Dbl(x[s]));
  }
  if (lanes == 8) {
    aesni::EncLanes<8>(x, ka);
  } else {
    aesni::EncLanes<4>(x, ka);
  }
  for (size_t s = 0; s < n; ++s) {
    _mm_store_si128(reinterpret_cast<__m128i*>(zero[s]), x[s]);
  }
}

// Whether ops is of the shape vaes::SealSiv64 and OpenSiv64 run: one key
// and one prefix (or none), one 16-byte component, 64 bytes of plaintext
// (len(op)).
template <class Op, class Len>
bool Siv64Shaped(std::span<Op> ops, Len len) {
  for (const Op& op : ops) {
    if (op.siv != ops[0].siv || op.prefix != ops[0].prefix ||
        op.ad.size() != 1 || op.ad[0].len != aes::kAesBlockSize ||
        len(op) != vaes::kSiv64Bytes) {
      return false;
    }
  }
  return !ops.empty();
}

ZG_AESNI vaes::Siv64Keys Siv64KeysOf(const SivKeys& k) {
  return {aesni::KeysAt(k.s2v_rk), aesni::KeysAt(k.ctr_rk), LoadAligned(k.k1),
          aesni::Dbl(LoadAligned(k.d0))};
}

// Every op sealed by vaes::SealSiv64 (ops Siv64Shaped).
void SealSiv64Batch(const vaes::Siv64Keys& k,
                    std::span<const AesSivSealOp> ops) {
  vaes::Siv64Seal seal[vaes::kVaesSlots];
  for (size_t at = 0; at < ops.size(); at += vaes::kVaesSlots) {
    const size_t n = std::min(ops.size() - at, size_t{vaes::kVaesSlots});
    for (size_t i = 0; i < n; ++i) {
      const AesSivSealOp& op = ops[at + i];
      seal[i] = {op.ad[0].data, op.plaintext, op.out};
    }
    vaes::SealSiv64(k, seal, n);
  }
}

// Every op opened by vaes::OpenSiv64 (ops Siv64Shaped), its ok set.
void OpenSiv64Batch(const vaes::Siv64Keys& k, std::span<AesSivOpenOp> ops) {
  vaes::Siv64Open open[vaes::kVaesSlots];
  bool ok[vaes::kVaesSlots];
  for (size_t at = 0; at < ops.size(); at += vaes::kVaesSlots) {
    const size_t n = std::min(ops.size() - at, size_t{vaes::kVaesSlots});
    for (size_t i = 0; i < n; ++i) {
      const AesSivOpenOp& op = ops[at + i];
      open[i] = {op.ad[0].data, op.in, op.plaintext};
    }
    vaes::OpenSiv64(k, open, n, ok);
    for (size_t i = 0; i < n; ++i) ops[at + i].ok = ok[i];
  }
}

#endif  // ZG_HAVE_AESNI

}  // namespace

AesSiv::AesSiv() {
  std::memset(s2v_rk_, 0, sizeof(s2v_rk_));
  std::memset(ctr_rk_, 0, sizeof(ctr_rk_));
  std::memset(cmac_k1_, 0, sizeof(cmac_k1_));
  std::memset(cmac_k2_, 0, sizeof(cmac_k2_));
  std::memset(s2v_zero_, 0, sizeof(s2v_zero_));
}

void AesSiv::SetKey(const uint8_t* key) {
  AesSiv* self = this;
  SetKeyBatch({&self, 1}, {&key, 1});
}

bool AesSiv::Seal(std::span<const AesSivInput> ad, const uint8_t* plaintext,
                  size_t len, uint8_t* out) const {
  const AesSivSealOp op{this, ad, plaintext, len, out};
  return SealBatch({&op, 1});
}

bool AesSiv::Open(std::span<const AesSivInput> ad, const uint8_t* in,
                  size_t in_len, uint8_t* plaintext) const {
  AesSivOpenOp op{this, ad, in, in_len, plaintext, false};
  OpenBatch({&op, 1});
  return op.ok;
}

void AesSiv::SetKeyBatch(std::span<AesSiv* const> sivs,
                         std::span<const uint8_t* const> keys) {
#ifdef ZG_HAVE_AESNI
  if (aes::UseAesNi()) {
    const bool wide = aes::UseVaes();
    const size_t chunk = wide ? kMaxSetKeys : 4;
    for (size_t at = 0; at < sivs.size(); at += chunk) {
      const size_t n = sivs.size() - at < chunk ? sivs.size() - at : chunk;
      uint8_t *s2v[kMaxSetKeys], *ctr[kMaxSetKeys], *k1[kMaxSetKeys],
          *k2[kMaxSetKeys], *zero[kMaxSetKeys];
      for (size_t s = 0; s < n; ++s) {
        AesSiv& siv = *sivs[at + s];
        s2v[s] = siv.s2v_rk_;
        ctr[s] = siv.ctr_rk_;
        k1[s] = siv.cmac_k1_;
        k2[s] = siv.cmac_k2_;
        zero[s] = siv.s2v_zero_;
      }
      SetKeysNi(keys.data() + at, s2v, ctr, k1, k2, zero, n, wide);
    }
    return;
  }
#endif
  for (size_t i = 0; i < sivs.size(); ++i) {
    AesSiv& s = *sivs[i];
    SetKeyPortable(keys[i], s.s2v_rk_, s.ctr_rk_, s.cmac_k1_, s.cmac_k2_,
                   s.s2v_zero_);
  }
}

AesSivPrefix AesSiv::Prefix(std::span<const AesSivInput> leading) const {
  AesSivPrefix p;
  S2vFoldPortable({s2v_rk_, ctr_rk_, cmac_k1_, cmac_k2_, s2v_zero_}, leading,
                  p.d);
  return p;
}

bool AesSiv::SealBatch(std::span<const AesSivSealOp> ops) {
  for (const AesSivSealOp& op : ops) {
    if (op.ad.size() > kAesSivMaxComponents) return false;
  }
  auto keys = [](const AesSivSealOp& op) {
    const AesSiv& s = *op.siv;
    return SivKeys{s.s2v_rk_, s.ctr_rk_, s.cmac_k1_, s.cmac_k2_,
                   op.prefix != nullptr ? op.prefix->d : s.s2v_zero_};
  };
#ifdef ZG_HAVE_AESNI
  if (aes::UseAesNi()) {
    const bool wide = aes::UseVaes();
    if (wide &&
        Siv64Shaped(ops, [](const AesSivSealOp& op) { return op.len; })) {
      SealSiv64Batch(Siv64KeysOf(keys(ops[0])), ops);
      return true;
    }
    for (size_t at = 0; at < ops.size(); at += kSivJobsPerChunk) {
      const size_t n = ops.size() - at < kSivJobsPerChunk ? ops.size() - at
                                                          : kSivJobsPerChunk;
      S2vJob jobs[kSivJobsPerChunk];
      uint8_t* out[kSivJobsPerChunk];
      for (size_t i = 0; i < n; ++i) {
        const AesSivSealOp& op = ops[at + i];
        jobs[i].k = keys(op);
        jobs[i].ad = op.ad;
        jobs[i].pt = op.plaintext;
        jobs[i].len = op.len;
        out[i] = op.out;
      }
      SealNi(jobs, out, n, wide);
    }
    return true;
  }
#endif
  for (const AesSivSealOp& op : ops) {
    SealPortable(keys(op), op.ad, op.plaintext, op.len, op.out);
  }
  return true;
}

void AesSiv::OpenBatch(std::span<AesSivOpenOp> ops) {
  auto keys = [](const AesSivOpenOp& op) {
    const AesSiv& s = *op.siv;
    return SivKeys{s.s2v_rk_, s.ctr_rk_, s.cmac_k1_, s.cmac_k2_,
                   op.prefix != nullptr ? op.prefix->d : s.s2v_zero_};
  };
  auto valid = [](const AesSivOpenOp& op) {
    return op.ad.size() <= kAesSivMaxComponents && op.in_len >= kAesSivTagSize;
  };
#ifdef ZG_HAVE_AESNI
  if (aes::UseAesNi() && aes::UseVaes() &&
      Siv64Shaped(ops, [](const AesSivOpenOp& op) {
        return op.in_len - kAesSivTagSize;
      })) {
    OpenSiv64Batch(Siv64KeysOf(keys(ops[0])), ops);
  } else if (aes::UseAesNi()) {
    const bool wide = aes::UseVaes();
    S2vJob jobs[kSivJobsPerChunk];
    const uint8_t* in[kSivJobsPerChunk];
    bool ok[kSivJobsPerChunk];
    AesSivOpenOp* of[kSivJobsPerChunk];
    size_t n = 0;
    auto run = [&] {
      OpenNi(jobs, in, ok, n, wide);
      for (size_t i = 0; i < n; ++i) of[i]->ok = ok[i];
      n = 0;
    };
    for (AesSivOpenOp& op : ops) {
      op.ok = false;
      if (!valid(op)) continue;
      jobs[n].k = keys(op);
      jobs[n].ad = op.ad;
      jobs[n].pt = op.plaintext;
      jobs[n].len = op.in_len - kAesSivTagSize;
      in[n] = op.in;
      of[n++] = &op;
      if (n == kSivJobsPerChunk) run();
    }
    if (n != 0) run();
  } else  // NOLINT(readability/braces)
#endif
  {
    for (AesSivOpenOp& op : ops) {
      op.ok =
          valid(op) && OpenPortable(keys(op), op.ad, op.in,
                                    op.in_len - kAesSivTagSize, op.plaintext);
    }
  }
  for (AesSivOpenOp& op : ops) {
    const size_t len =
        op.in_len >= kAesSivTagSize ? op.in_len - kAesSivTagSize : 0;
    if (!op.ok && len != 0 && op.plaintext != nullptr) {
      std::memset(op.plaintext, 0, len);
    }
  }
}

bool AesSiv::UsesAesNi() { return aes::UseAesNi(); }

}  // namespace zg::core
