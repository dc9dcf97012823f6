// SPDX-License-Identifier: Apache-2.0
#include "tests/e2e/nts_test_util.h"

#include <openssl/rand.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace zg::e2e {

namespace {

absl::Status Openssl(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"openssl"};
  argv.insert(argv.end(), args.begin(), args.end());
  absl::StatusOr<testutil::CommandResult> r =
      testutil::RunCommand(argv, absl::Seconds(20));
  if (!r.ok()) return r.status();
  if (!r->ok()) return absl::InternalError(r->Describe());
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<TestPki> MakeTestPki(const testutil::TempDir& dir,
                                    const std::vector<std::string>& names) {
  TestPki pki{dir.File("ca.pem"), dir.File("server.pem"),
              dir.File("server.key")};
  const std::string ext = dir.File("server.ext");
  std::ofstream(ext) << "subjectAltName="
                     << absl::StrJoin(names, ",",
                                      [](std::string* out, const auto& n) {
                                        absl::StrAppend(out, "DNS:", n);
                                      })
                     << "\nextendedKeyUsage=serverAuth\n"
                        "basicConstraints=critical,CA:FALSE\n";
  const std::vector<std::string> ec = {
      "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"};
  std::vector<std::string> ca = {"req", "-x509"};
  ca.insert(ca.end(), ec.begin(), ec.end());
  for (const std::string& a :
       {std::string("-keyout"), dir.File("ca.key"), std::string("-out"),
        pki.ca_pem, std::string("-days"), std::string("2"),
        std::string("-subj"), std::string("/CN=zeitgeber test CA"),
        std::string("-addext"),
        std::string("basicConstraints=critical,CA:TRUE"),
        std::string("-addext"),
        std::string("keyUsage=critical,keyCertSign,cRLSign")}) {
    ca.push_back(a);
  }
  if (absl::Status s = Openssl(ca); !s.ok()) return s;
  std::vector<std::string> csr = {"req"};
  csr.insert(csr.end(), ec.begin(), ec.end());
  for (const std::string& a :
       {std::string("-keyout"), pki.key_pem, std::string("-out"),
        dir.File("server.csr"), std::string("-subj"), "/CN=" + names.at(0)}) {
    csr.push_back(a);
  }
  if (absl::Status s = Openssl(csr); !s.ok()) return s;
  if (absl::Status s =
          Openssl({"x509", "-req", "-in", dir.File("server.csr"), "-CA",
                   pki.ca_pem, "-CAkey", dir.File("ca.key"), "-CAcreateserial",
                   "-out", pki.cert_pem, "-days", "2", "-extfile", ext});
      !s.ok()) {
    return s;
  }
  chmod(pki.key_pem.c_str(), 0600);
  return pki;
}

absl::StatusOr<std::unique_ptr<NamespaceHosts>> NamespaceHosts::Create(
    const std::string& ns,
    const std::vector<std::pair<std::string, std::string>>& ip_names) {
  auto h = std::unique_ptr<NamespaceHosts>(new NamespaceHosts);
  h->dir_ = "/etc/netns/" + ns;
  std::error_code ec;
  std::filesystem::create_directories(h->dir_, ec);
  h->cleanup_ = testutil::CleanupRegistration::Directory(h->dir_);
  if (ec) {
    return absl::InternalError(
        absl::StrCat("cannot create ", h->dir_, ": ", ec.message()));
  }
  std::ofstream out(h->dir_ + "/hosts");
  out << "127.0.0.1 localhost\n::1 localhost\n";
  for (const auto& [ip, name] : ip_names) out << ip << " " << name << "\n";
  if (!out) return absl::InternalError("cannot write " + h->dir_ + "/hosts");
  return h;
}

NamespaceHosts::~NamespaceHosts() {
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

absl::StatusOr<std::string> WriteMasterKey(const testutil::TempDir& dir,
                                           const std::string& name,
                                           size_t bytes) {
  std::string key(bytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(key.data()),
                 static_cast<int>(bytes)) != 1) {
    return absl::InternalError("RAND_bytes failed");
  }
  const std::string path = dir.File(name);
  std::ofstream(path, std::ios::binary) << key;
  chmod(path.c_str(), 0600);
  return path;
}

bool ZeitgeberdHasNts() {  // the binary in $ZG_ZEITGEBERD names both flags
  const char* zg = std::getenv("ZG_ZEITGEBERD");
  if (zg == nullptr) return false;
  absl::StatusOr<std::string> bin = testutil::ReadFileToString(zg);
  return bin.ok() && bin->find("nts_ke_address") != std::string::npos &&
         bin->find("nts_master_key") != std::string::npos;
}

std::vector<std::string> NtsServerFlags(
    const TestPki& pki, const std::string& master_key,
    const std::vector<std::string>& ke_addresses) {
  std::vector<std::string> flags = {"--nts_cert=" + pki.cert_pem,
                                    "--nts_key=" + pki.key_pem,
                                    "--nts_master_key=" + master_key};
  for (const std::string& a : ke_addresses) {
    flags.push_back("--nts_ke_address=" + a);
  }
  return flags;
}

absl::StatusOr<testutil::CommandResult> NtsQuery(
    const std::string& ns, const std::vector<std::string>& args,
    const std::string& keylog) {
  const char* tool = std::getenv("ZG_NTS_QUERY");
  if (tool == nullptr) return absl::FailedPreconditionError("no ZG_NTS_QUERY");
  std::vector<std::string> argv;
  if (!keylog.empty()) argv = {"env", "SSLKEYLOGFILE=" + keylog};
  argv.push_back(tool);
  argv.insert(argv.end(), args.begin(), args.end());
  return testutil::RunInNamespace(ns, argv, absl::Seconds(15));
}

}  // namespace zg::e2e
