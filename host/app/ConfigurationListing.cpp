#include "app/ConfigurationListing.h"

#include <map>

namespace rapport::host {
namespace {

// "Module webhooks (rapport_webhooks.so 1.0.0)" or "Module foo: not loaded: <why>".
std::string moduleHeading(const ModuleSummary& module) {
  if (!module.error.empty()) return "Module " + module.name + ": not loaded: " + module.error;
  return "Module " + module.name + " (" + module.file + " " + module.version + "):";
}

void printKey(std::ostream& out, const std::string& key, const std::string& defaultValue,
              const std::string& meaning, bool secret) {
  out << "  " << key << " = " << defaultValue << "\n      " << meaning << "  ["
      << environmentName(key) << "]" << (secret ? " (secret)" : "") << "\n";
}

}  // namespace

void printKeyReference(std::ostream& out, const std::vector<ModuleSummary>& modules) {
  out << "\nConfiguration keys (file, or environment RAPPORT_<KEY>):\n";
  for (const auto& info : Settings::known()) {
    printKey(out, info.key, info.defaultValue, info.meaning, false);
  }
  for (const ModuleSummary& module : modules) {
    out << "\n" << moduleHeading(module) << "\n";
    if (module.error.empty() && module.keys.empty()) out << "  (no configuration keys)\n";
    if (!module.error.empty()) continue;
    for (const rapport::ConfigKey& key : module.keys) {
      printKey(out, key.name, key.defaultValue, key.description, key.secret);
    }
  }
}

void printEffectiveConfiguration(std::ostream& out, Settings settings,
                                 const std::vector<ModuleSummary>& modules) {
  for (const ModuleSummary& module : modules) {
    if (module.error.empty()) settings.declare(module.keys);
  }
  std::map<std::string, std::string> values;
  for (auto& [key, value] : settings.effective()) values.emplace(key, value);

  for (const auto& [key, value] : values) {
    if (settings.isHostKey(key)) out << key << " = " << value << "\n";
  }
  for (const ModuleSummary& module : modules) {
    out << "\n# " << moduleHeading(module) << "\n";
    if (!module.error.empty()) continue;
    for (const rapport::ConfigKey& key : module.keys) {
      out << key.name << " = " << values[key.name] << "\n";
    }
  }
  const std::vector<std::string> unknown = settings.unknownKeys();
  if (!unknown.empty()) {
    out << "\n# Unknown keys, ignored (neither the host nor an enabled module reads them):\n";
    for (const auto& key : unknown) out << "# " << key << " = " << values[key] << "\n";
  }
}

}  // namespace rapport::host
