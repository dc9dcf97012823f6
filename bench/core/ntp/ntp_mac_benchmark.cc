// SPDX-License-Identifier: Apache-2.0
// One NTP MAC (core/ntp/ntp_mac.h) of a 48-byte header per algorithm, from
// each library that could compute it, in the same run, every key prepared
// before timing as the macer prepares it:
//   AES128-CMAC  ours (core/crypto/aes_cmac.h) one at a time and in a batch
//                of 32 under 32 keys (what a burst costs per request),
//                nettle's cmac_aes128 (chrony's) and OpenSSL's CMAC_CTX
//   AES256-CMAC  nettle's cmac_aes256 and OpenSSL's CMAC_CTX
//   SHA1, MD5    OpenSSL's and nettle's, the state after the key copied
//                per message
// The summary prints each library's time against the one NtpMacer uses.
//
//   build-rel/bench/ntp_mac_benchmark --benchmark_repetitions=5
#define OPENSSL_SUPPRESS_DEPRECATED
#include <nettle/cmac.h>
#include <nettle/md5.h>
#include <nettle/sha1.h>
#include <openssl/cmac.h>
#include <openssl/evp.h>
#include <openssl/md5.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/crypto/aes_cmac.h"

namespace zg::core {
namespace {

constexpr size_t kMsg = 48;  // an NTP header
constexpr int kBatch = 32;
uint8_t g_key[32] = {0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6,
                     0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c,
                     0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
                     0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00};
uint8_t g_msg[kBatch][kMsg];

void BM_Aes128Ours(benchmark::State& state) {
  AesCmac128 cmac;
  cmac.SetKey(g_key);
  uint8_t mac[16];
  for (auto _ : state) {
    cmac.Compute(g_msg[0], kMsg, mac);
    benchmark::DoNotOptimize(mac);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_Aes128Ours);

// Per MAC, in batches of 32 messages under 32 keys.
void BM_Aes128OursBatch32(benchmark::State& state) {
  std::vector<AesCmac128> keys(kBatch);
  for (int i = 0; i < kBatch; ++i) {
    g_key[0] = static_cast<uint8_t>(i);
    keys[i].SetKey(g_key);
  }
  uint8_t mac[kBatch][16];
  AesCmacOp ops[kBatch];
  for (int i = 0; i < kBatch; ++i) ops[i] = {&keys[i], g_msg[i], kMsg, mac[i]};
  for (auto _ : state) {
    AesCmac128::ComputeBatch(ops);
    benchmark::DoNotOptimize(mac);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
  state.counters["ns_per_mac"] = benchmark::Counter(
      static_cast<double>(state.iterations() * kBatch),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_Aes128OursBatch32);

void BM_Aes128Nettle(benchmark::State& state) {
  cmac_aes128_ctx ctx;
  cmac_aes128_set_key(&ctx, g_key);
  uint8_t mac[16];
  for (auto _ : state) {
    cmac_aes128_update(&ctx, kMsg, g_msg[0]);
    cmac_aes128_digest(&ctx, 16, mac);
    benchmark::DoNotOptimize(mac);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_Aes128Nettle);

void OpensslCmac(benchmark::State& state, const EVP_CIPHER* cipher) {
  CMAC_CTX* ctx = CMAC_CTX_new();
  CMAC_Init(ctx, g_key, EVP_CIPHER_key_length(cipher), cipher, nullptr);
  uint8_t mac[16];
  size_t n = 0;
  for (auto _ : state) {
    CMAC_Init(ctx, nullptr, 0, nullptr, nullptr);  // keeps the schedule
    CMAC_Update(ctx, g_msg[0], kMsg);
    CMAC_Final(ctx, mac, &n);
    benchmark::DoNotOptimize(mac);
    benchmark::ClobberMemory();
  }
  CMAC_CTX_free(ctx);
}
void BM_Aes128Openssl(benchmark::State& state) {
  OpensslCmac(state, EVP_aes_128_cbc());
}
BENCHMARK(BM_Aes128Openssl);

void BM_Aes256Nettle(benchmark::State& state) {
  cmac_aes256_ctx ctx;
  cmac_aes256_set_key(&ctx, g_key);
  uint8_t mac[16];
  for (auto _ : state) {
    cmac_aes256_update(&ctx, kMsg, g_msg[0]);
    cmac_aes256_digest(&ctx, 16, mac);
    benchmark::DoNotOptimize(mac);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_Aes256Nettle);

void BM_Aes256Openssl(benchmark::State& state) {
  OpensslCmac(state, EVP_aes_256_cbc());
}
BENCHMARK(BM_Aes256Openssl);

// The legacy MACs: digest(key || message), key 20 bytes (a typical
// keyfile's); the state after the key copied per message.
void BM_Sha1Openssl(benchmark::State& state) {
  SHA_CTX k;
  SHA1_Init(&k);
  SHA1_Update(&k, g_key, 20);
  uint8_t mac[20];
  for (auto _ : state) {
    SHA_CTX c = k;
    SHA1_Update(&c, g_msg[0], kMsg);
    SHA1_Final(mac, &c);
    benchmark::DoNotOptimize(mac);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_Sha1Openssl);

void BM_Sha1Nettle(benchmark::State& state) {
  sha1_ctx k;
  sha1_init(&k);
  sha1_update(&k, 20, g_key);
  uint8_t mac[20];
  for (auto _ : state) {
    sha1_ctx c = k;
    sha1_update(&c, kMsg, g_msg[0]);
    sha1_digest(&c, 20, mac);
    benchmark::DoNotOptimize(mac);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_Sha1Nettle);

void BM_Md5Openssl(benchmark::State& state) {
  MD5_CTX k;
  MD5_Init(&k);
  MD5_Update(&k, g_key, 20);
  uint8_t mac[16];
  for (auto _ : state) {
    MD5_CTX c = k;
    MD5_Update(&c, g_msg[0], kMsg);
    MD5_Final(mac, &c);
    benchmark::DoNotOptimize(mac);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_Md5Openssl);

void BM_Md5Nettle(benchmark::State& state) {
  md5_ctx k;
  md5_init(&k);
  md5_update(&k, 20, g_key);
  uint8_t mac[16];
  for (auto _ : state) {
    md5_ctx c = k;
    md5_update(&c, kMsg, g_msg[0]);
    md5_digest(&c, 16, mac);
    benchmark::DoNotOptimize(mac);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_Md5Nettle);

// Fastest repetition's CPU time per MAC, then each algorithm's libraries
// against the one NtpMacer uses (listed first).
class Summary final : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      if (r.run_type != Run::RT_Iteration || r.iterations == 0) continue;
      double ns = r.cpu_accumulated_time * 1e9 / double(r.iterations);
      if (r.run_name.function_name == "BM_Aes128OursBatch32") ns /= kBatch;
      auto [it, fresh] = ns_.emplace(r.run_name.function_name, ns);
      if (!fresh) it->second = std::min(it->second, ns);
    }
  }
  void Print() const {
    const std::vector<std::vector<std::string>> rows = {
        {"BM_Aes128OursBatch32", "BM_Aes128Ours", "BM_Aes128Nettle",
         "BM_Aes128Openssl"},
        {"BM_Aes256Nettle", "BM_Aes256Openssl"},
        {"BM_Sha1Openssl", "BM_Sha1Nettle"},
        {"BM_Md5Openssl", "BM_Md5Nettle"}};
    std::printf(
        "\nns per 48-byte MAC (fastest repetition, CPU time); x: "
        "time / the first of its row (what NtpMacer uses)\n");
    for (const auto& row : rows) {
      auto base = ns_.find(row[0]);
      if (base == ns_.end()) continue;
      for (const std::string& name : row) {
        auto it = ns_.find(name);
        if (it == ns_.end()) continue;
        std::printf("  %-22s %7.1f ns  %5.2fx\n", name.c_str() + 3, it->second,
                    it->second / base->second);
      }
    }
  }

 private:
  std::map<std::string, double> ns_;
};

}  // namespace
}  // namespace zg::core

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  zg::core::Summary summary;
  benchmark::RunSpecifiedBenchmarks(&summary);
  summary.Print();
  benchmark::Shutdown();
  return 0;
}
