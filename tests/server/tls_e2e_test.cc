// HTTPS end to end (docs/deploy.md, HTTPS): the real server binary with --tls-cert/--tls-key and a
// self-signed certificate made by the openssl command for each run, spoken to by a TLS client
// (Beast's SSL stream) that verifies it; answers compared byte for byte with a plain server's.
// Also what a TLS port does with plain HTTP, with a client that never handshakes, and with a
// key that is not the certificate's.
#include <gtest/gtest.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/ssl.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "headgrader/report.h"
#include "options.h"
#include "server_harness.h"
#include "test_support.h"

namespace headgrader::server {
namespace {

using testing::kGradePath;
using testing::kHandoutSolution;
using testing::kProblemsDir;

using namespace std::chrono_literals;
using namespace harness;
namespace ssl = net::ssl;

// Passes, per the handout.
constexpr auto kReadTimeout = 500ms;  // the TLS server's --read-timeout-ms

// A self-signed certificate for localhost and 127.0.0.1, its key, and a key that is not its,
// made by the openssl command in a fresh folder (removed at the end).
struct TestCertificate {
  std::filesystem::path dir, cert, key, other_key;

  TestCertificate() {
    static int counter = 0;
    dir = std::filesystem::temp_directory_path() /
          ("headgrader-tls-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
    std::filesystem::create_directories(dir);
    cert = dir / "cert.pem";
    key = dir / "key.pem";
    other_key = dir / "other-key.pem";
    const std::string log = (dir / "openssl.log").string();
    const std::string make_cert =
        "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 "
        "-subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout " +
        key.string() + " -out " + cert.string() + " >" + log + " 2>&1";
    const std::string make_other =
        "openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:prime256v1 -out " +
        other_key.string() + " >>" + log + " 2>&1";
    ok = std::system(make_cert.c_str()) == 0 && std::system(make_other.c_str()) == 0;
  }
  ~TestCertificate() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
  bool ok = false;
};

// A blocking HTTPS client that trusts only the test certificate and checks the host name.
class TlsClient {
 public:
  TlsClient(std::uint16_t port, const std::filesystem::path& trusted, int max_version = 0)
      : context_(ssl::context::tls_client) {
    // The context first: an SSL stream copies its settings when it is made.
    context_.load_verify_file(trusted.string());
    context_.set_verify_mode(ssl::verify_peer);
    if (max_version != 0) SSL_CTX_set_max_proto_version(context_.native_handle(), max_version);
    stream_.emplace(ioc_, context_);
    stream_->set_verify_callback(ssl::host_name_verification("localhost"));
    SSL_set_tlsext_host_name(stream_->native_handle(), "localhost");
    stream_->next_layer().connect(tcp::endpoint(net::ip::address_v4::loopback(), port));
    const timeval timeout{10, 0};
    setsockopt(stream_->next_layer().native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout,
               sizeof timeout);
  }

  beast::error_code handshake() {
    beast::error_code ec;
    stream_->handshake(ssl::stream_base::client, ec);
    return ec;
  }

  HttpResponse send(http::verb method, const std::string& target, const std::string& body = "") {
    http::request<http::string_body> request{method, target, 11};
    request.set(http::field::host, "localhost");
    if (method == http::verb::post) {
      request.set(http::field::content_type, "application/json");
      request.body() = body;
      request.prepare_payload();
    }
    http::write(*stream_, request);
    return read();
  }

  HttpResponse read() {
    HttpResponse response;
    http::read(*stream_, buffer_, response);
    return response;
  }

  // The TLS version agreed, e.g. "TLSv1.3".
  std::string version() { return SSL_get_version(stream_->native_handle()); }

 private:
  net::io_context ioc_;
  ssl::context context_;
  std::optional<beast::ssl_stream<tcp::socket>> stream_;
  beast::flat_buffer buffer_;
};

// The access log line whose path is `path`, parsed (null when there is none).
Json logged(const std::string& log, const std::string& path) {
  std::istringstream lines(log);
  std::string line;
  while (std::getline(lines, line)) {
    const Json entry = Json::parse(line, nullptr, false);
    if (entry.is_object() && entry.value("path", "") == path) return entry;
  }
  return nullptr;
}

// One HTTPS server and one plain one on the bundled problems, for the suite.
class TlsE2E : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    certificate_ = new TestCertificate();
    if (!certificate_->ok) return;
    tls_server_ = new ServerProcess(
        {"--port", "0", "--address", "127.0.0.1", "--threads", "2", "--problems", kProblemsDir,
         "--read-timeout-ms", std::to_string(kReadTimeout.count()), "--tls-cert",
         certificate_->cert.string(), "--tls-key", certificate_->key.string()});
    tls_line_ = tls_server_->read_line();
    if (tls_line_.starts_with("listening on https://127.0.0.1:")) {
      tls_port_ = static_cast<std::uint16_t>(std::stoi(tls_line_.substr(tls_line_.rfind(':') + 1)));
    }
    plain_server_ = new ServerProcess(
        {"--port", "0", "--address", "127.0.0.1", "--threads", "2", "--problems", kProblemsDir});
    plain_port_ = plain_server_->wait_listening();
  }
  static void TearDownTestSuite() {
    delete tls_server_;
    delete plain_server_;
    delete certificate_;
    tls_server_ = plain_server_ = nullptr;
    certificate_ = nullptr;
  }
  void SetUp() override {
    ASSERT_TRUE(certificate_->ok) << "the openssl command failed";
    ASSERT_NE(tls_port_, 0) << "listening line: \"" << tls_line_
                            << "\"; stderr: " << tls_server_->stderr_text();
    ASSERT_NE(plain_port_, 0);
  }

  // A client of the TLS server, handshaken.
  static std::unique_ptr<TlsClient> connected() {
    auto client = std::make_unique<TlsClient>(tls_port_, certificate_->cert);
    const beast::error_code ec = client->handshake();
    EXPECT_FALSE(ec) << ec.message();
    return client;
  }

  static inline TestCertificate* certificate_ = nullptr;
  static inline ServerProcess* tls_server_ = nullptr;
  static inline ServerProcess* plain_server_ = nullptr;
  static inline std::string tls_line_;
  static inline std::uint16_t tls_port_ = 0;
  static inline std::uint16_t plain_port_ = 0;
};

TEST_F(TlsE2E, HealthzAnswersOverTlsWithTheCertificateVerified) {
  const std::unique_ptr<TlsClient> client = connected();
  const HttpResponse response = client->send(http::verb::get, "/healthz");
  EXPECT_EQ(response.result(), http::status::ok);
  EXPECT_EQ(response.body(), Client(plain_port_).send(http::verb::get, "/healthz").body());
}

TEST_F(TlsE2E, AGradingOverTlsIsTheSameAnswerAsOverPlainHttp) {
  const std::unique_ptr<TlsClient> client = connected();
  const HttpResponse secure = client->send(http::verb::post, kGradePath, kHandoutSolution);
  const HttpResponse plain =
      Client(plain_port_).send(http::verb::post, kGradePath, kHandoutSolution);
  ASSERT_EQ(secure.result(), http::status::ok) << secure.body();
  EXPECT_EQ(Json::parse(secure.body())["passed"], true);  // the handout's solution
  EXPECT_EQ(secure.body(), plain.body());
  EXPECT_EQ(secure[http::field::content_type], plain[http::field::content_type]);
}

TEST_F(TlsE2E, OneTlsConnectionCarriesSeveralRequestsIncludingAnAnswerOfSeveralRecords) {
  const std::unique_ptr<TlsClient> client = connected();
  // 24 KB: more than one TLS record (16 KB), written asynchronously.
  const HttpResponse document = client->send(http::verb::get, "/v1/openapi.json");
  ASSERT_EQ(document.result(), http::status::ok);
  EXPECT_GT(document.body().size(), 16u * 1024);
  EXPECT_EQ(document.body(), Client(plain_port_).send(http::verb::get, "/v1/openapi.json").body());
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(client->send(http::verb::get, "/v1/problems").result(), http::status::ok);
  }
  EXPECT_EQ(
      Json::parse(client->send(http::verb::post, kGradePath, kHandoutSolution).body())["passed"],
      true);
}

TEST_F(TlsE2E, ATls12ClientIsServedAndTheDefaultIsTls13) {
  TlsClient old(tls_port_, certificate_->cert, TLS1_2_VERSION);
  ASSERT_FALSE(old.handshake());
  EXPECT_EQ(old.version(), "TLSv1.2");
  EXPECT_EQ(old.send(http::verb::get, "/healthz").result(), http::status::ok);
  EXPECT_EQ(connected()->version(), "TLSv1.3");
}

TEST_F(TlsE2E, AClientThatDoesNotTrustTheCertificateFailsItsHandshake) {
  // Trusting only another self-signed certificate.
  TestCertificate other;
  ASSERT_TRUE(other.ok);
  TlsClient client(tls_port_, other.cert);
  EXPECT_TRUE(client.handshake());
  EXPECT_EQ(connected()->send(http::verb::get, "/healthz").result(), http::status::ok);
}

TEST_F(TlsE2E, TheAccessLogLineIsTheSameAsForPlainHttp) {
  // A path of its own (no query: the log never shows one), answered the same on both ports.
  const std::string target = "/v1/problems/tls-log-test";
  connected()->send(http::verb::get, target);
  Client(plain_port_).send(http::verb::get, target);
  const auto has_line = [&](const std::string& text) {
    return text.find("tls-log-test") != std::string::npos;
  };
  const Json secure = logged(tls_server_->stderr_text_when(has_line), target);
  const Json plain = logged(plain_server_->stderr_text_when(has_line), target);
  ASSERT_TRUE(secure.is_object());
  ASSERT_TRUE(plain.is_object());
  EXPECT_EQ(secure["method"], "GET");
  EXPECT_EQ(secure["status"], 404);
  std::vector<std::string> secure_keys, plain_keys;
  for (const auto& [key, value] : secure.items()) secure_keys.push_back(key);
  for (const auto& [key, value] : plain.items()) plain_keys.push_back(key);
  EXPECT_EQ(secure_keys, plain_keys);
}

TEST_F(TlsE2E, PlainHttpToTheTlsPortIsAnswered400InPlainHttpAndTheServerGoesOn) {
  const std::optional<HttpResponse> answer =
      exchange_raw(tls_port_, "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n", 5s);
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->result(), http::status::bad_request);
  const Json error = Json::parse(answer->body())["error"];
  EXPECT_EQ(error["code"], "bad_request");
  EXPECT_NE(error["message"].get<std::string>().find("https://"), std::string::npos);
  EXPECT_FALSE(answer->keep_alive());
  EXPECT_EQ(connected()->send(http::verb::get, "/healthz").result(), http::status::ok);
}

TEST_F(TlsE2E, ClientsThatNeverCompleteTheHandshakeAreClosedAfterTheReadTimeout) {
  // One sends nothing; one sends the first bytes of a TLS record and stops.
  Client silent(tls_port_);
  Client stalled(tls_port_);
  stalled.write_raw(std::string("\x16\x03\x01", 3));
  const auto started = std::chrono::steady_clock::now();
  // Meanwhile the server answers others.
  EXPECT_EQ(connected()->send(http::verb::get, "/healthz").result(), http::status::ok);
  EXPECT_TRUE(silent.readable(10s));
  EXPECT_TRUE(silent.closed_by_server());
  EXPECT_TRUE(stalled.readable(10s));
  EXPECT_TRUE(stalled.closed_by_server());
  const auto waited = std::chrono::steady_clock::now() - started;
  EXPECT_GE(waited, kReadTimeout - 100ms);  // not before the deadline (started after connect)
  EXPECT_LT(waited, kReadTimeout + 3s);
  EXPECT_EQ(connected()->send(http::verb::get, "/healthz").result(), http::status::ok);
}

TEST_F(TlsE2E, TheHealthcheckSpeaksTlsWhenTheServerDoes) {
  const std::string port = std::to_string(tls_port_);
  ServerProcess secure({"--healthcheck", "--address", "127.0.0.1", "--port", port, "--tls-cert",
                        certificate_->cert.string(), "--tls-key", certificate_->key.string()});
  EXPECT_EQ(secure.wait().code, 0) << secure.stderr_text();
  ServerProcess plain({"--healthcheck", "--address", "127.0.0.1", "--port", port});
  EXPECT_EQ(plain.wait().code, 1);  // the 400 for plain HTTP
}

TEST_F(TlsE2E, AConnectionOverTheCapIsAnswered503InTls) {
  ServerProcess server({"--port", "0", "--address", "127.0.0.1", "--threads", "2", "--problems",
                        kProblemsDir, "--max-connections", "1", "--tls-cert",
                        certificate_->cert.string(), "--tls-key", certificate_->key.string()});
  const std::uint16_t port = server.wait_listening();
  ASSERT_NE(port, 0);
  // Handshaken, its first request still to come: it holds the only place, and is not closed
  // to make room.
  TlsClient holder(port, certificate_->cert);
  ASSERT_FALSE(holder.handshake());
  TlsClient refused(port, certificate_->cert);
  ASSERT_FALSE(refused.handshake());
  const HttpResponse answer = refused.read();
  EXPECT_EQ(answer.result(), http::status::service_unavailable);
  EXPECT_EQ(Json::parse(answer.body())["error"]["code"], "too_many_connections");
  EXPECT_EQ(holder.send(http::verb::get, "/healthz").result(), http::status::ok);
}

// --- Refusing to start ---------------------------------------------------------------------

TEST_F(TlsE2E, AKeyThatIsNotTheCertificatesStopsTheServerWithAMessage) {
  ServerProcess server({"--port", "0", "--address", "127.0.0.1", "--problems", kProblemsDir,
                        "--tls-cert", certificate_->cert.string(), "--tls-key",
                        certificate_->other_key.string()});
  const ExitStatus status = server.wait();
  EXPECT_TRUE(status.exited);
  EXPECT_EQ(status.code, 1);
  const std::string log = server.stderr_text();
  EXPECT_NE(log.find("--tls-key " + certificate_->other_key.string() +
                     ": not the private key of the certificate in --tls-cert " +
                     certificate_->cert.string()),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("not starting"), std::string::npos) << log;
}

TEST_F(TlsE2E, AnUnreadableOrMalformedFileStopsTheServerNamingIt) {
  const std::filesystem::path missing = certificate_->dir / "missing.pem";
  ServerProcess no_cert({"--port", "0", "--problems", kProblemsDir, "--tls-cert", missing.string(),
                         "--tls-key", certificate_->key.string()});
  EXPECT_EQ(no_cert.wait().code, 1);
  EXPECT_NE(no_cert.stderr_text().find("--tls-cert " + missing.string() +
                                       ": cannot read it: No such file or directory"),
            std::string::npos)
      << no_cert.stderr_text();
  // The certificate given as the key.
  ServerProcess cert_as_key({"--port", "0", "--problems", kProblemsDir, "--tls-cert",
                             certificate_->cert.string(), "--tls-key",
                             certificate_->cert.string()});
  EXPECT_EQ(cert_as_key.wait().code, 1);
  EXPECT_NE(cert_as_key.stderr_text().find("--tls-key " + certificate_->cert.string() +
                                           ": not a private key in PEM"),
            std::string::npos)
      << cert_as_key.stderr_text();
}

// --- Options ---------------------------------------------------------------------------------

TEST(TlsOptions, CertificateAndKeyComeTogetherFromFlagsOrTheEnvironment) {
  const std::vector<std::string_view> both = {"--tls-cert", "/c.pem", "--tls-key=/k.pem"};
  const Result<ServerOptions> parsed = parse_options(both);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->tls_cert, "/c.pem");
  EXPECT_EQ(parsed->tls_key, "/k.pem");

  const std::map<std::string, std::string> env = {{"HEADGRADER_TLS_CERT", "/env/c.pem"},
                                                  {"HEADGRADER_TLS_KEY", "/env/k.pem"}};
  const EnvLookup lookup = [&](const std::string& name) -> std::optional<std::string> {
    const auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
  const Result<ServerOptions> from_env = parse_options({}, lookup);
  ASSERT_TRUE(from_env.ok());
  EXPECT_EQ(from_env->tls_cert, "/env/c.pem");
  EXPECT_EQ(from_env->tls_key, "/env/k.pem");
  const std::vector<std::string_view> flag = {"--tls-cert", "/flag/c.pem"};
  const Result<ServerOptions> flag_wins = parse_options(flag, lookup);
  ASSERT_TRUE(flag_wins.ok());
  EXPECT_EQ(flag_wins->tls_cert, "/flag/c.pem");
  EXPECT_EQ(flag_wins->tls_key, "/env/k.pem");

  const Result<ServerOptions> neither = parse_options({});
  ASSERT_TRUE(neither.ok());
  EXPECT_TRUE(neither->tls_cert.empty());
}

TEST(TlsOptions, OneWithoutTheOtherIsAUsageErrorThatSaysSo) {
  const std::vector<std::string_view> cert_only = {"--tls-cert", "/c.pem"};
  const Result<ServerOptions> parsed = parse_options(cert_only);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().code, ErrorCode::kUsage);
  EXPECT_NE(parsed.error().message.find("--tls-cert is given without --tls-key"), std::string::npos)
      << parsed.error().message;
  const EnvLookup key_only = [](const std::string& name) -> std::optional<std::string> {
    if (name == "HEADGRADER_TLS_KEY") return "/k.pem";
    return std::nullopt;
  };
  const Result<ServerOptions> from_env = parse_options({}, key_only);
  ASSERT_FALSE(from_env.ok());
  EXPECT_NE(from_env.error().message.find("--tls-key is given without --tls-cert "
                                          "(HEADGRADER_TLS_CERT)"),
            std::string::npos)
      << from_env.error().message;
  EXPECT_NE(usage("headgrader-server").find("--tls-cert FILE"), std::string::npos);
}

}  // namespace
}  // namespace headgrader::server
