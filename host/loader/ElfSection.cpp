#include "loader/ElfSection.h"

#include <elf.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>

namespace rapport::host {
namespace {

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
constexpr unsigned char kHostByteOrder = ELFDATA2LSB;
#else
constexpr unsigned char kHostByteOrder = ELFDATA2MSB;
#endif

// A section-name string table larger than this is not a shared object's.
constexpr std::uint64_t kMaxNameTable = 1u << 20;

[[noreturn]] void damaged(const std::string& what) {
  throw ElfError(ElfError::Kind::Damaged, what);
}

[[noreturn]] void notElf(const std::string& what) {
  throw ElfError(ElfError::Kind::NotElf, what);
}

// The open file and its length; every read is checked against the length
// first (offset + size computed without overflow).
class BoundedFile {
 public:
  explicit BoundedFile(const std::filesystem::path& path) : in_(path, std::ios::binary) {
    if (!in_) throw ElfError(ElfError::Kind::Unreadable, std::strerror(errno));
    in_.seekg(0, std::ios::end);
    const std::streamoff end = in_.tellg();
    if (end < 0) throw ElfError(ElfError::Kind::Unreadable, "cannot tell the file's size");
    size_ = static_cast<std::uint64_t>(end);
  }

  std::uint64_t size() const { return size_; }

  bool contains(std::uint64_t offset, std::uint64_t length) const {
    return offset <= size_ && length <= size_ - offset;
  }

  void read(std::uint64_t offset, std::uint64_t length, void* out, const char* what) {
    if (!contains(offset, length)) damaged(std::string(what) + " out of bounds");
    in_.seekg(static_cast<std::streamoff>(offset));
    in_.read(static_cast<char*>(out), static_cast<std::streamsize>(length));
    if (!in_) throw ElfError(ElfError::Kind::Unreadable, std::string("cannot read ") + what);
  }

 private:
  std::ifstream in_;
  std::uint64_t size_ = 0;
};

Elf64_Ehdr readHeader(BoundedFile& file) {
  Elf64_Ehdr header{};
  const std::uint64_t available = std::min<std::uint64_t>(file.size(), sizeof header);
  file.read(0, available, &header, "ELF header");
  if (available < SELFMAG || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0) {
    notElf("no ELF magic");
  }
  if (available < EI_NIDENT || header.e_ident[EI_CLASS] != ELFCLASS64 ||
      header.e_ident[EI_DATA] != kHostByteOrder) {
    notElf("not ELF64 in the host's byte order");
  }
  if (available < sizeof header) damaged("truncated ELF header");
  if (header.e_type != ET_DYN) notElf("not a shared object");
  return header;
}

// The section headers, with the count and name-table index that ELF moves
// into section 0 when they do not fit the file header.
struct SectionTable {
  std::vector<Elf64_Shdr> sections;
  std::uint32_t nameTableIndex = 0;
};

SectionTable readSectionTable(BoundedFile& file, const Elf64_Ehdr& header) {
  SectionTable table;
  if (header.e_shoff == 0) return table;
  if (header.e_shentsize != sizeof(Elf64_Shdr)) damaged("unexpected section header size");
  Elf64_Shdr first{};
  file.read(header.e_shoff, sizeof first, &first, "section headers");
  const std::uint64_t count = header.e_shnum != 0 ? header.e_shnum : first.sh_size;
  table.nameTableIndex = header.e_shstrndx != SHN_XINDEX ? header.e_shstrndx : first.sh_link;
  // Bounds first: the file must hold every header before we allocate them
  // (the count first, so that count * size cannot overflow).
  if (count == 0 || count > file.size() / sizeof(Elf64_Shdr) ||
      !file.contains(header.e_shoff, count * sizeof(Elf64_Shdr))) {
    damaged("section headers out of bounds");
  }
  if (table.nameTableIndex == SHN_UNDEF || table.nameTableIndex >= count) {
    damaged("section name table index out of range");
  }
  table.sections.resize(count);
  file.read(header.e_shoff, count * sizeof(Elf64_Shdr), table.sections.data(), "section headers");
  return table;
}

std::vector<char> readNameTable(BoundedFile& file, const SectionTable& table) {
  const Elf64_Shdr& names = table.sections[table.nameTableIndex];
  if (names.sh_type != SHT_STRTAB || names.sh_size == 0 || names.sh_size > kMaxNameTable) {
    damaged("bad section name table");
  }
  std::vector<char> bytes(names.sh_size);
  file.read(names.sh_offset, names.sh_size, bytes.data(), "section name table");
  if (bytes.back() != '\0') damaged("section name table not terminated");
  return bytes;
}

}  // namespace

std::optional<std::vector<unsigned char>> readElfSection(const std::filesystem::path& path,
                                                         std::string_view name,
                                                         std::size_t maxSize) {
  BoundedFile file(path);
  const Elf64_Ehdr header = readHeader(file);
  const SectionTable table = readSectionTable(file, header);
  if (table.sections.empty()) return std::nullopt;
  const std::vector<char> names = readNameTable(file, table);

  const Elf64_Shdr* found = nullptr;
  for (const Elf64_Shdr& section : table.sections) {
    if (section.sh_name >= names.size()) damaged("section name out of bounds");
    // The table ends with a NUL (checked), so every name in it is terminated.
    if (std::string_view(names.data() + section.sh_name) != name) continue;
    if (found) damaged("section " + std::string(name) + " present twice");
    found = &section;
  }
  if (!found) return std::nullopt;
  if (found->sh_type == SHT_NOBITS) damaged("section " + std::string(name) + " has no data");
  if (found->sh_size > maxSize) damaged("section " + std::string(name) + " too large");
  std::vector<unsigned char> bytes(found->sh_size);
  file.read(found->sh_offset, found->sh_size, bytes.data(), "section data");
  return bytes;
}

}  // namespace rapport::host
