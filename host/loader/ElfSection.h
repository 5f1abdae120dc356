// Reading one section of an ELF file from the file itself, without loading it:
// the module loader reads a module's stamp (rapport/abi.h) this way, before
// dlopen, so that a refused module runs no code at all.
//
// Only what a module file for this host can be is accepted: ELF64, the host's
// byte order, a shared object (ET_DYN). Every offset, size and count read from
// the file is checked against the file's length before it is used: a
// truncated or hostile file is an ElfError, never a read outside the file or
// an allocation the file did not pay for.
//
// Threading: no shared state; the file is opened and closed per call.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace rapport::host {

class ElfError : public std::runtime_error {
 public:
  enum class Kind {
    Unreadable,  // the file cannot be opened or read (what(): the system's reason)
    NotElf,      // not an ELF64 shared object of the host's byte order
    Damaged,     // an ELF64 shared object whose headers point outside the file
  };
  ElfError(Kind kind, const std::string& what) : std::runtime_error(what), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

// The bytes of the section named `name` in `file`, or nothing when the file
// has no such section. A section larger than `maxSize` bytes, without data
// (SHT_NOBITS) or present twice is Damaged. Throws ElfError.
std::optional<std::vector<unsigned char>> readElfSection(const std::filesystem::path& file,
                                                         std::string_view name,
                                                         std::size_t maxSize = 4096);

}  // namespace rapport::host
