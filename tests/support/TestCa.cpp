#include "support/TestCa.h"

#include <Poco/Pipe.h>
#include <Poco/PipeStream.h>
#include <Poco/Process.h>
#include <Poco/StreamCopier.h>

#include <fstream>
#include <stdexcept>
#include <thread>

#include "support/TestEnv.h"

namespace rapport::test {

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

Certificates signedBySameCa(const Certificates& ca, const std::string& name,
                            const std::string& subjectAltName) {
  const std::string dir = ca.caFile.substr(0, ca.caFile.rfind('/'));
  Certificates c{ca.caFile, dir + "/" + name + ".pem", dir + "/" + name + ".key"};
  const std::string request = dir + "/" + name + ".csr";
  const std::string extensions = dir + "/" + name + ".ext";
  {
    std::ofstream ext(extensions);
    ext << "subjectAltName = " << subjectAltName
        << "\n"
           "basicConstraints = critical, CA:FALSE\n"
           "keyUsage = critical, digitalSignature, keyEncipherment\n"
           "extendedKeyUsage = serverAuth\n";
  }
  runTool("openssl", {"req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                      "-keyout", c.keyFile, "-out", request, "-subj", "/CN=" + name});
  runTool("openssl", {"x509", "-req", "-in", request, "-CA", ca.caFile, "-CAkey", dir + "/ca.key",
                      "-CAcreateserial", "-out", c.certFile, "-days", "2", "-extfile", extensions});
  return c;
}

Certificates makeCertificates(const std::string& label, const std::string& subjectAltName) {
  const std::string dir = tempDirectory(label);
  // The CA: a self-signed certificate allowed to sign others; its key stays
  // beside it (ca.key) for signedBySameCa().
  Certificates ca{dir + "/ca.pem", "", ""};
  runTool("openssl",
          {"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
           "-keyout", dir + "/ca.key", "-out", ca.caFile, "-days", "2", "-subj",
           "/CN=Rapport test CA " + label, "-addext", "basicConstraints=critical,CA:TRUE",
           "-addext", "keyUsage=critical,keyCertSign,cRLSign"});
  return signedBySameCa(ca, "server", subjectAltName);
}

const Certificates& testCertificates() {
  static const Certificates c = makeCertificates("test-ca");
  return c;
}

}  // namespace rapport::test
