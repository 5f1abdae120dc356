// Reason phrases for the status line. Poco's setStatus(int) writes "OK" for
// statuses it does not name ("422 OK", stack-facts), so the server always
// passes one of these to setStatusAndReason.
#pragma once

#include <string>

namespace rapport::host {

// The RFC 9110 / 6585 phrase ("Unprocessable Entity"), or a generic one for
// the status class when the code is unusual.
std::string reasonPhrase(int status);

}  // namespace rapport::host
