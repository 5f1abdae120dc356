// Shared pieces of the mail end-to-end suites: a rapportd configured for
// SMTP with short retries, and reads of its outbox table.
#pragma once

#include <chrono>
#include <string>

#include "e2e/common/Api.h"

namespace rapport::e2e::mail {

// Settings for a rapportd that mails through 127.0.0.1:`smtpPort` in clear,
// retries every second (ten attempts), and lets a suite ask for resets
// freely.
ServerProcess::Settings smtpSettings(int smtpPort, ServerProcess::Settings extra = {});

// A port nothing listens on (it was free a moment ago): connections are refused.
int refusingPort();

// POST /v1/auth/forgot-password {email}, asserting 200.
void forgotPassword(HttpClient& client, const std::string& email);

// The rows of the outbox table with `state` (queued, sent...).
std::size_t outboxRows(const std::string& databaseUrl, const std::string& state);

// Waits until the outbox table has `count` rows in `state`; throws after `limit`.
void waitForOutbox(const std::string& databaseUrl, const std::string& state, std::size_t count,
                   std::chrono::milliseconds limit);

}  // namespace rapport::e2e::mail
