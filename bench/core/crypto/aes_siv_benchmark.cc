// SPDX-License-Identifier: Apache-2.0
// AEAD_AES_SIV_CMAC_256 (core/crypto/aes_siv.h), NTS cookies
// (core/nts/nts_cookie.h) and the nonce CSPRNG (core/crypto/aes_ctr_random.h)
// at the sizes an NTS worker uses, next to the libraries in the same run:
// nettle's siv_cmac_aes128 (chrony's AES-SIV) and OpenSSL 3's EVP
// "AES-128-SIV" with a preallocated context. Every side is re-keyed per
// message alike (BM_*Rekeyed: key set-up + seal/open, as a server does
// with a cookie's keys); ours and nettle's also with the key prepared once
// (BM_Seal, BM_NettleSeal, ...), and ours in batches of 32 messages under
// 32 keys (BM_SealBatch32: per message, re-keyed, what a burst costs).
// At the end the run prints the libraries / ours per size and the
// per-reply sum:
//   cookie open + 2 x SetKey + authenticator verify (AD 188 + nonce, no
//   ciphertext) + cookie seal + reply seal (AD 84 + nonce, 104 bytes) +
//   two 16-byte nonces.
// The figures printed at the end are CPU time per operation.
//   build-rel/bench/aes_siv_benchmark
#include <nettle/siv-cmac.h>
#include <openssl/evp.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/crypto/aes_ctr_random.h"
#include "core/crypto/aes_siv.h"
#include "core/nts/nts_cookie.h"

namespace zg::bench {
namespace {

using namespace zg::core;

std::vector<uint8_t> Bytes(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + 31 * i);
  return v;
}

const std::vector<uint8_t> kKey = Bytes(32, 1);
const std::vector<uint8_t> kAd = Bytes(48, 2);  // an NTP header
const std::vector<uint8_t> kNonce = Bytes(16, 3);

void BM_Seal(benchmark::State& state) {
  AesSiv siv;
  siv.SetKey(kKey.data());
  const std::vector<uint8_t> pt = Bytes(state.range(0), 4);
  std::vector<uint8_t> out(16 + pt.size());
  const AesSivInput ad[] = {{kAd.data(), kAd.size()},
                            {kNonce.data(), kNonce.size()}};
  for (auto _ : state) {
    siv.Seal(ad, pt.data(), pt.size(), out.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
}

void BM_Open(benchmark::State& state) {
  AesSiv siv;
  siv.SetKey(kKey.data());
  const std::vector<uint8_t> pt = Bytes(state.range(0), 4);
  std::vector<uint8_t> in(16 + pt.size()), back(pt.size());
  const AesSivInput ad[] = {{kAd.data(), kAd.size()},
                            {kNonce.data(), kNonce.size()}};
  siv.Seal(ad, pt.data(), pt.size(), in.data());
  for (auto _ : state) {
    benchmark::DoNotOptimize(siv.Open(ad, in.data(), in.size(), back.data()));
    benchmark::ClobberMemory();
  }
}

// OpenSSL: init with the key, AD, nonce, plaintext, final, tag.
void BM_OpensslSeal(benchmark::State& state) {
  EVP_CIPHER* cipher = EVP_CIPHER_fetch(nullptr, "AES-128-SIV", nullptr);
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  const std::vector<uint8_t> pt = Bytes(state.range(0), 4);
  std::vector<uint8_t> out(16 + pt.size() + 16);
  int n = 0;
  for (auto _ : state) {
    EVP_EncryptInit_ex2(ctx, cipher, kKey.data(), nullptr, nullptr);
    EVP_EncryptUpdate(ctx, nullptr, &n, kAd.data(), kAd.size());
    EVP_EncryptUpdate(ctx, nullptr, &n, kNonce.data(), kNonce.size());
    EVP_EncryptUpdate(ctx, out.data() + 16, &n, pt.data(), pt.size());
    EVP_EncryptFinal_ex(ctx, out.data() + 16 + n, &n);
    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, out.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  EVP_CIPHER_CTX_free(ctx);
  EVP_CIPHER_free(cipher);
}

void BM_OpensslOpen(benchmark::State& state) {
  EVP_CIPHER* cipher = EVP_CIPHER_fetch(nullptr, "AES-128-SIV", nullptr);
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  const std::vector<uint8_t> pt = Bytes(state.range(0), 4);
  std::vector<uint8_t> in(16 + pt.size()), back(pt.size() + 16);
  AesSiv siv;
  siv.SetKey(kKey.data());
  const AesSivInput ad[] = {{kAd.data(), kAd.size()},
                            {kNonce.data(), kNonce.size()}};
  siv.Seal(ad, pt.data(), pt.size(), in.data());
  int n = 0;
  for (auto _ : state) {
    EVP_DecryptInit_ex2(ctx, cipher, kKey.data(), nullptr, nullptr);
    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, in.data());
    EVP_DecryptUpdate(ctx, nullptr, &n, kAd.data(), kAd.size());
    EVP_DecryptUpdate(ctx, nullptr, &n, kNonce.data(), kNonce.size());
    EVP_DecryptUpdate(ctx, back.data(), &n, in.data() + 16, pt.size());
    benchmark::DoNotOptimize(EVP_DecryptFinal_ex(ctx, back.data() + n, &n));
    benchmark::ClobberMemory();
  }
  EVP_CIPHER_CTX_free(ctx);
  EVP_CIPHER_free(cipher);
}

// Ours, SetKey then Seal / Open per message.
void BM_SealRekeyed(benchmark::State& state) {
  AesSiv siv;
  const std::vector<uint8_t> pt = Bytes(state.range(0), 4);
  std::vector<uint8_t> out(16 + pt.size());
  const AesSivInput ad[] = {{kAd.data(), kAd.size()},
                            {kNonce.data(), kNonce.size()}};
  for (auto _ : state) {
    siv.SetKey(kKey.data());
    siv.Seal(ad, pt.data(), pt.size(), out.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
}

void BM_OpenRekeyed(benchmark::State& state) {
  AesSiv siv;
  siv.SetKey(kKey.data());
  const std::vector<uint8_t> pt = Bytes(state.range(0), 4);
  std::vector<uint8_t> in(16 + pt.size()), back(pt.size());
  const AesSivInput ad[] = {{kAd.data(), kAd.size()},
                            {kNonce.data(), kNonce.size()}};
  siv.Seal(ad, pt.data(), pt.size(), in.data());
  for (auto _ : state) {
    siv.SetKey(kKey.data());
    benchmark::DoNotOptimize(siv.Open(ad, in.data(), in.size(), back.data()));
    benchmark::ClobberMemory();
  }
}

// Ours, 32 messages under 32 keys per iteration, each key set up and its
// message sealed in one batch (SetKeyBatch, SealBatch); per message.
void BM_SealBatch32(benchmark::State& state) {
  constexpr size_t kN = 32;
  std::vector<AesSiv> sivs(kN);
  std::vector<AesSiv*> targets;
  std::vector<std::vector<uint8_t>> keys;
  std::vector<const uint8_t*> key_ptrs;
  const std::vector<uint8_t> pt = Bytes(state.range(0), 4);
  std::vector<std::vector<uint8_t>> out(kN,
                                        std::vector<uint8_t>(16 + pt.size()));
  const AesSivInput ad[] = {{kAd.data(), kAd.size()},
                            {kNonce.data(), kNonce.size()}};
  std::vector<AesSivSealOp> ops;
  for (size_t i = 0; i < kN; ++i) {
    keys.push_back(Bytes(32, static_cast<uint8_t>(i)));
    targets.push_back(&sivs[i]);
    ops.push_back({&sivs[i], ad, pt.data(), pt.size(), out[i].data()});
  }
  for (const auto& k : keys) key_ptrs.push_back(k.data());
  for (auto _ : state) {
    AesSiv::SetKeyBatch(targets, key_ptrs);
    AesSiv::SealBatch(ops);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kN);
}

// The same for Open: 32 sealed messages, their keys set up and opened.
void BM_OpenBatch32(benchmark::State& state) {
  constexpr size_t kN = 32;
  std::vector<AesSiv> sivs(kN);
  std::vector<AesSiv*> targets;
  std::vector<std::vector<uint8_t>> keys;
  std::vector<const uint8_t*> key_ptrs;
  const std::vector<uint8_t> pt = Bytes(state.range(0), 4);
  std::vector<std::vector<uint8_t>> in(kN,
                                       std::vector<uint8_t>(16 + pt.size()));
  std::vector<std::vector<uint8_t>> back(kN, std::vector<uint8_t>(pt.size()));
  const AesSivInput ad[] = {{kAd.data(), kAd.size()},
                            {kNonce.data(), kNonce.size()}};
  std::vector<AesSivOpenOp> ops;
  for (size_t i = 0; i < kN; ++i) {
    keys.push_back(Bytes(32, static_cast<uint8_t>(i)));
    targets.push_back(&sivs[i]);
    sivs[i].SetKey(keys[i].data());
    sivs[i].Seal(ad, pt.data(), pt.size(), in[i].data());
    ops.push_back({&sivs[i], ad, in[i].data(), in[i].size(), back[i].data()});
  }
  for (const auto& k : keys) key_ptrs.push_back(k.data());
  for (auto _ : state) {
    AesSiv::SetKeyBatch(targets, key_ptrs);
    AesSiv::OpenBatch(ops);
    benchmark::ClobberMemory();
  }
  if (!ops[31].ok) state.SkipWithError("a message did not open");
  state.SetItemsProcessed(state.iterations() * kN);
}

// nettle: one AD (the header) and the nonce, as NTS uses it.
void NettleSeal(benchmark::State& state, bool rekey) {
  siv_cmac_aes128_ctx ctx;
  siv_cmac_aes128_set_key(&ctx, kKey.data());
  const std::vector<uint8_t> pt = Bytes(state.range(0), 4);
  std::vector<uint8_t> out(16 + pt.size());
  for (auto _ : state) {
    if (rekey) siv_cmac_aes128_set_key(&ctx, kKey.data());
    siv_cmac_aes128_encrypt_message(&ctx, kNonce.size(), kNonce.data(),
                                    kAd.size(), kAd.data(), out.size(),
                                    out.data(), pt.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
}
void NettleOpen(benchmark::State& state, bool rekey) {
  siv_cmac_aes128_ctx ctx;
  siv_cmac_aes128_set_key(&ctx, kKey.data());
  const std::vector<uint8_t> pt = Bytes(state.range(0), 4);
  std::vector<uint8_t> in(16 + pt.size()), back(pt.size());
  siv_cmac_aes128_encrypt_message(&ctx, kNonce.size(), kNonce.data(),
                                  kAd.size(), kAd.data(), in.size(), in.data(),
                                  pt.data());
  for (auto _ : state) {
    if (rekey) siv_cmac_aes128_set_key(&ctx, kKey.data());
    benchmark::DoNotOptimize(siv_cmac_aes128_decrypt_message(
        &ctx, kNonce.size(), kNonce.data(), kAd.size(), kAd.data(), back.size(),
        back.data(), in.data()));
    benchmark::ClobberMemory();
  }
}
void BM_NettleSeal(benchmark::State& state) { NettleSeal(state, false); }
void BM_NettleSealRekeyed(benchmark::State& state) { NettleSeal(state, true); }
void BM_NettleOpen(benchmark::State& state) { NettleOpen(state, false); }
void BM_NettleOpenRekeyed(benchmark::State& state) { NettleOpen(state, true); }

#define ZG_SIZES ->Arg(16)->Arg(64)->Arg(100)->Arg(128)->Arg(228)->Arg(832)
BENCHMARK(BM_Seal) ZG_SIZES;
BENCHMARK(BM_NettleSeal) ZG_SIZES;
BENCHMARK(BM_SealRekeyed) ZG_SIZES;
BENCHMARK(BM_SealBatch32) ZG_SIZES;
BENCHMARK(BM_NettleSealRekeyed) ZG_SIZES;
BENCHMARK(BM_OpensslSeal) ZG_SIZES;
BENCHMARK(BM_Open) ZG_SIZES;
BENCHMARK(BM_NettleOpen) ZG_SIZES;
BENCHMARK(BM_OpenRekeyed) ZG_SIZES;
BENCHMARK(BM_OpenBatch32) ZG_SIZES;
BENCHMARK(BM_NettleOpenRekeyed) ZG_SIZES;
BENCHMARK(BM_OpensslOpen) ZG_SIZES;

void BM_SetKey(benchmark::State& state) {
  AesSiv siv;
  std::vector<uint8_t> key = kKey;
  for (auto _ : state) {
    siv.SetKey(key.data());
    benchmark::DoNotOptimize(&siv);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_SetKey);

NtsCookieKeystore Keystore() {
  return *NtsCookieKeystore::Derive(Bytes(32, 9), {}, 1'750'000'000);
}

void BM_CookieSeal(benchmark::State& state) {
  const NtsCookieKeystore ks = Keystore();
  NtsKeys keys;
  uint8_t cookie[kNtsCookieSize];
  for (auto _ : state) {
    ks.Seal(keys, kNonce.data(), cookie);
    benchmark::DoNotOptimize(cookie);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_CookieSeal);

// A burst's new cookies (32 replies of 8 cookies), sealed in one batch
// under the period key, as NtsServer::SealCookies does; per cookie.
void BM_CookieSealBatch(benchmark::State& state) {
  const NtsCookieKeystore ks = Keystore();
  const size_t n = static_cast<size_t>(state.range(0));
  std::vector<NtsKeys> keys(n);
  std::vector<uint8_t> cookies(n * kNtsCookieSize);
  std::vector<NtsCookieSealOp> ops(n);
  for (size_t i = 0; i < n; ++i) {
    keys[i].c2s[0] = static_cast<uint8_t>(i);
    ops[i] = {&keys[i], kNonce.data(), &cookies[i * kNtsCookieSize]};
  }
  for (auto _ : state) {
    ks.Seal(ops);
    benchmark::DoNotOptimize(cookies.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(n));
}
BENCHMARK(BM_CookieSealBatch)->Arg(32)->Arg(256);

void BM_CookieOpen(benchmark::State& state) {
  const NtsCookieKeystore ks = Keystore();
  NtsKeys keys;
  uint8_t cookie[kNtsCookieSize];
  ks.Seal(keys, kNonce.data(), cookie);
  for (auto _ : state) {
    benchmark::DoNotOptimize(ks.Open(cookie, sizeof(cookie), &keys));
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_CookieOpen);

void BM_RandomFill16(benchmark::State& state) {
  AesCtrRandom rng(Bytes(32, 5).data());
  uint8_t nonce[16];
  for (auto _ : state) {
    rng.Fill(nonce, sizeof(nonce));
    benchmark::DoNotOptimize(nonce);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_RandomFill16);

// The request authenticator: AD = header, unique id and cookie EFs (188
// bytes), the nonce, no ciphertext.
void BM_AuthenticatorVerify(benchmark::State& state) {
  AesSiv siv;
  siv.SetKey(kKey.data());
  const std::vector<uint8_t> ad0 = Bytes(188, 6);
  const AesSivInput ad[] = {{ad0.data(), ad0.size()},
                            {kNonce.data(), kNonce.size()}};
  uint8_t tag[16];
  siv.Seal(ad, nullptr, 0, tag);
  for (auto _ : state) {
    benchmark::DoNotOptimize(siv.Open(ad, tag, sizeof(tag), nullptr));
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_AuthenticatorVerify);

// The reply: AD = header and unique id EF (84 bytes), the nonce, one cookie
// EF (104 bytes) encrypted.
void BM_ReplySeal(benchmark::State& state) {
  AesSiv siv;
  siv.SetKey(kKey.data());
  const std::vector<uint8_t> ad0 = Bytes(84, 7), pt = Bytes(104, 8);
  const AesSivInput ad[] = {{ad0.data(), ad0.size()},
                            {kNonce.data(), kNonce.size()}};
  uint8_t out[16 + 104];
  for (auto _ : state) {
    siv.Seal(ad, pt.data(), pt.size(), out);
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_ReplySeal);

// All of one NTS reply's crypto, in order.
void BM_NtsReplyCrypto(benchmark::State& state) {
  const NtsCookieKeystore ks = Keystore();
  AesCtrRandom rng(Bytes(32, 5).data());
  NtsKeys keys;
  keys.c2s[0] = 1;
  uint8_t cookie[kNtsCookieSize];
  ks.Seal(keys, kNonce.data(), cookie);
  std::vector<uint8_t> req_ad = Bytes(188, 6), reply_ad = Bytes(84, 7);
  uint8_t req_tag[16];
  {
    AesSiv c2s;
    c2s.SetKey(keys.c2s.data());
    const AesSivInput ad[] = {{req_ad.data(), req_ad.size()},
                              {kNonce.data(), 16}};
    c2s.Seal(ad, nullptr, 0, req_tag);
  }
  AesSiv c2s, s2c;
  uint8_t reply[16 + 104];
  uint8_t nonce[16];
  for (auto _ : state) {
    NtsKeys k;
    benchmark::DoNotOptimize(ks.Open(cookie, sizeof(cookie), &k));
    c2s.SetKey(k.c2s.data());
    s2c.SetKey(k.s2c.data());
    const AesSivInput req[] = {{req_ad.data(), req_ad.size()},
                               {kNonce.data(), 16}};
    benchmark::DoNotOptimize(c2s.Open(req, req_tag, 16, nullptr));
    rng.Fill(nonce, 16);
    ks.Seal(k, nonce, reply + 16 + 4);  // the new cookie, inside the EF
    rng.Fill(nonce, 16);
    const AesSivInput rep[] = {{reply_ad.data(), reply_ad.size()}, {nonce, 16}};
    s2c.Seal(rep, reply + 16, 104, reply);
    benchmark::DoNotOptimize(reply);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_NtsReplyCrypto);

// Prints OpenSSL / ours for each size and the per-reply sum of the steps,
// from CPU time (on a shared machine wall time also counts preemption).
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      if (r.run_type == Run::RT_Iteration) {
        ns_[r.benchmark_name()] = r.GetAdjustedCPUTime();
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    std::printf(
        "\nAES-SIV, AD {48, 16}, CPU time per message; x: their time / ours\n"
        "  key prepared once:        ours | nettle\n"
        "  re-keyed per message:     ours | ours, batch of 32 | nettle | "
        "OpenSSL EVP\n");
    for (const char* op : {"Seal", "Open"}) {
      for (int n : {16, 64, 100, 128, 228, 832}) {
        auto ns = [&](const std::string& name) {
          auto it = ns_.find(name + "/" + std::to_string(n));
          return it == ns_.end() ? 0.0 : it->second;
        };
        const std::string o(op);
        const double ours = ns("BM_" + o), nettle = ns("BM_Nettle" + o);
        const double ours_rk = ns("BM_" + o + "Rekeyed");
        const double batch = ns("BM_" + o + "Batch32") / 32;
        const double nettle_rk = ns("BM_Nettle" + o + "Rekeyed");
        const double ssl = ns("BM_Openssl" + o);
        if (ours == 0 || ours_rk == 0) continue;
        std::printf(
            "  %s %3d B: prepared %6.1f | %6.1f ns (%.1fx); re-keyed %6.1f | "
            "%6.1f | %6.1f | %7.1f ns (nettle %.1fx, OpenSSL %.1fx)\n",
            op, n, ours, nettle, nettle / ours, ours_rk, batch, nettle_rk, ssl,
            nettle_rk / ours_rk, ssl / ours_rk);
      }
    }
    const char* steps[] = {"BM_CookieOpen",   "BM_SetKey",
                           "BM_SetKey",       "BM_AuthenticatorVerify",
                           "BM_CookieSeal",   "BM_ReplySeal",
                           "BM_RandomFill16", "BM_RandomFill16"};
    double sum = 0;
    for (const char* s : steps) {
      if (ns_.count(s) == 0) return;
      sum += ns_[s];
    }
    std::printf(
        "NTS reply crypto, sum of steps: %.1f ns (%.2f M replies/s/core); "
        "in one loop (BM_NtsReplyCrypto): %.1f ns\n",
        sum, 1e3 / sum,
        ns_.count("BM_NtsReplyCrypto") ? ns_["BM_NtsReplyCrypto"] : 0.0);
  }

 private:
  std::map<std::string, double> ns_;
};

}  // namespace
}  // namespace zg::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  zg::bench::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
