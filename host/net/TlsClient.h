// The host's TLS as a client (SMTP for mail, identity providers for social
// login): one way to trust servers and one way to check their names.
//
// The context trusts the system store plus an optional extra CA file, needs
// TLS 1.2 or later, and has OpenSSL verify the chain during the handshake.
// Poco's own host-name check is turned off because it skips names that
// resolve to loopback, so a test with a certificate for the wrong name would
// pass. Callers check the name themselves with certificateMatchesHost()
// once the handshake is done, before they send a byte.
#pragma once

#include <Poco/Net/Context.h>
#include <Poco/Net/X509Certificate.h>

#include <string>

namespace rapport::host::net {

// Throws Poco's exception when `extraCaFile` cannot be read.
Poco::Net::Context::Ptr clientTlsContext(const std::string& extraCaFile);

// True when `certificate` is valid for `host`: a DNS name (no partial
// wildcards) or an IP address literal.
bool certificateMatchesHost(const Poco::Net::X509Certificate& certificate, const std::string& host);

}  // namespace rapport::host::net
