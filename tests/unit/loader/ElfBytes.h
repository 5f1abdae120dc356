// Test helper: a module file's bytes, to damage on purpose and write back.
// The ELF reader must survive whatever these produce; the offsets used here
// come from the intact file, which the test trusts.
#pragma once

#include <elf.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace rapport::test {

struct ElfBytes {
  std::vector<unsigned char> bytes;

  static ElfBytes read(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + file.string());
    return {std::vector<unsigned char>(std::istreambuf_iterator<char>(in), {})};
  }

  void write(const std::filesystem::path& file) const {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
  }

  Elf64_Ehdr* header() { return reinterpret_cast<Elf64_Ehdr*>(bytes.data()); }

  Elf64_Shdr* section(std::size_t index) {
    return reinterpret_cast<Elf64_Shdr*>(bytes.data() + header()->e_shoff) + index;
  }

  // The header of the section called `name` (the file must have it).
  Elf64_Shdr* section(const std::string& name) {
    const Elf64_Shdr* names = section(header()->e_shstrndx);
    for (std::size_t i = 0; i < header()->e_shnum; ++i) {
      const char* text =
          reinterpret_cast<const char*>(bytes.data() + names->sh_offset + section(i)->sh_name);
      if (name == text) return section(i);
    }
    throw std::runtime_error("no section " + name);
  }

  // Overwrites the bytes of section `name` with `data` (same size or less).
  template <typename T>
  void overwrite(const std::string& name, const T& data) {
    Elf64_Shdr* s = section(name);
    if (sizeof data > s->sh_size) throw std::runtime_error("does not fit in " + name);
    std::memcpy(bytes.data() + s->sh_offset, &data, sizeof data);
  }
};

}  // namespace rapport::test
