#include "secrets/SecretBox.h"

#include <Poco/Base64Decoder.h>
#include <Poco/Base64Encoder.h>
#include <Poco/String.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>

namespace rapport::host {
namespace {

constexpr std::string_view kPrefix = "rk1:";
constexpr std::size_t kNonceBytes = 12;
constexpr std::size_t kTagBytes = 16;

std::string toBase64(std::string_view bytes) {
  std::ostringstream out;
  Poco::Base64Encoder encoder(out);
  encoder.rdbuf()->setLineLength(0);
  encoder.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  encoder.close();
  return out.str();
}

// Throws std::runtime_error with `what` (never the text) on bad input.
std::string fromBase64(std::string_view text, const std::string& what) {
  try {
    std::istringstream in{std::string(text)};
    Poco::Base64Decoder decoder(in);
    std::string out((std::istreambuf_iterator<char>(decoder)), std::istreambuf_iterator<char>());
    return out;
  } catch (const std::exception&) {
    throw std::runtime_error(what + " is not valid base64");
  }
}

std::string randomBytes(std::size_t n) {
  std::string out(n, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1) {
    throw std::runtime_error("RAND_bytes failed");
  }
  return out;
}

std::string toHex(std::string_view raw) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : raw) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

std::string decodeKey(std::string_view base64, const std::string& what) {
  std::string key = fromBase64(Poco::trim(std::string(base64)), what);
  if (key.size() != AesGcmSecretBox::kKeyBytes) {
    throw std::runtime_error(what + " must hold 32 bytes in base64 (openssl rand -base64 32)");
  }
  return key;
}

using CipherContext = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

CipherContext newContext() {
  CipherContext ctx(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free);
  if (!ctx) throw std::runtime_error("EVP_CIPHER_CTX_new failed");
  return ctx;
}

const unsigned char* bytes(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

}  // namespace

std::string loadOrCreateKeyFile(const std::string& path) {
  const std::string what = "secrets.key_file " + path;
  std::ifstream existing(path);
  if (!existing) {
    std::filesystem::path target(path);
    if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path());
    // Written aside, then linked into place: link() fails when another
    // instance created the file first, and then its key is read below.
    // A name of its own per attempt (not the pid: threads share it), opened
    // exclusively, so no one else ever writes the inode that gets linked.
    const std::string aside = path + ".new." + toHex(randomBytes(8));
    int fd = ::open(aside.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0) throw std::runtime_error("cannot create " + what + ": " + std::strerror(errno));
    const std::string line = toBase64(randomBytes(AesGcmSecretBox::kKeyBytes)) + "\n";
    bool written = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size()) &&
                   ::fsync(fd) == 0;
    ::close(fd);
    int linked = written ? ::link(aside.c_str(), path.c_str()) : -1;
    int linkError = errno;
    ::unlink(aside.c_str());
    if (!written) throw std::runtime_error("cannot write " + what);
    if (linked != 0 && linkError != EEXIST) {
      throw std::runtime_error("cannot create " + what + ": " + std::strerror(linkError));
    }
    existing.open(path);
    if (!existing) throw std::runtime_error("cannot read " + what);
  }
  std::string text((std::istreambuf_iterator<char>(existing)), std::istreambuf_iterator<char>());
  return decodeKey(text, what);
}

std::unique_ptr<AesGcmSecretBox> AesGcmSecretBox::fromConfig(const rapport::Config& config) {
  std::string key = config.getString("secrets.key", "");
  if (!Poco::trim(key).empty()) {
    return std::make_unique<AesGcmSecretBox>(decodeKey(key, "secrets.key"));
  }
  return std::make_unique<AesGcmSecretBox>(
      loadOrCreateKeyFile(config.getString("secrets.key_file", "data/secret.key")));
}

AesGcmSecretBox::AesGcmSecretBox(std::string key) : key_(std::move(key)) {
  if (key_.size() != kKeyBytes) throw std::invalid_argument("the sealing key must be 32 bytes");
}

std::string AesGcmSecretBox::seal(std::string_view plaintext, std::string_view context) const {
  const std::string nonce = randomBytes(kNonceBytes);
  std::string out = nonce;
  out.resize(kNonceBytes + plaintext.size() + kTagBytes);
  auto* cipher = reinterpret_cast<unsigned char*>(out.data()) + kNonceBytes;
  CipherContext ctx = newContext();
  int len = 0;
  bool ok =
      EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, bytes(key_), bytes(nonce)) == 1 &&
      EVP_EncryptUpdate(ctx.get(), nullptr, &len, bytes(context),
                        static_cast<int>(context.size())) == 1 &&
      EVP_EncryptUpdate(ctx.get(), cipher, &len, bytes(plaintext),
                        static_cast<int>(plaintext.size())) == 1 &&
      EVP_EncryptFinal_ex(ctx.get(), cipher + len, &len) == 1 &&
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, static_cast<int>(kTagBytes),
                          cipher + plaintext.size()) == 1;
  if (!ok) throw std::runtime_error("sealing a secret failed");
  return std::string(kPrefix) + toBase64(out);
}

std::string AesGcmSecretBox::open(std::string_view sealed, std::string_view context) const {
  const std::runtime_error refused("a sealed secret cannot be opened with this server's key");
  if (sealed.substr(0, kPrefix.size()) != kPrefix) throw refused;
  std::string raw = fromBase64(sealed.substr(kPrefix.size()), "a sealed secret");
  if (raw.size() < kNonceBytes + kTagBytes) throw refused;
  const std::size_t textBytes = raw.size() - kNonceBytes - kTagBytes;
  std::string_view nonce(raw.data(), kNonceBytes);
  std::string_view cipher(raw.data() + kNonceBytes, textBytes);
  std::string tag = raw.substr(kNonceBytes + textBytes);
  std::string plain(textBytes, '\0');
  CipherContext ctx = newContext();
  int len = 0;
  auto* out = reinterpret_cast<unsigned char*>(plain.data());
  bool ok =
      EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, bytes(key_), bytes(nonce)) == 1 &&
      EVP_DecryptUpdate(ctx.get(), nullptr, &len, bytes(context),
                        static_cast<int>(context.size())) == 1 &&
      EVP_DecryptUpdate(ctx.get(), out, &len, bytes(cipher), static_cast<int>(cipher.size())) ==
          1 &&
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, static_cast<int>(kTagBytes),
                          tag.data()) == 1 &&
      EVP_DecryptFinal_ex(ctx.get(), out + len, &len) == 1;
  if (!ok) throw refused;
  return plain;
}

}  // namespace rapport::host
