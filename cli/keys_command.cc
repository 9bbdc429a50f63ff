#include "keys_command.h"

#include <iostream>

#include "keys.h"

namespace headgrader::cli {
namespace {

constexpr const char* kKeysUsage =
    "usage:\n"
    "  headgrader keys add --keys FILE --name NAME --role lms|staff\n"
    "      Makes a key, adds its hash to FILE (created if missing, mode 0600) and prints the\n"
    "      key once: keep it, it cannot be shown again.\n"
    "  headgrader keys list --keys FILE\n"
    "      Prints each key's name and role.\n"
    "  headgrader keys remove --keys FILE --name NAME\n";

int wrong(const std::string& what) {
  std::cerr << what << "\n" << kKeysUsage;
  return 2;
}

}  // namespace

int keys_command(const std::vector<std::string>& args) {
  if (args.empty()) return wrong("keys needs add, list or remove");
  const std::string& action = args[0];
  if (action != "add" && action != "list" && action != "remove") {
    return wrong("unknown keys command \"" + action + "\"");
  }
  std::string file, name, role;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& flag = args[i];
    if (flag != "--keys" && flag != "--name" && flag != "--role") {
      return wrong("unexpected argument \"" + flag + "\"");
    }
    if (i + 1 == args.size()) return wrong(flag + " needs a value");
    (flag == "--keys" ? file : flag == "--name" ? name : role) = args[++i];
  }
  if (file.empty()) return wrong("keys " + action + " needs --keys FILE");
  if (action != "list" && name.empty()) return wrong("keys " + action + " needs --name NAME");
  if (action == "add" && role.empty()) return wrong("keys add needs --role lms or --role staff");
  if (action != "add" && !role.empty()) return wrong("--role is for keys add only");
  if (action == "list" && !name.empty()) return wrong("--name is not for keys list");

  Result<server::KeyFile> keys = server::KeyFile::read(file, /*missing_is_empty=*/action == "add");
  if (!keys) {
    std::cerr << keys.error().message << "\n";
    return 1;
  }
  if (action == "list") {
    for (const server::KeyEntry& entry : keys->entries()) {
      std::cout << entry.name << '\t' << server::role_name(entry.role) << '\n';
    }
    return 0;
  }
  if (action == "add") {
    const std::optional<server::Role> parsed = server::parse_role(role);
    if (!parsed) return wrong("--role must be lms or staff; it is \"" + role + "\"");
    Result<std::string> key = keys.value().add(name, *parsed);
    if (!key) return wrong(key.error().message);
    if (Result<bool> written = keys->write(file); !written) {
      std::cerr << written.error().message << "\n";
      return 1;
    }
    std::cout << key.value() << '\n';
    return 0;
  }
  if (Result<bool> removed = keys.value().remove(name); !removed) {
    std::cerr << file << ": " << removed.error().message << "\n";
    return 1;
  }
  if (Result<bool> written = keys->write(file); !written) {
    std::cerr << written.error().message << "\n";
    return 1;
  }
  return 0;
}

}  // namespace headgrader::cli
