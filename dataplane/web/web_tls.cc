// SPDX-License-Identifier: Apache-2.0
// WebTls: PEM loading, the key check and the per-handshake certificate.
#include "dataplane/web/web_tls.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"
#include "dataplane/trust/secret_file.h"

namespace zg::dataplane {

struct WebTls::Pair {
  X509* cert = nullptr;
  STACK_OF(X509) * chain = nullptr;
  EVP_PKEY* key = nullptr;
  ~Pair() {
    X509_free(cert);
    sk_X509_pop_free(chain, X509_free);
    EVP_PKEY_free(key);
  }
};

namespace {

std::string OpenSslError() {
  const unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) return "no detail";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof(buf));
  return buf;
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("--status_cert=", path, ": cannot be read"));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

absl::StatusOr<std::unique_ptr<WebTls>> WebTls::Load(std::string cert_path,
                                                     std::string key_path) {
  std::unique_ptr<WebTls> tls(
      new WebTls(std::move(cert_path), std::move(key_path)));
  ZG_RETURN_IF_ERROR(tls->Reload());
  std::lock_guard<std::mutex> lock(tls->mu_);
  tls->reloads_ = 0;
  return tls;
}

WebTls::~WebTls() = default;

absl::Status WebTls::Reload() {
  ZG_ASSIGN_OR_RETURN(std::string cert_pem, ReadFile(cert_path_));
  ZG_ASSIGN_OR_RETURN(SecretBytes key_pem,
                      ReadOwnerOnlyFile(key_path_, {.flag = "--status_key",
                                                    .what = "a TLS key",
                                                    .max_bytes = 1 << 20}));
  auto pair = std::make_shared<Pair>();
  {
    BIO* bio =
        BIO_new_mem_buf(cert_pem.data(), static_cast<int>(cert_pem.size()));
    pair->cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
    pair->chain = sk_X509_new_null();
    while (X509* extra = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
      sk_X509_push(pair->chain, extra);
    }
    ERR_clear_error();  // the end of the file reads as an error
    BIO_free(bio);
  }
  if (pair->cert == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--status_cert=", cert_path_, ": no PEM certificate in the file"));
  }
  {
    BIO* bio = BIO_new_mem_buf(key_pem.view().data(),
                               static_cast<int>(key_pem.view().size()));
    pair->key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
    BIO_free(bio);
  }
  if (pair->key == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--status_key=", key_path_, ": no unencrypted PEM private key (",
        OpenSslError(), ")"));
  }
  if (X509_check_private_key(pair->cert, pair->key) != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--status_key=", key_path_,
        " does not match the certificate in --status_cert=", cert_path_));
  }
  std::lock_guard<std::mutex> lock(mu_);
  pair_ = std::move(pair);
  ++reloads_;
  return absl::OkStatus();
}

void WebTls::Install(SSL_CTX* ctx) {
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_cert_cb(ctx, &WebTls::CertCallback, this);
}

int WebTls::CertCallback(SSL* ssl, void* arg) {
  auto* self = static_cast<WebTls*>(arg);
  std::shared_ptr<const Pair> pair;
  {
    std::lock_guard<std::mutex> lock(self->mu_);
    pair = self->pair_;
  }
  if (pair == nullptr) return 0;
  return SSL_use_cert_and_key(ssl, pair->cert, pair->key, pair->chain,
                              /*override=*/1) == 1
             ? 1
             : 0;
}

std::string WebTls::Subject() const {
  std::shared_ptr<const Pair> pair;
  {
    std::lock_guard<std::mutex> lock(mu_);
    pair = pair_;
  }
  if (pair == nullptr) return "";
  char buf[256];
  X509_NAME_oneline(X509_get_subject_name(pair->cert), buf, sizeof(buf));
  return buf;
}

uint64_t WebTls::reloads() const {
  std::lock_guard<std::mutex> lock(mu_);
  return reloads_;
}

}  // namespace zg::dataplane
