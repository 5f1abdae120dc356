#include "e2e/mail/MailE2e.h"

#include <stdexcept>

#include "support/smtp/SmtpServer.h"

namespace rapport::e2e::mail {

ServerProcess::Settings smtpSettings(int smtpPort, ServerProcess::Settings extra) {
  extra.emplace("mail.smtp.host", "127.0.0.1");
  extra.emplace("mail.smtp.port", std::to_string(smtpPort));
  extra.emplace("mail.smtp.starttls", "off");
  extra.emplace("mail.smtp.timeout", "2");
  extra.emplace("mail.retry_schedule", "0,1,1,1,1,1,1,1,1,1");
  extra.emplace("auth.reset.forgot_max_requests", "10000");
  extra.emplace("auth.reset.min_interval", "0");
  return generousSettings(std::move(extra));
}

int refusingPort() {
  rapport::test::smtp::SmtpServer gone;
  return gone.port();  // closed when `gone` goes
}

void forgotPassword(HttpClient& client, const std::string& email) {
  E2E_ASSERT_STATUS(200, client.post("/v1/auth/forgot-password", Json::object({{"email", email}})));
}

std::size_t outboxRows(const std::string& databaseUrl, const std::string& state) {
  return queryDatabase(databaseUrl, "SELECT id FROM mail_outbox WHERE state = " + sqlQuote(state))
      .size();
}

void waitForOutbox(const std::string& databaseUrl, const std::string& state, std::size_t count,
                   std::chrono::milliseconds limit) {
  if (!waitUntil([&] { return outboxRows(databaseUrl, state) == count; }, limit)) {
    throw std::runtime_error("timed out waiting for " + std::to_string(count) + " " + state +
                             " mail(s) in the outbox table");
  }
}

}  // namespace rapport::e2e::mail
