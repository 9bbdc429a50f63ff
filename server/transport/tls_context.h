// The server's TLS settings (--tls-cert, --tls-key): the certificate chain and its private key,
// read once at start and checked to belong together, TLS 1.2 at least, no compression, no
// renegotiation. One context serves every connection.
// Thread-safety: load_tls_context() is a pure function; the context it returns may be used by
// sessions on several threads at once (OpenSSL's SSL_CTX is, once set up).
#pragma once

#include <boost/asio/ssl/context.hpp>
#include <filesystem>
#include <memory>

#include "headgrader/result.h"

namespace headgrader::server {

// The context, or an Error (code "tls_config") whose message names the file and what is wrong
// with it: unreadable, not PEM, or a key that is not the certificate's.
Result<std::unique_ptr<boost::asio::ssl::context>> load_tls_context(
    const std::filesystem::path& cert_chain, const std::filesystem::path& private_key);

}  // namespace headgrader::server
