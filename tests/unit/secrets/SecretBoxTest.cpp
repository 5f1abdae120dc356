#include <cppunit/extensions/HelperMacros.h>
#include <sys/stat.h>

#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "rapport/config.h"
#include "rapport/ids.h"
#include "secrets/SecretBox.h"

using rapport::host::AesGcmSecretBox;

namespace {

class MapConfig : public rapport::Config {
 public:
  using Values = std::map<std::string, std::string>;
  explicit MapConfig(Values values) : values_(std::move(values)) {}
  bool has(const std::string& key) const override { return values_.count(key) > 0; }
  std::string getString(const std::string& key, const std::string& fallback) const override {
    return has(key) ? values_.at(key) : fallback;
  }
  std::int64_t getInt(const std::string&, std::int64_t fallback) const override { return fallback; }
  bool getBool(const std::string&, bool fallback) const override { return fallback; }

 private:
  std::map<std::string, std::string> values_;
};

std::filesystem::path tempDir() {
  auto dir =
      std::filesystem::temp_directory_path() / ("rapport-secrets-" + rapport::randomToken(6));
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace

class SecretBoxTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(SecretBoxTest);
  CPPUNIT_TEST(testRoundTrip);
  CPPUNIT_TEST(testSealsDifferEachTime);
  CPPUNIT_TEST(testOtherContextRefused);
  CPPUNIT_TEST(testOtherKeyRefused);
  CPPUNIT_TEST(testAlteredTextRefused);
  CPPUNIT_TEST(testKeyFromSetting);
  CPPUNIT_TEST(testBadKeySettingRefused);
  CPPUNIT_TEST(testKeyFileCreatedOnceWithMode0600);
  CPPUNIT_TEST(testKeyFileRaceAgrees);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testRoundTrip() {
    AesGcmSecretBox box(std::string(32, 'a'));
    for (std::string plain : {std::string(), std::string("whsec_abc"), std::string(5000, 'x')}) {
      const std::string sealed = box.seal(plain, "webhook:whk_1");
      CPPUNIT_ASSERT_EQUAL(std::string("rk1:"), sealed.substr(0, 4));
      CPPUNIT_ASSERT(plain.empty() || sealed.find(plain) == std::string::npos);
      CPPUNIT_ASSERT_EQUAL(plain, box.open(sealed, "webhook:whk_1"));
    }
  }

  void testSealsDifferEachTime() {
    AesGcmSecretBox box(std::string(32, 'a'));
    CPPUNIT_ASSERT(box.seal("same", "c") != box.seal("same", "c"));
  }

  void testOtherContextRefused() {
    AesGcmSecretBox box(std::string(32, 'a'));
    const std::string sealed = box.seal("whsec_abc", "webhook:whk_1");
    CPPUNIT_ASSERT_THROW(box.open(sealed, "webhook:whk_2"), std::runtime_error);
  }

  void testOtherKeyRefused() {
    AesGcmSecretBox one(std::string(32, 'a'));
    AesGcmSecretBox two(std::string(32, 'b'));
    CPPUNIT_ASSERT_THROW(two.open(one.seal("x", "c"), "c"), std::runtime_error);
  }

  void testAlteredTextRefused() {
    AesGcmSecretBox box(std::string(32, 'a'));
    std::string sealed = box.seal("whsec_abcdefghijklmnop", "c");
    sealed[10] = sealed[10] == 'A' ? 'B' : 'A';
    CPPUNIT_ASSERT_THROW(box.open(sealed, "c"), std::runtime_error);
    CPPUNIT_ASSERT_THROW(box.open("plain text", "c"), std::runtime_error);
    CPPUNIT_ASSERT_THROW(box.open("rk1:", "c"), std::runtime_error);
  }

  void testKeyFromSetting() {
    // 32 bytes of 0x01, base64.
    MapConfig config(
        MapConfig::Values{{"secrets.key", "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE="}});
    auto box = AesGcmSecretBox::fromConfig(config);
    AesGcmSecretBox same(std::string(32, '\x01'));
    CPPUNIT_ASSERT_EQUAL(std::string("v"), same.open(box->seal("v", "c"), "c"));
  }

  void testBadKeySettingRefused() {
    MapConfig shortKey(MapConfig::Values{{"secrets.key", "AQEB"}});
    CPPUNIT_ASSERT_THROW(AesGcmSecretBox::fromConfig(shortKey), std::runtime_error);
    MapConfig notBase64(MapConfig::Values{{"secrets.key", "!!!!"}});
    CPPUNIT_ASSERT_THROW(AesGcmSecretBox::fromConfig(notBase64), std::runtime_error);
  }

  void testKeyFileCreatedOnceWithMode0600() {
    const auto dir = tempDir();
    const std::string file = (dir / "sub" / "secret.key").string();
    MapConfig config(MapConfig::Values{{"secrets.key_file", file}});
    auto first = AesGcmSecretBox::fromConfig(config);
    struct stat info {};
    CPPUNIT_ASSERT_EQUAL(0, ::stat(file.c_str(), &info));
    CPPUNIT_ASSERT_EQUAL(0600u, static_cast<unsigned>(info.st_mode & 0777));
    auto second = AesGcmSecretBox::fromConfig(config);  // reads the same key
    CPPUNIT_ASSERT_EQUAL(std::string("v"), second->open(first->seal("v", "c"), "c"));
    std::filesystem::remove_all(dir);
  }

  void testKeyFileRaceAgrees() {
    const auto dir = tempDir();
    const std::string file = (dir / "secret.key").string();
    std::vector<std::string> keys(8);
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      threads.emplace_back([&, i] { keys[i] = rapport::host::loadOrCreateKeyFile(file); });
    }
    for (auto& t : threads) t.join();
    for (const auto& key : keys) CPPUNIT_ASSERT(key == keys.front());
    CPPUNIT_ASSERT_EQUAL(std::size_t{32}, keys.front().size());
    std::filesystem::remove_all(dir);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(SecretBoxTest);
