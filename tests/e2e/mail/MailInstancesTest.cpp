// Two rapportd on one PostgreSQL database send from one outbox table
// (docs/mail.md): the SMTP server answers the first attempts with 451, so
// each mail waits for retries that both instances' senders see due at the
// same moment; they claim with FOR UPDATE SKIP LOCKED, and every mail
// arrives exactly once.
#include <cppunit/extensions/HelperMacros.h>

#include <set>

#include "e2e/common/Api.h"
#include "e2e/mail/MailE2e.h"
#include "support/smtp/Mailbox.h"
#include "support/smtp/SmtpServer.h"

using namespace rapport::e2e;
using namespace std::chrono_literals;
using rapport::e2e::mail::forgotPassword;
using rapport::e2e::mail::smtpSettings;
using rapport::e2e::mail::waitForOutbox;
using rapport::test::smtp::SmtpServer;

class MailInstancesTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(MailInstancesTest);
  CPPUNIT_TEST(testTwoInstancesSendEachMailOnce);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testTwoInstancesSendEachMailOnce() {
    constexpr std::size_t kMails = 6;
    SmtpServer smtp(SmtpServer::Options().withFailFirst(8));
    // One key for both: either instance opens the other's sealed mails.
    const ServerProcess::Settings shared = {
        {"secrets.key", "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="}};
    ServerProcess a(smtpSettings(smtp.port(), shared));
    ServerProcess::Settings second = shared;
    second.emplace("database.url", a.databaseUrl());
    ServerProcess b(smtpSettings(smtp.port(), second));
    HttpClient clientA(a.port());
    HttpClient clientB(b.port());
    std::set<std::string> emails;
    for (std::size_t i = 0; i < kMails; ++i) {
      HttpClient& client = i % 2 == 0 ? clientA : clientB;
      const Account account = registerUser(client, "twice" + std::to_string(i));
      emails.insert(account.email);
      forgotPassword(client, account.email);
    }
    waitForOutbox(a.databaseUrl(), "sent", kMails, 60s);
    CPPUNIT_ASSERT_EQUAL(0, a.stop());
    CPPUNIT_ASSERT_EQUAL(0, b.stop());
    const auto mails = smtp.waitForMessages(kMails);
    CPPUNIT_ASSERT_EQUAL(kMails, smtp.files().size());
    std::set<std::string> recipients;
    for (const auto& m : mails) recipients.insert(m.rcptTos.at(0));
    CPPUNIT_ASSERT(recipients == emails);
    const std::string logs = a.log() + b.log();
    std::size_t sent = 0;
    for (auto at = logs.find("msg=\"mail sent\""); at != std::string::npos;
         at = logs.find("msg=\"mail sent\"", at + 1)) {
      ++sent;
    }
    CPPUNIT_ASSERT_EQUAL(kMails, sent);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(MailInstancesTest);
