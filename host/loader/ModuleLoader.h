// The module loader: finds, checks and creates the enabled modules at
// start-up, once. Modules are never loaded later and never unloaded while the
// server runs (see LoadedModule.h for what that asks of the app).
//
//   ModuleLoader loader(splitModuleDirs(config "modules.dir"));
//   std::vector<LoadedModule> modules = loader.load(splitList(config "modules.enabled"));
//   // modules are in dependency order: set up and start front to back,
//   // stop and destroy back to front.
//
// For module "x" the loader looks for "rapport_x.so" in every directory
// (relative directories are relative to the working directory: the app
// resolves them first), opens it RTLD_NOW | RTLD_LOCAL, reads and checks the
// plain-data ABI stamp (StampCheck.h) before any module code runs, then calls
// the factory and checks info(). Each refusal is a ModuleLoadError whose
// what() is one line:
//   module 'x' not found: no rapport_x.so in <dir1>, <dir2>
//   duplicate module 'x' in modules.enabled
//   duplicate module 'x': <fileA> and <fileB>
//   module file <file>: cannot load: <dlerror text>
//   module file <file>: not a Rapport module (no rapport_module_stamp)
//   module file <file>: not a Rapport module (bad stamp magic)
//   module file <file>: not a Rapport module (stamp has no name)
//   module file <file>: not a Rapport module (no rapport_module_create)
//   module file <file>: SDK ABI mismatch: expected <MAJ>.<MIN> (gcc <C>, cxx11 abi <A>),
//                       actual <maj>.<min> (gcc <c>, cxx11 abi <a>)      (one line)
//   module file <file>: declares module '<y>', expected '<x>'
//   module file <file>: rapport_module_create failed: <what>
//   module file <file>: info() failed: <what>
//   module file <file>: info() names '<y>' but the stamp says '<x>'
//   module '<x>' requires module '<y>', which is not enabled
//   module dependency cycle: a -> b -> a
// When load() throws, the modules it had already opened are released again.
//
// Each load() is independent: loading the same modules twice gives two sets of
// module objects (the dynamic linker shares the library and counts references).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "loader/LoadedModule.h"
#include "loader/ModuleLists.h"
#include "loader/ModuleLoadError.h"

namespace rapport::host {

class ModuleLoader {
 public:
  explicit ModuleLoader(std::vector<std::filesystem::path> dirs);

  // Loads the modules named in `enabled` and returns them in dependency
  // order (DependencyOrder.h). Throws ModuleLoadError.
  std::vector<LoadedModule> load(const std::vector<std::string>& enabled) const;

  const std::vector<std::filesystem::path>& dirs() const { return dirs_; }

 private:
  std::filesystem::path locate(const std::string& name) const;
  LoadedModule open(const std::string& name, const std::filesystem::path& path) const;

  std::vector<std::filesystem::path> dirs_;
};

}  // namespace rapport::host
