#include "loader/ModuleLoader.h"

#include <dlfcn.h>

#include <algorithm>
#include <exception>
#include <set>
#include <utility>

#include "loader/DependencyOrder.h"
#include "loader/ModuleFile.h"
#include "rapport/abi.h"

namespace rapport::host {
namespace {

// Not RTLD_GLOBAL: a module's symbols must not satisfy another module's.
constexpr auto kLoadMode = boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local;

std::string fileName(const std::string& name) {
  return "rapport_" + name + ".so";
}

// Module names become file names, CMake targets and C++ namespaces
// (rapport_add_module): lowercase letters, digits and '_'.
bool validName(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

// Boost.DLL reports every dlopen failure as bad_file_descriptor; the dynamic
// linker's own reason (missing symbol, wrong ELF class...) is what helps, so
// ask dlopen again.
std::string dlopenReason(const std::filesystem::path& path, const std::error_code& ec) {
  ::dlerror();
  if (void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
    ::dlclose(handle);
    return ec.message();
  }
  const char* reason = ::dlerror();
  return reason ? reason : ec.message();
}

// Every name valid, none twice (modules.enabled as the operator wrote it).
void checkNames(const std::vector<std::string>& names) {
  std::set<std::string> seen;
  for (const std::string& name : names) {
    if (!validName(name)) {
      throw ModuleLoadError("invalid module name '" + name +
                            "' in modules.enabled (lowercase letters, digits and '_' only)");
    }
    if (!seen.insert(name).second) {
      throw ModuleLoadError("duplicate module '" + name + "' in modules.enabled");
    }
  }
}

std::string describeCurrentException() {
  try {
    throw;
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown exception";
  }
}

}  // namespace

ModuleLoader::ModuleLoader(std::vector<std::filesystem::path> dirs) : dirs_(std::move(dirs)) {}

std::vector<std::string> ModuleLoader::withDependencies(
    const std::vector<std::string>& names) const {
  checkNames(names);
  std::vector<std::string> closure = names;
  // closure grows while it is walked: each module is opened once.
  for (std::size_t i = 0; i < closure.size(); ++i) {
    const LoadedModule loaded = open(closure[i], locate(closure[i]));
    for (const std::string& dependency : loaded.info.dependencies) {
      if (std::find(closure.begin(), closure.end(), dependency) == closure.end()) {
        closure.push_back(dependency);
      }
    }
  }
  return closure;
}

std::vector<LoadedModule> ModuleLoader::load(const std::vector<std::string>& enabled) const {
  checkNames(enabled);

  std::vector<LoadedModule> opened;
  opened.reserve(enabled.size());
  for (const std::string& name : enabled) opened.push_back(open(name, locate(name)));

  std::vector<rapport::ModuleInfo> infos;
  infos.reserve(opened.size());
  for (const LoadedModule& loaded : opened) infos.push_back(loaded.info);
  std::vector<LoadedModule> ordered;
  ordered.reserve(opened.size());
  for (std::size_t index : dependencyOrder(infos)) ordered.push_back(std::move(opened[index]));
  return ordered;
}

std::filesystem::path ModuleLoader::locate(const std::string& name) const {
  std::vector<std::filesystem::path> found;
  for (const std::filesystem::path& dir : dirs_) {
    std::filesystem::path candidate = dir / fileName(name);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(candidate, ec)) continue;
    bool same = false;  // a directory listed twice, or a link to a file already found
    for (const std::filesystem::path& earlier : found) {
      same = same || std::filesystem::equivalent(earlier, candidate, ec);
    }
    if (!same) found.push_back(std::move(candidate));
  }
  if (found.size() > 1) {
    throw ModuleLoadError("duplicate module '" + name + "': " + found[0].string() + " and " +
                          found[1].string());
  }
  if (found.empty()) {
    std::string searched;
    for (const std::filesystem::path& dir : dirs_) {
      searched += (searched.empty() ? "" : ", ") + dir.string();
    }
    throw ModuleLoadError("module '" + name + "' not found: no " + fileName(name) + " in " +
                          (searched.empty() ? "(no modules.dir)" : searched));
  }
  return found.front();
}

LoadedModule ModuleLoader::open(const std::string& name, const std::filesystem::path& path) const {
  LoadedModule loaded;
  loaded.file = path.string();
  const std::string prefix = "module file " + loaded.file + ": ";

  // The stamp comes from the file: a refused module is never opened, so none
  // of its code (static initialisers included) runs.
  ModuleStamp stamp = readModuleStamp(path);
  if (stamp.name != name) {
    throw ModuleLoadError(prefix + "declares module '" + stamp.name + "', expected '" + name + "'");
  }

  std::error_code ec;
  loaded.library.load(path, kLoadMode, ec);
  if (ec) throw ModuleLoadError(prefix + "cannot load: " + dlopenReason(path, ec));
  if (!loaded.library.has(RAPPORT_MODULE_CREATE_SYMBOL)) {
    throw ModuleLoadError(prefix + "not a Rapport module (no " RAPPORT_MODULE_CREATE_SYMBOL ")");
  }

  auto& create = loaded.library.get<rapport::Module*()>(RAPPORT_MODULE_CREATE_SYMBOL);
  try {
    loaded.module.reset(create());
  } catch (...) {
    throw ModuleLoadError(prefix +
                          RAPPORT_MODULE_CREATE_SYMBOL " failed: " + describeCurrentException());
  }
  if (!loaded.module) {
    throw ModuleLoadError(prefix + RAPPORT_MODULE_CREATE_SYMBOL " failed: returned no module");
  }
  try {
    loaded.info = loaded.module->info();
  } catch (...) {
    throw ModuleLoadError(prefix + "info() failed: " + describeCurrentException());
  }
  if (loaded.info.name != stamp.name) {
    throw ModuleLoadError(prefix + "info() names '" + loaded.info.name + "' but the stamp says '" +
                          stamp.name + "'");
  }
  loaded.name = std::move(stamp.name);
  loaded.version = std::move(stamp.version);
  return loaded;
}

}  // namespace rapport::host
