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
// resolves them first), reads and checks the module's ABI stamp from the FILE
// (ModuleFile.h: its ".rapport_stamp" ELF section) without loading it, and
// only then opens it RTLD_NOW | RTLD_LOCAL (running its static initialisers),
// calls the factory and checks info(). Each refusal is a ModuleLoadError whose
// what() is one line:
//   invalid module name '<x>' in modules.enabled (lowercase letters, digits and '_' only)
//   module 'x' not found: no rapport_x.so in <dir1>, <dir2>
//   duplicate module 'x' in modules.enabled
//   duplicate module 'x': <fileA> and <fileB>
//   module file <file>: cannot read: <reason>
//   module file <file>: not a Rapport module (not an ELF shared object)
//   module file <file>: not a Rapport module (damaged ELF file: <what>)
//   module file <file>: not a Rapport module (no stamp section)
//   module file <file>: not a Rapport module (bad stamp magic)
//   module file <file>: not a Rapport module (damaged stamp: <why>)
//   module file <file>: not a Rapport module (stamp has no name)
//   module file <file>: SDK ABI mismatch: expected <MAJ>.<MIN> (gcc <C>, libstdc++ cxx11 abi <A>,
//                       release containers), actual <maj>.<min> (...)       (one line)
//   module file <file>: declares module '<y>', expected '<x>'
//   module file <file>: cannot load: <dlerror text>
//   module file <file>: not a Rapport module (no rapport_module_create)
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

  // `names` and, transitively, every module their info() declares as a
  // dependency (not the optional ones): `names` first, then each added one
  // in the order found. Opens each module once to read its info (the stamp
  // checks apply) and releases it. Throws ModuleLoadError like load() for a
  // module that cannot be opened, or a dependency found in no folder.
  std::vector<std::string> withDependencies(const std::vector<std::string>& names) const;

  const std::vector<std::filesystem::path>& dirs() const { return dirs_; }

 private:
  std::filesystem::path locate(const std::string& name) const;
  LoadedModule open(const std::string& name, const std::filesystem::path& path) const;

  std::vector<std::filesystem::path> dirs_;
};

}  // namespace rapport::host
