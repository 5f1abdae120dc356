// Configuration keys owned by modules (ModuleInfo::configuration, config.h):
// the check at load, their declaration on the Settings, and what
// `rapportd --help` and `--print-config` learn of the enabled modules.
//
// A declaration is refused with a ModuleConfigurationError whose what() is
// one line naming the module and the key:
//   module 'x' declares configuration key 'y.a' outside its prefix 'x.'
//   module 'x' declares configuration key 'x.a' twice
//   module 'x' declares configuration key 'x.A': use lowercase letters, digits, '_', '-' and '.'
//   module 'x' declares configuration key 'x.a', which is a key of the host
// (the last for a module named like a host prefix: "mail", "auth"...).
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/Settings.h"
#include "loader/LoadedModule.h"
#include "rapport/module.h"

namespace rapport::host {

class ModuleConfigurationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws ModuleConfigurationError for the first key `info` may not declare.
void checkDeclaredKeys(const rapport::ModuleInfo& info);

// checkDeclaredKeys for each module, then settings.declare() of its keys:
// from then on `settings` answers each key with the operator's value or its
// declared default. Called by Server right after the modules are loaded.
void declareModuleKeys(Settings& settings, const std::vector<LoadedModule>& modules);

// The folders of modules.dir (':' or ',' separated), or "modules" beside
// rapportd (`executableDir`) when it is unset.
std::vector<std::filesystem::path> moduleDirectories(const Settings& settings,
                                                     const std::string& executableDir);

// One enabled module as --help and --print-config show it.
struct ModuleSummary {
  std::string name;
  std::string file;     // the .so's file name ("rapport_webhooks.so"); "" when not loaded
  std::string version;  // from info()
  std::vector<rapport::ConfigKey> keys;
  std::string error;  // why it could not be loaded or was refused; "" when fine
};

// Loads the files of the modules named in modules.enabled to read their
// info() - no setup(), no database - and releases them again. One module
// that cannot be loaded (missing, refused, a bad key declaration) is a
// summary with its error; the others are still read. In modules.enabled
// order. Never throws for a module's sake.
std::vector<ModuleSummary> summarizeEnabledModules(const Settings& settings,
                                                   const std::string& executableDir);

}  // namespace rapport::host
