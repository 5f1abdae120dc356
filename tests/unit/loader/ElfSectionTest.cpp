// The ELF reader against a real module file (the probe fixture) and copies of
// it damaged on purpose: every refusal is an ElfError of the right kind,
// never a crash or a read outside the file.
#include <cppunit/extensions/HelperMacros.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <random>

#include "loader/ElfSection.h"
#include "rapport/abi.h"
#include "support/TestEnv.h"
#include "unit/loader/ElfBytes.h"

using rapport::host::ElfError;
using rapport::host::readElfSection;
using rapport::test::ElfBytes;

namespace {

const std::filesystem::path kProbe = std::string(RAPPORT_TEST_MODULES_DIR) + "/rapport_probe.so";

// "(section of N bytes)", "(none)" or "<kind>: <what>" for `file`.
std::string outcome(const std::filesystem::path& file, std::string_view name = ".rapport_stamp") {
  try {
    const auto section = readElfSection(file, name);
    return section ? "(section of " + std::to_string(section->size()) + " bytes)" : "(none)";
  } catch (const ElfError& e) {
    switch (e.kind()) {
      case ElfError::Kind::Unreadable:
        return std::string("unreadable: ") + e.what();
      case ElfError::Kind::NotElf:
        return std::string("not ELF: ") + e.what();
      case ElfError::Kind::Damaged:
        return std::string("damaged: ") + e.what();
    }
  }
  return "(unknown kind)";
}

std::string outcome(const ElfBytes& elf) {
  static const std::filesystem::path file =
      std::filesystem::path(rapport::test::tempDirectory("elf")) / "rapport_probe.so";
  elf.write(file);
  return outcome(file);
}

const std::string kStampSize =
    "(section of " + std::to_string(sizeof(rapport_module_stamp)) + " bytes)";

}  // namespace

class ElfSectionTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ElfSectionTest);
  CPPUNIT_TEST(testReadsTheStampOfAModule);
  CPPUNIT_TEST(testMissingSection);
  CPPUNIT_TEST(testNotElf);
  CPPUNIT_TEST(testOtherClassOrType);
  CPPUNIT_TEST(testTruncated);
  CPPUNIT_TEST(testHeadersOutOfBounds);
  CPPUNIT_TEST(testSectionOutOfBounds);
  CPPUNIT_TEST(testRandomDamageNeverCrashes);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testReadsTheStampOfAModule() {
    const auto section = readElfSection(kProbe, RAPPORT_STAMP_SECTION);
    CPPUNIT_ASSERT(section.has_value());
    CPPUNIT_ASSERT_EQUAL(sizeof(rapport_module_stamp), section->size());
    rapport_module_stamp stamp{};
    std::memcpy(&stamp, section->data(), sizeof stamp);
    CPPUNIT_ASSERT_EQUAL(std::uint32_t(RAPPORT_MODULE_MAGIC), stamp.magic);
    CPPUNIT_ASSERT_EQUAL(std::string("probe"), std::string(stamp.name));
    CPPUNIT_ASSERT_EQUAL(std::string("1.0.0"), std::string(stamp.version));
  }

  void testMissingSection() {
    CPPUNIT_ASSERT_EQUAL(std::string("(none)"), outcome(kProbe, ".no_such_section"));
    ElfBytes elf = ElfBytes::read(kProbe);
    elf.header()->e_shoff = 0;  // no section headers at all
    CPPUNIT_ASSERT_EQUAL(std::string("(none)"), outcome(elf));
  }

  void testNotElf() {
    const std::filesystem::path dir = rapport::test::tempDirectory("elf");
    std::ofstream(dir / "text.so") << "not an ELF file\n";
    std::ofstream(dir / "empty.so").flush();
    std::ofstream(dir / "short.so") << "\x7f"
                                       "EL";
    CPPUNIT_ASSERT_EQUAL(std::string("not ELF: no ELF magic"), outcome(dir / "text.so"));
    CPPUNIT_ASSERT_EQUAL(std::string("not ELF: no ELF magic"), outcome(dir / "empty.so"));
    CPPUNIT_ASSERT_EQUAL(std::string("not ELF: no ELF magic"), outcome(dir / "short.so"));
    const std::string missing = outcome(dir / "missing.so");
    CPPUNIT_ASSERT_EQUAL(std::string("unreadable: No such file or directory"), missing);
  }

  void testOtherClassOrType() {
    ElfBytes elf = ElfBytes::read(kProbe);
    elf.header()->e_ident[EI_CLASS] = ELFCLASS32;
    CPPUNIT_ASSERT_EQUAL(std::string("not ELF: not ELF64 in the host's byte order"), outcome(elf));
    elf = ElfBytes::read(kProbe);
    elf.header()->e_ident[EI_DATA] = ELFDATA2MSB;
    CPPUNIT_ASSERT_EQUAL(std::string("not ELF: not ELF64 in the host's byte order"), outcome(elf));
    elf = ElfBytes::read(kProbe);
    elf.header()->e_type = ET_EXEC;
    CPPUNIT_ASSERT_EQUAL(std::string("not ELF: not a shared object"), outcome(elf));
  }

  void testTruncated() {
    const ElfBytes whole = ElfBytes::read(kProbe);
    ElfBytes elf = whole;
    elf.bytes.resize(40);
    CPPUNIT_ASSERT_EQUAL(std::string("damaged: truncated ELF header"), outcome(elf));
    elf = whole;
    elf.bytes.resize(whole.bytes.size() / 2);  // the section headers are at the end
    CPPUNIT_ASSERT_EQUAL(std::string("damaged: section headers out of bounds"), outcome(elf));
    elf = whole;
    elf.bytes.resize(whole.bytes.size() - 1);
    CPPUNIT_ASSERT_EQUAL(std::string("damaged: section headers out of bounds"), outcome(elf));
  }

  void testHeadersOutOfBounds() {
    const ElfBytes whole = ElfBytes::read(kProbe);
    ElfBytes elf = whole;
    elf.header()->e_shoff = ~std::uint64_t(0) - 8;  // offset + size overflows
    CPPUNIT_ASSERT_EQUAL(std::string("damaged: section headers out of bounds"), outcome(elf));
    elf = whole;
    elf.header()->e_shnum = 0xffff;
    CPPUNIT_ASSERT_EQUAL(std::string("damaged: section headers out of bounds"), outcome(elf));
    elf = whole;
    elf.header()->e_shentsize = 32;
    CPPUNIT_ASSERT_EQUAL(std::string("damaged: unexpected section header size"), outcome(elf));
    elf = whole;
    elf.header()->e_shstrndx = elf.header()->e_shnum;
    CPPUNIT_ASSERT_EQUAL(std::string("damaged: section name table index out of range"),
                         outcome(elf));
    elf = whole;
    elf.section(elf.header()->e_shstrndx)->sh_size = ~std::uint64_t(0);
    CPPUNIT_ASSERT_EQUAL(std::string("damaged: bad section name table"), outcome(elf));
    elf = whole;
    elf.section(elf.header()->e_shstrndx)->sh_offset = elf.bytes.size();
    CPPUNIT_ASSERT_EQUAL(std::string("damaged: section name table out of bounds"), outcome(elf));
    elf = whole;
    elf.section(RAPPORT_STAMP_SECTION)->sh_name = 0x7fffffff;
    CPPUNIT_ASSERT_EQUAL(std::string("damaged: section name out of bounds"), outcome(elf));
  }

  void testSectionOutOfBounds() {
    const ElfBytes whole = ElfBytes::read(kProbe);
    ElfBytes elf = whole;
    elf.section(RAPPORT_STAMP_SECTION)->sh_offset = ~std::uint64_t(0) - 4;
    CPPUNIT_ASSERT_EQUAL(std::string("damaged: section data out of bounds"), outcome(elf));
    elf = whole;
    elf.section(RAPPORT_STAMP_SECTION)->sh_size = 1u << 30;
    CPPUNIT_ASSERT_EQUAL(std::string("damaged: section .rapport_stamp too large"), outcome(elf));
    elf = whole;
    elf.section(RAPPORT_STAMP_SECTION)->sh_type = SHT_NOBITS;
    CPPUNIT_ASSERT_EQUAL(std::string("damaged: section .rapport_stamp has no data"), outcome(elf));
    // A second section of the same name: a linker never writes that.
    elf = whole;
    elf.section(std::size_t(1))->sh_name = elf.section(RAPPORT_STAMP_SECTION)->sh_name;
    CPPUNIT_ASSERT_EQUAL(std::string("damaged: section .rapport_stamp present twice"),
                         outcome(elf));
    CPPUNIT_ASSERT_EQUAL(kStampSize, outcome(whole));
  }

  // Random bytes written over the file header and the section headers, and
  // random truncations: the reader answers every time with a section, none,
  // or an ElfError of kind NotElf or Damaged: a read past the end of the
  // file, had the bounds checks missed one, would come back as Unreadable.
  void testRandomDamageNeverCrashes() {
    const ElfBytes whole = ElfBytes::read(kProbe);
    ElfBytes intact = whole;
    const std::size_t tableStart = intact.header()->e_shoff;
    std::mt19937 random(20261124);
    std::size_t answered = 0;
    for (int round = 0; round < 400; ++round) {
      ElfBytes elf = whole;
      const int edits = 1 + static_cast<int>(random() % 8);
      for (int i = 0; i < edits; ++i) {
        const bool inHeader = random() % 2 == 0;
        const std::size_t at = inHeader ? random() % sizeof(Elf64_Ehdr)
                                        : tableStart + random() % (whole.bytes.size() - tableStart);
        elf.bytes[at] = static_cast<unsigned char>(random());
      }
      if (round % 5 == 0) elf.bytes.resize(random() % whole.bytes.size());
      const std::string result = outcome(elf);
      CPPUNIT_ASSERT_MESSAGE(result, result.rfind("unreadable", 0) != 0);
      ++answered;
    }
    CPPUNIT_ASSERT_EQUAL(std::size_t(400), answered);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ElfSectionTest);
