#include "HarnessSettings.h"

#include <cstdlib>

#include "loader/ModuleLists.h"

namespace rapport::testing {
namespace {

std::string joined(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value ? std::string(value) : std::string();
}

}  // namespace

host::Settings harnessSettings(const HarnessSettingsInput& input) {
  char* noEnvironment[] = {nullptr};
  host::Settings settings = host::Settings::load("", noEnvironment);
  settings.set("ratelimit.requests", "1000000");
  settings.set("auth.argon2.memory_kib", "19456");
  settings.set("auth.argon2.iterations", "2");
  settings.set("auth.argon2.parallelism", "1");
  settings.set("mail.outbox", (input.folder / "outbox").string());
  settings.set("secrets.key_file", (input.folder / "secret.key").string());
  settings.set("database.pool_size", "4");
  settings.set("log.level", "warn");
  for (const auto& [key, value] : input.overrides) settings.set(key, value);

  std::vector<std::string> dirs;
  for (const auto& dir : input.moduleDirs) dirs.push_back(dir.string());
  settings.set("database.url", input.databaseUrl);
  settings.set("modules.dir", joined(dirs, ":"));
  settings.set("modules.enabled", joined(input.modules, ","));
  return settings;
}

std::vector<std::filesystem::path> moduleDirsFromEnvironment() {
  return host::splitModuleDirs(environment("RAPPORT_TEST_MODULE_DIRS"));
}

std::string databaseUrlFromEnvironment() {
  return environment("RAPPORT_TEST_DATABASE_URL");
}

}  // namespace rapport::testing
