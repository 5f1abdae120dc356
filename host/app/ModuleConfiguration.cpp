#include "app/ModuleConfiguration.h"

#include <map>
#include <set>

#include "loader/ModuleLists.h"
#include "loader/ModuleLoader.h"

namespace rapport::host {
namespace {

// Keys become environment names (RAPPORT_WEBHOOKS_TIMEOUT) and properties
// keys: the characters the host's own keys use.
bool validKeyCharacters(const std::string& key) {
  for (char c : key) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.')) {
      return false;
    }
  }
  return true;
}

std::string refusal(const std::string& module, const std::string& key, const std::string& why) {
  return "module '" + module + "' declares configuration key '" + key + "'" + why;
}

ModuleSummary summaryOf(const LoadedModule& loaded) {
  ModuleSummary summary{.name = loaded.info.name,
                        .file = std::filesystem::path(loaded.file).filename().string(),
                        .version = loaded.info.version,
                        .keys = loaded.info.configuration,
                        .error = ""};
  try {
    checkDeclaredKeys(loaded.info);
  } catch (const ModuleConfigurationError& e) {
    summary.error = e.what();
  }
  return summary;
}

std::vector<std::string> unique(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& name : names) {
    if (seen.insert(name).second) out.push_back(name);
  }
  return out;
}

}  // namespace

void checkDeclaredKeys(const rapport::ModuleInfo& info) {
  const std::string prefix = info.name + ".";
  std::set<std::string> seen;
  for (const rapport::ConfigKey& key : info.configuration) {
    if (key.name.rfind(prefix, 0) != 0 || key.name.size() == prefix.size()) {
      throw ModuleConfigurationError(
          refusal(info.name, key.name, " outside its prefix '" + prefix + "'"));
    }
    if (!validKeyCharacters(key.name)) {
      throw ModuleConfigurationError(
          refusal(info.name, key.name, ": use lowercase letters, digits, '_', '-' and '.'"));
    }
    if (!seen.insert(key.name).second) {
      throw ModuleConfigurationError(refusal(info.name, key.name, " twice"));
    }
    for (const SettingInfo& host : Settings::known()) {
      if (host.key == key.name) {
        throw ModuleConfigurationError(
            refusal(info.name, key.name, ", which is a key of the host"));
      }
    }
  }
}

void declareModuleKeys(Settings& settings, const std::vector<LoadedModule>& modules) {
  for (const LoadedModule& loaded : modules) checkDeclaredKeys(loaded.info);
  for (const LoadedModule& loaded : modules) settings.declare(loaded.info.configuration);
}

std::vector<std::filesystem::path> moduleDirectories(const Settings& settings,
                                                     const std::string& executableDir) {
  if (settings.has("modules.dir")) return splitModuleDirs(settings.get("modules.dir"));
  return {std::filesystem::path(executableDir) / "modules"};
}

std::vector<ModuleSummary> summarizeEnabledModules(const Settings& settings,
                                                   const std::string& executableDir) {
  const std::vector<std::string> enabled = unique(splitList(settings.get("modules.enabled")));
  const ModuleLoader loader(moduleDirectories(settings, executableDir));
  std::map<std::string, ModuleSummary> loaded;
  std::map<std::string, std::string> failed;
  // Loads `names`; on success records every one of them.
  auto attempt = [&](const std::vector<std::string>& names) -> std::string {
    try {
      for (const LoadedModule& module : loader.load(names)) {
        loaded.insert_or_assign(module.info.name, summaryOf(module));
      }
      return "";
    } catch (const std::exception& e) {
      return e.what();
    }
  };
  if (!attempt(enabled).empty()) {
    // Find the culprits: each module alone, then each one that failed again
    // with those that loaded (its dependencies), until nothing changes.
    for (const auto& name : enabled) {
      if (auto error = attempt({name}); !error.empty()) failed[name] = error;
    }
    for (bool progress = true; progress && !failed.empty();) {
      progress = false;
      std::vector<std::string> good;
      for (const auto& [name, summary] : loaded) good.push_back(name);
      for (auto it = failed.begin(); it != failed.end();) {
        std::vector<std::string> names = good;
        names.push_back(it->first);
        if (auto error = attempt(names); error.empty()) {
          it = failed.erase(it);
          progress = true;
        } else {
          it->second = error;
          ++it;
        }
      }
    }
  }
  std::vector<ModuleSummary> out;
  for (const auto& name : enabled) {
    if (auto it = loaded.find(name); it != loaded.end()) {
      out.push_back(it->second);
    } else {
      out.push_back({.name = name, .file = "", .version = "", .keys = {}, .error = failed[name]});
    }
  }
  return out;
}

}  // namespace rapport::host
