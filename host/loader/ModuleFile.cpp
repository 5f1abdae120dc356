#include "loader/ModuleFile.h"

#include <optional>
#include <vector>

#include "loader/ElfSection.h"
#include "loader/ModuleLoadError.h"

namespace rapport::host {

ModuleStamp readModuleStamp(const std::filesystem::path& file, const rapport_module_stamp& host) {
  const std::string prefix = "module file " + file.string() + ": ";
  std::optional<std::vector<unsigned char>> section;
  try {
    section = readElfSection(file, RAPPORT_STAMP_SECTION);
  } catch (const ElfError& e) {
    switch (e.kind()) {
      case ElfError::Kind::Unreadable:
        throw ModuleLoadError(prefix + "cannot read: " + e.what());
      case ElfError::Kind::NotElf:
        throw ModuleLoadError(prefix + "not a Rapport module (not an ELF shared object)");
      case ElfError::Kind::Damaged:
        throw ModuleLoadError(prefix + "not a Rapport module (damaged ELF file: " + e.what() + ")");
    }
    throw;
  }
  if (!section) throw ModuleLoadError(prefix + "not a Rapport module (no stamp section)");
  return checkStamp(*section, file.string(), host);
}

}  // namespace rapport::host
