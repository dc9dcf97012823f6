// SPDX-License-Identifier: Apache-2.0
// Makes Debian 12's civetweb (1.15, built for the OpenSSL 1.1 API) serve
// HTTPS with OpenSSL 3. civetweb dlopen()s "libssl.so" and dlsym()s each
// function it uses on that handle; OpenSSL 3 renamed one of them
// (SSL_get_peer_certificate is a macro for SSL_get1_peer_certificate, with
// no symbol), so civetweb's table holds a null pointer that every HTTPS
// connection calls. This library is named libssl.so (its SONAME) and
// depends on the real libssl.so.3: the status page dlopen()s it before
// civetweb starts TLS, the dynamic loader hands it to civetweb's
// dlopen("libssl.so") by that SONAME, and dlsym() on it finds this one
// function here and every other in libssl.so.3 and libcrypto.so.3.
// (dataplane/web/status_page.cc loads it; status_page_test proves HTTPS.)
#include <openssl/ssl.h>

#undef SSL_get_peer_certificate
extern "C" {
X509* SSL_get_peer_certificate(const SSL* ssl);
X509* SSL_get_peer_certificate(const SSL* ssl) {
  return SSL_get1_peer_certificate(ssl);
}
}
