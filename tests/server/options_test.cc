// The server's flags (API.md §6 and the Part 2 flags): defaults, both spellings, and a
// message naming the flag for every bad value (server/main/options.cc).
#include "options.h"

#include <gtest/gtest.h>

#include <chrono>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace headgrader::server {
namespace {

Result<ServerOptions> parse_flags(std::initializer_list<std::string_view> args) {
  return parse_options(std::span<const std::string_view>(args.begin(), args.size()));
}

TEST(ServerOptions, DefaultsFollowTheContract) {
  const Result<ServerOptions> options = parse_flags({});
  ASSERT_TRUE(options.ok());
  EXPECT_EQ(options->address, "0.0.0.0");
  EXPECT_EQ(options->port, 8080);
  EXPECT_TRUE(options->problems.empty());
  EXPECT_EQ(options->threads, 0u);
  EXPECT_GE(thread_count(0), 1u);
  EXPECT_EQ(thread_count(3), 3u);
}

TEST(ServerOptions, ReadsEveryFlagInBothSpellings) {
  const Result<ServerOptions> options =
      parse_flags({"--problems", "p", "--address=127.0.0.1", "--port", "0", "--threads=2"});
  ASSERT_TRUE(options.ok()) << options.error().message;
  EXPECT_EQ(options->problems, "p");
  EXPECT_EQ(options->address, "127.0.0.1");
  EXPECT_EQ(options->port, 0);
  EXPECT_EQ(options->threads, 2u);
  EXPECT_TRUE(parse_flags({"--help"})->help);
  EXPECT_TRUE(parse_flags({"--healthcheck", "--port", "9"})->healthcheck);
  EXPECT_TRUE(parse_flags({"healthcheck"})->healthcheck);
}

TEST(ServerOptions, RefusesBadValuesNamingTheFlag) {
  EXPECT_EQ(parse_flags({"--port", "65536"}).error().message,
            "--port must be a number from 0 to 65535; it is \"65536\"");
  EXPECT_EQ(parse_flags({"--port", "-1"}).error().message,
            "--port must be a number from 0 to 65535; it is \"-1\"");
  EXPECT_EQ(parse_flags({"--threads", "0"}).error().message,
            "--threads must be a number from 1 to 256; it is \"0\"");
  EXPECT_EQ(parse_flags({"--port"}).error().message, "--port needs a value");
  for (const std::string_view address : {"localhost", "999.1.1.1", "1.2.3", "::g"}) {
    const Result<ServerOptions> refused = parse_flags({"--address", address});
    ASSERT_FALSE(refused.ok()) << address;
    EXPECT_EQ(refused.error().message,
              "--address must be an IP address such as 0.0.0.0 (every interface), 127.0.0.1 "
              "(this machine only) or ::; it is \"" +
                  std::string(address) + "\"");
  }
  EXPECT_TRUE(parse_flags({"--address", "::1"}).ok());
  EXPECT_TRUE(parse_flags({"--address=0.0.0.0"}).ok());
  EXPECT_EQ(parse_flags({"--prot", "1"}).error().message,
            "unknown argument \"--prot\"; see --help");
}

TEST(ServerOptions, TheHiddenShutdownGraceFlagGoesFromZeroToTheContractsFiveSeconds) {
  EXPECT_EQ(parse_flags({})->shutdown_grace, std::chrono::seconds(5));
  EXPECT_EQ(parse_flags({"--shutdown-grace-ms", "0"})->shutdown_grace,
            std::chrono::milliseconds(0));
  EXPECT_EQ(parse_flags({"--shutdown-grace-ms=100"})->shutdown_grace,
            std::chrono::milliseconds(100));
  EXPECT_EQ(parse_flags({"--shutdown-grace-ms", "5001"}).error().message,
            "--shutdown-grace-ms must be a number from 0 to 5000; it is \"5001\"");
}

TEST(ServerOptions, TheLogFormatIsJsonUnlessTextIsAskedForByFlagOrEnvironment) {
  EXPECT_EQ(parse_flags({})->log_format, LogFormat::kJson);
  EXPECT_EQ(parse_flags({"--log-format", "text"})->log_format, LogFormat::kText);
  EXPECT_EQ(parse_flags({"--log-format=json"})->log_format, LogFormat::kJson);
  EXPECT_EQ(parse_flags({"--log-format", "yaml"}).error().message,
            "--log-format must be \"json\" (one JSON object a line) or \"text\" (the same fields "
            "as logfmt: key=value); it is \"yaml\"");
  const EnvLookup env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "HEADGRADER_LOG_FORMAT") return "text";
    return std::nullopt;
  };
  const std::vector<std::string_view> none;
  EXPECT_EQ(parse_options(none, env)->log_format, LogFormat::kText);
  const std::vector<std::string_view> flag = {"--log-format", "json"};
  EXPECT_EQ(parse_options(flag, env)->log_format, LogFormat::kJson) << "the flag wins";
}

TEST(ServerOptions, TheMetricsAddressIsAnIpAndAPortByFlagOrEnvironment) {
  EXPECT_FALSE(parse_flags({})->metrics_address);
  const auto v4 = parse_flags({"--metrics-address", "127.0.0.1:9100"})->metrics_address;
  ASSERT_TRUE(v4);
  EXPECT_EQ(v4->address, "127.0.0.1");
  EXPECT_EQ(v4->port, 9100);
  const auto v6 = parse_flags({"--metrics-address=[::1]:0"})->metrics_address;
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->address, "::1");
  EXPECT_EQ(v6->port, 0);
  for (const char* bad : {"9100", "localhost:9100", "127.0.0.1:", "127.0.0.1:65536", "::1:9100",
                          "[127.0.0.1]:9100", "127.0.0.1:91x", ":9100"}) {
    const auto parsed = parse_flags({"--metrics-address", bad});
    ASSERT_FALSE(parsed) << bad;
    EXPECT_EQ(parsed.error().message,
              "--metrics-address must be an IP address and a port, ADDR:PORT, such as "
              "127.0.0.1:9100 or [::1]:9100 (port 0 picks a free one); it is \"" +
                  std::string(bad) + "\"");
  }
  const EnvLookup env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "HEADGRADER_METRICS_ADDRESS") return "0.0.0.0:9100";
    return std::nullopt;
  };
  const std::vector<std::string_view> none;
  EXPECT_EQ(parse_options(none, env)->metrics_address->address, "0.0.0.0");
  const std::vector<std::string_view> flag = {"--metrics-address", "127.0.0.1:9101"};
  EXPECT_EQ(parse_options(flag, env)->metrics_address->port, 9101) << "the flag wins";
}

TEST(ServerOptions, RetainDaysIsAWholeNumberOfDaysByFlagOrEnvironmentAndNeedsAStore) {
  EXPECT_FALSE(parse_flags({})->retain_days);
  EXPECT_EQ(parse_flags({"--retain-days", "180"})->retain_days, 180);
  EXPECT_EQ(parse_flags({"--retain-days=1"})->retain_days, 1);
  EXPECT_EQ(parse_flags({"--retain-days", "0"}).error().message,
            "--retain-days must be a number from 1 to 36600; it is \"0\"");
  EXPECT_EQ(parse_flags({"--retain-days", "2w"}).error().message,
            "--retain-days must be a number from 1 to 36600; it is \"2w\"");
  EXPECT_EQ(parse_flags({"--retain-days", "30", "--store", "none"}).error().message,
            "--retain-days deletes old records from the store; it needs a --store other than none");
  const EnvLookup env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "HEADGRADER_RETAIN_DAYS") return "90";
    return std::nullopt;
  };
  const std::vector<std::string_view> none;
  EXPECT_EQ(parse_options(none, env)->retain_days, 90);
  const std::vector<std::string_view> flag = {"--retain-days", "7"};
  EXPECT_EQ(parse_options(flag, env)->retain_days, 7) << "the flag wins";
}

}  // namespace
}  // namespace headgrader::server
