// SPDX-License-Identifier: Apache-2.0
// AEAD_AES_SIV_CMAC_256 (core/crypto/aes_siv.h), NTS cookies
// (core/nts/nts_cookie.h) and the nonce CSPRNG (core/crypto/aes_ctr_random.h)
// at the sizes an NTS worker uses, next to the in-run baseline: OpenSSL 3's
// EVP "AES-128-SIV" with a preallocated context, keyed per message as a
// straightforward server does with a cookie's keys. At the end the run
// prints OpenSSL / ours per size and the per-reply sum:
//   cookie open + 2 x SetKey + authenticator verify (AD 188 + nonce, no
//   ciphertext) + cookie seal + reply seal (AD 84 + nonce, 104 bytes) +
//   two 16-byte nonces.
// The figures printed at the end are CPU time per operation.
//   build-rel/bench/aes_siv_benchmark
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

#define ZG_SIZES ->Arg(16)->Arg(64)->Arg(100)->Arg(128)->Arg(228)
BENCHMARK(BM_Seal) ZG_SIZES;
BENCHMARK(BM_OpensslSeal) ZG_SIZES;
BENCHMARK(BM_Open) ZG_SIZES;
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
    std::printf("\nAES-SIV, AD {48, 16}: OpenSSL EVP / ours (x faster)\n");
    for (const char* op : {"Seal", "Open"}) {
      for (int n : {16, 64, 100, 128, 228}) {
        const std::string ours =
            "BM_" + std::string(op) + "/" + std::to_string(n);
        const std::string ssl =
            "BM_Openssl" + std::string(op) + "/" + std::to_string(n);
        if (ns_.count(ours) == 0 || ns_.count(ssl) == 0) continue;
        std::printf("  %s %3d B: ours %7.1f ns, OpenSSL %7.1f ns, %5.1fx\n", op,
                    n, ns_[ours], ns_[ssl], ns_[ssl] / ns_[ours]);
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
