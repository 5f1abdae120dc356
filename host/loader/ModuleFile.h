// A module file's stamp, read from the file itself: the ".rapport_stamp"
// section (rapport/abi.h) found with the ELF reader (ElfSection.h) and checked
// (StampCheck.h). Nothing is loaded and none of the module's code runs: the
// loader opens the library only after this accepted it.
//
// Refusals (ModuleLoadError, one line), besides those of StampCheck.h:
//   "module file <file>: cannot read: <reason>"
//   "module file <file>: not a Rapport module (not an ELF shared object)"
//   "module file <file>: not a Rapport module (damaged ELF file: <what>)"
//   "module file <file>: not a Rapport module (no stamp section)"
//
// The file is read, then opened by name: replacing it in between is not
// guarded against (modules.dir belongs to the operator, like the binary).
#pragma once

#include <filesystem>

#include "loader/StampCheck.h"

namespace rapport::host {

ModuleStamp readModuleStamp(const std::filesystem::path& file,
                            const rapport_module_stamp& host = hostStamp());

}  // namespace rapport::host
