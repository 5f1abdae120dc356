// A password-reset mail survives kill -9 (docs/mail.md): the request stores
// the reset token and its mail in one transaction; the SMTP server refuses
// connections, so the mail waits in the outbox table for its retry; rapportd
// is killed (SIGKILL, no shutdown) and restarted on the same database and
// key with a working SMTP server: the mail arrives once, and its token works.
#include <cppunit/extensions/HelperMacros.h>

#include <csignal>

#include "e2e/common/Api.h"
#include "e2e/mail/MailE2e.h"
#include "e2e/reset/ResetMailReading.h"
#include "support/smtp/Mailbox.h"
#include "support/smtp/SmtpServer.h"

using namespace rapport::e2e;
using namespace std::chrono_literals;
using rapport::e2e::mail::forgotPassword;
using rapport::e2e::mail::outboxRows;
using rapport::e2e::mail::smtpSettings;
using rapport::e2e::mail::waitForOutbox;
using rapport::test::smtp::SmtpServer;

class MailRestartTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(MailRestartTest);
  CPPUNIT_TEST(testQueuedMailSurvivesKill);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testQueuedMailSurvivesKill() {
    ServerProcess first(smtpSettings(rapport::e2e::mail::refusingPort()));
    const std::string databaseUrl = first.databaseUrl();
    Account account;
    {
      HttpClient client(first.port());
      account = registerUser(client, "crash");
      forgotPassword(client, account.email);
    }
    // The first attempt failed (connection refused) and the mail waits for
    // its retry: the moment a crash would lose an in-memory queue.
    CPPUNIT_ASSERT_MESSAGE(first.log(), waitUntil(
                                            [&] {
                                              return !queryDatabase(databaseUrl,
                                                                    "SELECT id FROM mail_outbox "
                                                                    "WHERE state = 'queued' AND "
                                                                    "attempts >= 1")
                                                          .empty();
                                            },
                                            15s));
    first.kill();
    CPPUNIT_ASSERT(first.log().find("mail failed, will retry") != std::string::npos);
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, outboxRows(databaseUrl, "sent"));

    SmtpServer smtp;
    ServerProcess second(smtpSettings(smtp.port(), {{"database.url", databaseUrl}}), {}, {},
                         first.workDir());
    // A claim the killed process held ends with its lease (20 s here).
    const auto mails = rapport::test::smtp::waitForMailTo(smtp.maildir(), account.email, 1, 60s);
    waitForOutbox(databaseUrl, "sent", 1, 15s);
    HttpClient client(second.port());
    const std::string token = reset::resetTokenIn(mails.front());
    const std::string password = "delivered after a crash";
    E2E_ASSERT_STATUS(200, client.post("/v1/auth/reset-password",
                                       Json::object({{"token", token},
                                                     {"email", account.email},
                                                     {"password", password},
                                                     {"password_confirmation", password}})));
    E2E_ASSERT_DATA(200, login(client, account.email, password));
    CPPUNIT_ASSERT_EQUAL(0, second.stop());
    // Once: the sent row was final before the stop, and nothing else is queued.
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, smtp.files().size());
    CPPUNIT_ASSERT_EQUAL(std::size_t{1},
                         queryDatabase(databaseUrl, "SELECT id FROM mail_outbox").size());
    // The body was blanked once sent.
    CPPUNIT_ASSERT_EQUAL(
        std::string(""),
        queryDatabase(databaseUrl, "SELECT message_sealed FROM mail_outbox").at(0).at(0));
    CPPUNIT_ASSERT(second.log().find(token) == std::string::npos);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(MailRestartTest);
