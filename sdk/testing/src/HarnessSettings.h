// The rapportd configuration of one Harness: the built-in defaults, the
// harness's own defaults (below), then HarnessOptions::settings. The
// process environment is not read: a RAPPORT_* variable of the developer's
// shell cannot change a test.
//
// Harness defaults (each overridable by HarnessOptions::settings):
//   ratelimit.requests = 1000000         (limits that never bite a test)
//   auth.argon2.memory_kib = 19456, iterations = 2, parallelism = 1
//                                        (the cheapest cost the host accepts)
//   mail.outbox = <folder>/outbox, secrets.key_file = <folder>/secret.key
//   database.pool_size = 4, log.level = warn
// Always set by the harness: database.url, modules.dir, modules.enabled.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "app/Settings.h"

namespace rapport::testing {

struct HarnessSettingsInput {
  std::filesystem::path folder;
  std::string databaseUrl;
  std::vector<std::filesystem::path> moduleDirs;
  std::vector<std::string> modules;  // dependencies included
  std::map<std::string, std::string> overrides;
};

host::Settings harnessSettings(const HarnessSettingsInput& input);

// The folders of RAPPORT_TEST_MODULE_DIRS (':'-separated), or none.
std::vector<std::filesystem::path> moduleDirsFromEnvironment();

// RAPPORT_TEST_DATABASE_URL, or "".
std::string databaseUrlFromEnvironment();

}  // namespace rapport::testing
