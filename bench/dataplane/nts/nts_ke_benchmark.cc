// SPDX-License-Identifier: Apache-2.0
// NTS-KE exchanges per second on one thread (RFC 8915 section 4), client and
// server in one process over an OpenSSL memory BIO pair (no sockets): TLS 1.3
// handshake with ALPN ntske/1, the request, the server's answer (parse, key
// export, 8 cookies sealed by an NtsCookieKeystore, response records), and
// the client reading it. The server's side uses the production pieces
// (BuildNtsKeSslCtx, ExportNtsKeys, AnswerNtsKeRequest).
//
// Each exchange's server-side calls are timed apart from the client's, so
// the counters give:
//   server_per_s   exchanges/s one server thread could do (server time only)
//   tls_share      server time inside OpenSSL's handshake/read/write
//   export_share   SSL_export_keying_material (C2S + S2C)
//   answer_share   our record parse + cookie minting + response build
// for an ECDSA P-256 and an RSA-2048 server certificate (test CA made with
// the openssl CLI). BM_NtsKeAnswer times AnswerNtsKeRequest alone (the
// baseline our work adds to a handshake), BM_NtsKeSealCookies the cookie
// minting inside it. BM_NtsKeServerLoopback runs the
// real NtsKeServer thread over loopback TCP and reports its CPU time per
// exchange (process CPU less the client thread's).
//
//   build-rel/bench/nts_ke_benchmark --benchmark_repetitions=3
#include <openssl/err.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <time.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/nts/nts_cookie.h"
#include "core/nts/nts_ke_records.h"
#include "dataplane/nts/nts_ke_server.h"
#include "dataplane/nts/nts_ke_tls.h"
#include "tests/dataplane/nts/nts_ke_testing.h"

namespace zg::dataplane {
namespace {

using Clock = std::chrono::steady_clock;

struct Fixture {
  std::string dir;
  testing_nts::TestPki pki;
  SslCtxPtr server;
  SSL_CTX* client = nullptr;
  std::shared_ptr<const core::NtsCookieKeystore> keystore;
};

Fixture* MakeFixture(const std::string& alg) {
  auto* f = new Fixture;
  char tmpl[] = "/tmp/zg-ntske-bench-XXXXXX";
  f->dir = mkdtemp(tmpl);
  f->pki = testing_nts::MakeTestPki(f->dir, alg).value();
  f->server = BuildNtsKeSslCtx(f->pki.cert, f->pki.key).value();
  f->client = SSL_CTX_new(TLS_client_method());
  SSL_CTX_load_verify_locations(f->client, f->pki.ca_cert.c_str(), nullptr);
  SSL_CTX_set_verify(f->client, SSL_VERIFY_PEER, nullptr);
  const std::vector<uint8_t> master(32, 0x42);
  f->keystore = std::make_shared<const core::NtsCookieKeystore>(
      core::NtsCookieKeystore::Derive(master, {}, 1'700'000'000).value());
  std::system(("rm -rf " + f->dir).c_str());
  return f;
}

Fixture& Get(int alg) {
  static Fixture* ec = MakeFixture("ec");
  static Fixture* rsa = MakeFixture("rsa");
  return alg == 0 ? *ec : *rsa;
}

// Server-side time of one exchange, by part (ns).
struct Parts {
  double tls = 0, export_keys = 0, answer = 0;
};

template <typename F>
auto Timed(double* acc, F&& f) {
  const auto t0 = Clock::now();
  auto r = f();
  *acc += std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
  return r;
}

// One exchange over a BIO pair; false if anything failed.
bool Exchange(Fixture& f, Parts* p) {
  SSL* s = SSL_new(f.server.get());
  SSL* c = SSL_new(f.client);
  BIO *bc = nullptr, *bs = nullptr;
  BIO_new_bio_pair(&bc, 0, &bs, 0);
  SSL_set_bio(c, bc, bc);
  SSL_set_bio(s, bs, bs);
  static const unsigned char alpn[] = {7, 'n', 't', 's', 'k', 'e', '/', '1'};
  SSL_set_alpn_protos(c, alpn, sizeof(alpn));
  SSL_set1_host(c, "ke.test");
  SSL_set_connect_state(c);
  SSL_set_accept_state(s);
  bool cdone = false, sdone = false;
  for (int i = 0; i < 10 && !(cdone && sdone); ++i) {
    if (!cdone) cdone = SSL_do_handshake(c) == 1;
    if (!sdone)
      sdone = Timed(&p->tls, [&] { return SSL_do_handshake(s); }) == 1;
  }
  bool ok = cdone && sdone;
  if (ok) {
    const std::vector<uint8_t> req = testing_nts::StandardRequest();
    SSL_write(c, req.data(), static_cast<int>(req.size()));
    uint8_t buf[2048];
    const int n = Timed(&p->tls, [&] { return SSL_read(s, buf, sizeof(buf)); });
    core::NtsKeys keys;
    ok = n > 0 &&
         Timed(&p->export_keys, [&] { return ExportNtsKeys(s, &keys); });
    std::vector<uint8_t> resp;
    if (ok) {
      resp = Timed(&p->answer, [&] {
        return AnswerNtsKeRequest(
            core::ParseNtsKeRequest(std::span<const uint8_t>(buf, n)), keys, {},
            f.keystore.get(), nullptr);
      });
      Timed(&p->tls, [&] {
        return SSL_write(s, resp.data(), static_cast<int>(resp.size()));
      });
      std::vector<uint8_t> got(resp.size());
      ok = SSL_read(c, got.data(), static_cast<int>(got.size())) ==
           static_cast<int>(resp.size());
    }
  }
  SSL_free(c);
  SSL_free(s);
  ERR_clear_error();
  return ok;
}

void BM_NtsKeExchange(benchmark::State& state) {
  Fixture& f = Get(static_cast<int>(state.range(0)));
  Parts p;
  int64_t failed = 0;
  for (auto _ : state) {
    if (!Exchange(f, &p)) ++failed;
  }
  const double n = static_cast<double>(state.iterations());
  const double server = p.tls + p.export_keys + p.answer;
  state.counters["server_per_s"] = n * 1e9 / server;
  state.counters["tls_share"] = p.tls / server;
  state.counters["export_share"] = p.export_keys / server;
  state.counters["answer_share"] = p.answer / server;
  state.counters["server_us"] = server / n / 1e3;
  state.counters["failed"] = static_cast<double>(failed);
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(state.range(0) == 0 ? "ECDSA P-256" : "RSA-2048");
}
BENCHMARK(BM_NtsKeExchange)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

double CpuSeconds(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

// The real server (its epoll thread, sockets, timeouts) over loopback, the
// client on the benchmark thread. server_cpu_us: the process's CPU time
// less the client thread's, per exchange (the KE thread's cost, syscalls
// included); server_per_s its inverse.
void BM_NtsKeServerLoopback(benchmark::State& state) {
  Fixture& f = Get(static_cast<int>(state.range(0)));
  NtsKeConfig config;
  config.addresses = {{"127.0.0.1", 0}};
  config.cert_path = f.pki.cert;
  config.key_path = f.pki.key;
  // The fixture's files are gone: rebuild them for the server.
  char tmpl[] = "/tmp/zg-ntske-bench-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  const testing_nts::TestPki pki =
      testing_nts::MakeTestPki(dir, state.range(0) == 0 ? "ec" : "rsa").value();
  config.cert_path = pki.cert;
  config.key_path = pki.key;
  auto server = NtsKeServer::Start(config, [&f] { return f.keystore; }).value();
  testing_nts::KeClientOptions o;
  o.ca_file = pki.ca_cert;
  int64_t failed = 0;
  const double proc0 = CpuSeconds(CLOCK_PROCESS_CPUTIME_ID);
  const double self0 = CpuSeconds(CLOCK_THREAD_CPUTIME_ID);
  for (auto _ : state) {
    const testing_nts::KeClientResult r =
        testing_nts::RunKeClient(server->ports()[0], o);
    if (r.response.size() < 8 * 104) ++failed;
  }
  const double server_s = (CpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - proc0) -
                          (CpuSeconds(CLOCK_THREAD_CPUTIME_ID) - self0);
  server.reset();
  std::system(("rm -rf " + dir).c_str());
  const double n = static_cast<double>(state.iterations());
  state.counters["server_cpu_us"] = server_s / n * 1e6;
  state.counters["server_per_s"] = n / server_s;
  state.counters["failed"] = static_cast<double>(failed);
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(state.range(0) == 0 ? "ECDSA P-256" : "RSA-2048");
}
BENCHMARK(BM_NtsKeServerLoopback)
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// Our part alone: parse the request, seal 8 cookies, build the response.
void BM_NtsKeAnswer(benchmark::State& state) {
  Fixture& f = Get(0);
  const std::vector<uint8_t> req = testing_nts::StandardRequest();
  core::NtsKeys keys;
  keys.c2s.fill(1);
  keys.s2c.fill(2);
  for (auto _ : state) {
    std::vector<uint8_t> r = AnswerNtsKeRequest(
        core::ParseNtsKeRequest(req), keys, {}, f.keystore.get(), nullptr);
    benchmark::DoNotOptimize(r.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_NtsKeAnswer)->Unit(benchmark::kMicrosecond);

// The cookie minting inside it: 8 nonces from RAND_bytes, 8 seals. The rest
// of BM_NtsKeAnswer is our record work (parse, response build).
void BM_NtsKeSealCookies(benchmark::State& state) {
  Fixture& f = Get(0);
  core::NtsKeys keys;
  keys.c2s.fill(1);
  keys.s2c.fill(2);
  std::array<core::NtsKeCookie, core::kNtsKeCookiesPerResponse> cookies;
  uint8_t nonces[core::kNtsKeCookiesPerResponse][16];
  for (auto _ : state) {
    RAND_bytes(&nonces[0][0], sizeof(nonces));
    for (size_t i = 0; i < cookies.size(); ++i) {
      f.keystore->Seal(keys, nonces[i], cookies[i].data());
    }
    benchmark::DoNotOptimize(cookies.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_NtsKeSealCookies)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace zg::dataplane

BENCHMARK_MAIN();
