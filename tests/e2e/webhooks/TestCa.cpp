#include "e2e/webhooks/TestCa.h"

#include <Poco/Path.h>
#include <Poco/Pipe.h>
#include <Poco/PipeStream.h>
#include <Poco/Process.h>
#include <Poco/StreamCopier.h>

#include <fstream>
#include <stdexcept>
#include <thread>

#include "support/TestEnv.h"

namespace rapport::e2e::webhooks {

std::string runTool(const std::string& program, const std::vector<std::string>& args,
                    const std::string& input) {
  Poco::Pipe in;
  Poco::Pipe out;
  Poco::ProcessHandle handle = Poco::Process::launch(
      program, std::vector<std::string>(args.begin(), args.end()), &in, &out, &out);
  // Write standard input from another thread: a tool that answers before
  // reading all of it must not dead-lock against a full pipe.
  std::thread writer([&in, &input] {
    Poco::PipeOutputStream stream(in);
    stream.write(input.data(), static_cast<std::streamsize>(input.size()));
    stream.close();
  });
  Poco::PipeInputStream stream(out);
  std::string output;
  Poco::StreamCopier::copyToString(stream, output);
  writer.join();
  const int code = handle.wait();
  if (code != 0) {
    std::string command = program;
    for (const auto& arg : args) command += " " + arg;
    throw std::runtime_error(command + " exited with " + std::to_string(code) + ":\n" + output);
  }
  return output;
}

std::string opensslHmacSha256(const std::string& key, const std::string& message) {
  // Prints "SHA2-256(stdin)= <hex>" (or "HMAC-SHA256(stdin)= <hex>").
  const std::string output = runTool("openssl", {"dgst", "-sha256", "-hmac", key}, message);
  const auto equals = output.rfind("= ");
  if (equals == std::string::npos) throw std::runtime_error("openssl dgst said: " + output);
  std::string hex = output.substr(equals + 2);
  while (!hex.empty() && (hex.back() == '\n' || hex.back() == '\r')) hex.pop_back();
  return hex;
}

const TestCa& TestCa::instance() {
  static const TestCa ca;
  return ca;
}

TestCa::TestCa() {
  dir_ = rapport::test::tempDirectory("test-ca");
  caFile_ = dir_ + "/ca.pem";
  certFile_ = dir_ + "/localhost.pem";
  keyFile_ = dir_ + "/localhost.key";
  const std::string caKey = dir_ + "/ca.key";
  const std::string request = dir_ + "/localhost.csr";
  const std::string extensions = dir_ + "/localhost.ext";
  {
    std::ofstream ext(extensions);
    ext << "subjectAltName = DNS:localhost, IP:127.0.0.1\n"
           "basicConstraints = critical, CA:FALSE\n"
           "keyUsage = critical, digitalSignature, keyEncipherment\n"
           "extendedKeyUsage = serverAuth\n";
  }
  // The CA: a self-signed certificate allowed to sign others.
  runTool("openssl",
          {"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
           "-keyout", caKey, "-out", caFile_, "-days", "2", "-subj",
           "/CN=Rapport e2e throw-away CA", "-addext", "basicConstraints=critical,CA:TRUE",
           "-addext", "keyUsage=critical,keyCertSign,cRLSign"});
  // The receiver's key and certificate for localhost, signed by the CA.
  runTool("openssl", {"req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                      "-keyout", keyFile_, "-out", request, "-subj", "/CN=localhost"});
  runTool("openssl", {"x509", "-req", "-in", request, "-CA", caFile_, "-CAkey", caKey,
                      "-CAcreateserial", "-out", certFile_, "-days", "2", "-extfile", extensions});
}

}  // namespace rapport::e2e::webhooks
