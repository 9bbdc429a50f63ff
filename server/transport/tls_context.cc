#include "tls_context.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

namespace headgrader::server {
namespace {

Error tls_error(std::string message) { return {ErrorCode::kTlsConfig, std::move(message), ""}; }

// OpenSSL's reason for the last failure (its error queue emptied), or `fallback`.
std::string openssl_reason(const char* fallback) {
  const unsigned long code = ERR_peek_last_error();
  ERR_clear_error();
  const char* reason = code != 0 ? ERR_reason_error_string(code) : nullptr;
  return reason != nullptr ? reason : fallback;
}

// An encrypted key is refused instead of asking for its passphrase on the terminal.
int no_passphrase(char*, int, int, void*) { return 0; }

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};
struct KeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};

}  // namespace

Result<std::unique_ptr<boost::asio::ssl::context>> load_tls_context(
    const std::filesystem::path& cert_chain, const std::filesystem::path& private_key) {
  const std::string cert_name = "--tls-cert " + cert_chain.string();
  const std::string key_name = "--tls-key " + private_key.string();

  // The key first, read here (not by SSL_CTX_use_PrivateKey_file) so that an unreadable file,
  // a file that is not a key and a key that is not the certificate's each get their message.
  const std::unique_ptr<std::FILE, FileCloser> key_file(std::fopen(private_key.c_str(), "rb"));
  if (!key_file) return tls_error(key_name + ": cannot read it: " + std::strerror(errno));
  const std::unique_ptr<EVP_PKEY, KeyFree> key(
      PEM_read_PrivateKey(key_file.get(), nullptr, no_passphrase, nullptr));
  if (!key) {
    return tls_error(key_name +
                     ": not a private key in PEM without a passphrase (\"-----BEGIN PRIVATE "
                     "KEY-----\"): " +
                     openssl_reason("unreadable"));
  }

  auto context = std::make_unique<boost::asio::ssl::context>(boost::asio::ssl::context::tls_server);
  SSL_CTX* ctx = context->native_handle();
  if (SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1) {
    return tls_error("cannot require TLS 1.2 or later: " + openssl_reason("unknown"));
  }
  // Compression leaks secrets through lengths (CRIME); a client's renegotiations cost the
  // server a handshake each.
  SSL_CTX_set_options(
      ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);

  if (const std::unique_ptr<std::FILE, FileCloser> probe(std::fopen(cert_chain.c_str(), "rb"));
      !probe) {
    return tls_error(cert_name + ": cannot read it: " + std::strerror(errno));
  }
  if (SSL_CTX_use_certificate_chain_file(ctx, cert_chain.c_str()) != 1) {
    return tls_error(cert_name +
                     ": not a certificate chain in PEM (\"-----BEGIN CERTIFICATE-----\", the "
                     "server's certificate first): " +
                     openssl_reason("unreadable"));
  }
  X509* cert = SSL_CTX_get0_certificate(ctx);
  if (cert == nullptr || X509_check_private_key(cert, key.get()) != 1) {
    ERR_clear_error();
    return tls_error(key_name + ": not the private key of the certificate in " + cert_name +
                     " (the first certificate of the chain)");
  }
  if (SSL_CTX_use_PrivateKey(ctx, key.get()) != 1 || SSL_CTX_check_private_key(ctx) != 1) {
    return tls_error(key_name + ": cannot use it with " + cert_name + ": " +
                     openssl_reason("unknown"));
  }
  return context;
}

}  // namespace headgrader::server
