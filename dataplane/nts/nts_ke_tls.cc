// SPDX-License-Identifier: Apache-2.0
#include "dataplane/nts/nts_ke_tls.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <cstring>

#include "absl/strings/str_cat.h"

namespace zg::dataplane {
namespace {

// ALPN wire form: length-prefixed "ntske/1".
constexpr unsigned char kAlpnWire[] = {7, 'n', 't', 's', 'k', 'e', '/', '1'};

int SelectAlpn(SSL* /*ssl*/, const unsigned char** out, unsigned char* outlen,
               const unsigned char* in, unsigned int inlen, void* /*arg*/) {
  unsigned char* selected = nullptr;
  if (SSL_select_next_proto(&selected, outlen, kAlpnWire, sizeof(kAlpnWire), in,
                            inlen) != OPENSSL_NPN_NEGOTIATED) {
    return SSL_TLSEXT_ERR_ALERT_FATAL;  // no_application_protocol
  }
  *out = selected;
  return SSL_TLSEXT_ERR_OK;
}

// The ALPN callback does not run for a ClientHello without ALPN: refuse
// that one here.
int RequireAlpn(SSL* ssl, int* alert, void* /*arg*/) {
  const unsigned char* ext = nullptr;
  size_t len = 0;
  if (SSL_client_hello_get0_ext(
          ssl, TLSEXT_TYPE_application_layer_protocol_negotiation, &ext,
          &len) != 1) {
    *alert = SSL_AD_NO_APPLICATION_PROTOCOL;
    return SSL_CLIENT_HELLO_ERROR;
  }
  return SSL_CLIENT_HELLO_SUCCESS;
}

bool Export(SSL* ssl, uint8_t direction, uint8_t* out) {
  const unsigned char context[5] = {
      0x00, 0x00, 0x00, static_cast<unsigned char>(core::kNtsAeadAesSivCmac256),
      direction};
  return SSL_export_keying_material(ssl, out, core::kNtsKeySize,
                                    kNtsKeExporterLabel,
                                    std::strlen(kNtsKeExporterLabel), context,
                                    sizeof(context), 1) == 1;
}

}  // namespace

std::string SslErrors() {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof(buf));
    absl::StrAppend(&out, out.empty() ? "" : "; ", buf);
  }
  return out;
}

absl::StatusOr<SslCtxPtr> BuildNtsKeSslCtx(const std::string& cert_path,
                                           const std::string& key_path) {
  ERR_clear_error();
  SslCtxPtr ctx(SSL_CTX_new(TLS_server_method()));
  if (ctx == nullptr) {
    return absl::InternalError(
        absl::StrCat("NTS-KE: SSL_CTX_new: ", SslErrors()));
  }
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_3_VERSION);
  SSL_CTX_set_max_proto_version(ctx.get(), TLS1_3_VERSION);
  // One request per connection: no resumption, no tickets to mint.
  SSL_CTX_set_num_tickets(ctx.get(), 0);
  SSL_CTX_set_session_cache_mode(ctx.get(), SSL_SESS_CACHE_OFF);
  SSL_CTX_set_options(ctx.get(), SSL_OP_NO_TICKET);
  SSL_CTX_set_alpn_select_cb(ctx.get(), &SelectAlpn, nullptr);
  SSL_CTX_set_client_hello_cb(ctx.get(), &RequireAlpn, nullptr);
  if (SSL_CTX_use_certificate_chain_file(ctx.get(), cert_path.c_str()) != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--nts_cert: cannot load a PEM certificate chain from ",
                     cert_path, ": ", SslErrors()));
  }
  // The key is read apart from the context so that a key of another
  // certificate gets its own message (SSL_CTX_use_PrivateKey_file would
  // say "key values mismatch").
  BIO* bio = BIO_new_file(key_path.c_str(), "r");
  EVP_PKEY* pkey =
      bio == nullptr ? nullptr
                     : PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  if (pkey == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("--nts_key: cannot load a PEM private key from ", key_path,
                     ": ", SslErrors()));
  }
  const bool match =
      X509_check_private_key(SSL_CTX_get0_certificate(ctx.get()), pkey) == 1;
  const bool used = match && SSL_CTX_use_PrivateKey(ctx.get(), pkey) == 1;
  EVP_PKEY_free(pkey);
  if (!used || SSL_CTX_check_private_key(ctx.get()) != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--nts_key: the key in ", key_path,
        " does not match the certificate in ", cert_path, ": ", SslErrors()));
  }
  return ctx;
}

bool ExportNtsKeys(SSL* ssl, core::NtsKeys* out) {
  return Export(ssl, 0x00, out->c2s.data()) &&
         Export(ssl, 0x01, out->s2c.data());
}

std::string PeerSubject(SSL* ssl) {
  X509* cert = SSL_get1_peer_certificate(ssl);
  if (cert == nullptr) return "";
  char buf[256];
  X509_NAME_oneline(X509_get_subject_name(cert), buf, sizeof(buf));
  X509_free(cert);
  return buf;
}

}  // namespace zg::dataplane
