#include "net/TlsClient.h"

#include <openssl/x509v3.h>

#include <Poco/Net/IPAddress.h>

namespace rapport::host::net {

Poco::Net::Context::Ptr clientTlsContext(const std::string& extraCaFile) {
  Poco::Net::Context::Params params;
  params.verificationMode = Poco::Net::Context::VERIFY_RELAXED;  // the chain must verify
  params.loadDefaultCAs = true;
  params.caLocation = extraCaFile;
  params.cipherList = "DEFAULT";
  Poco::Net::Context::Ptr context = new Poco::Net::Context(Poco::Net::Context::CLIENT_USE, params);
  context->requireMinimumProtocol(Poco::Net::Context::PROTO_TLSV1_2);
  context->enableExtendedCertificateVerification(false);
  return context;
}

bool certificateMatchesHost(const Poco::Net::X509Certificate& certificate,
                            const std::string& host) {
  X509* x509 = const_cast<X509*>(certificate.certificate());
  Poco::Net::IPAddress literal;
  const int matches = Poco::Net::IPAddress::tryParse(host, literal)
                          ? X509_check_ip_asc(x509, host.c_str(), 0)
                          : X509_check_host(x509, host.data(), host.size(),
                                            X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS, nullptr);
  return matches == 1;
}

}  // namespace rapport::host::net
