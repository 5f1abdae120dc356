// The mailer against a real SMTP server on loopback (tests/support/smtp,
// aiosmtpd): plain SMTP, STARTTLS with a throw-away CA, AUTH, refusals
// (STARTTLS required but not offered, an untrusted certificate, a password
// that would go in clear), retries on a schedule, a slow server that never
// holds up send(), and what the log says (never a secret).
#include <cppunit/extensions/HelperMacros.h>

#include <chrono>
#include <memory>

#include "MailTestSupport.h"
#include "mail/MailService.h"
#include "mail/SmtpTransport.h"
#include "support/smtp/SmtpServer.h"

namespace mail = rapport::host::mail;
using rapport::test::mail::LogCapture;
using rapport::test::mail::waitFor;
using rapport::test::smtp::SmtpServer;
using namespace std::chrono_literals;

namespace {

constexpr const char* kToken = "TOKEN-7f3a9c";
constexpr const char* kSubject = "Reset your password";
constexpr const char* kPassword = "pa55-w0rd-xyzzy";

mail::MailMessage resetMessage(const std::string& to = "ann@example.com") {
  return {to, kSubject, std::string("Hello Ann,\nyour token is ") + kToken + "\n",
          std::string("<p>Hello Ann,</p><p>your token is <b>") + kToken + "</b></p>",
          "password-reset"};
}

mail::MailOptions optionsFor(const SmtpServer& server) {
  mail::MailOptions o;
  o.from = "no-reply@rapport.test";
  o.smtp.host = "127.0.0.1";
  o.smtp.port = server.port();
  o.smtp.timeout = 10s;
  o.retrySchedule = {0ms, 50ms, 50ms};
  return o;
}

std::unique_ptr<mail::MailService> serviceFor(const mail::MailOptions& o) {
  auto service =
      std::make_unique<mail::MailService>(o, std::make_unique<mail::SmtpTransport>(o.smtp));
  service->start();
  return service;
}

// The CA that signed the test server's certificate.
std::string testCa() {
  return SmtpServer::certificates().caFile;
}

}  // namespace

class SmtpDeliveryTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(SmtpDeliveryTest);
  CPPUNIT_TEST(testPlainSmtp);
  CPPUNIT_TEST(testStartTlsAndAuth);
  CPPUNIT_TEST(testStartTlsAutoUsedWhenOffered);
  CPPUNIT_TEST(testStartTlsOffSendsInClear);
  CPPUNIT_TEST(testRequiredRefusesServerWithoutStartTls);
  CPPUNIT_TEST(testUntrustedCertificateRefused);
  CPPUNIT_TEST(testCertificateForAnotherNameRefused);
  CPPUNIT_TEST(testPasswordNeverInClear);
  CPPUNIT_TEST(testWrongPasswordNotLogged);
  CPPUNIT_TEST(testSlowServerDoesNotHoldUpSend);
  CPPUNIT_TEST(testDeliveredOnThirdAttempt);
  CPPUNIT_TEST(testUnreachableServerGivenUp);
  CPPUNIT_TEST(testPermanentRefusalNotRetried);
  CPPUNIT_TEST(testStopDrainsThenDrops);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testPlainSmtp() {
    LogCapture log;
    SmtpServer server;
    auto service = serviceFor(optionsFor(server));
    service->send(resetMessage());
    const auto mails = server.waitForMessages(1);
    const auto& m = mails.front();
    CPPUNIT_ASSERT_EQUAL(std::string("no-reply@rapport.test"), m.mailFrom);
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, m.rcptTos.size());
    CPPUNIT_ASSERT_EQUAL(std::string("ann@example.com"), m.rcptTos.front());
    CPPUNIT_ASSERT(!m.tls);
    CPPUNIT_ASSERT_EQUAL(std::string(""), m.authUser);
    CPPUNIT_ASSERT_EQUAL(std::string("Rapport <no-reply@rapport.test>"), m.from);
    CPPUNIT_ASSERT_EQUAL(std::string("ann@example.com"), m.to);
    CPPUNIT_ASSERT_EQUAL(std::string(kSubject), m.subject);
    CPPUNIT_ASSERT_EQUAL(std::string("multipart/alternative"), m.contentType);
    CPPUNIT_ASSERT_EQUAL(std::string("Hello Ann,\nyour token is ") + kToken + "\n", m.text);
    CPPUNIT_ASSERT(m.html.find(std::string("<b>") + kToken + "</b>") != std::string::npos);
    CPPUNIT_ASSERT(m.messageId.rfind("<mail_", 0) == 0);
    CPPUNIT_ASSERT(m.messageId.find("@rapport.test>") != std::string::npos);
    CPPUNIT_ASSERT(!m.date.empty());
    service->stop();
    CPPUNIT_ASSERT_EQUAL(1, log.countLines({"msg=\"mail sent\"", "purpose=password-reset",
                                            "to_domain=example.com", "attempt=1"}));
    CPPUNIT_ASSERT(!log.contains(kToken));
    CPPUNIT_ASSERT(!log.contains(kSubject));
    CPPUNIT_ASSERT(!log.contains("ann@"));  // the domain only
  }

  void testStartTlsAndAuth() {
    LogCapture log;
    SmtpServer server(
        SmtpServer::Options().withRequiredStartTls().withAuth(std::string("mailer:") + kPassword));
    auto o = optionsFor(server);
    o.smtp.startTls = mail::StartTls::Required;
    o.smtp.caFile = testCa();
    o.smtp.username = "mailer";
    o.smtp.password = kPassword;
    auto service = serviceFor(o);
    service->send(resetMessage());
    const auto m = server.waitForMessages(1).front();
    CPPUNIT_ASSERT(m.tls);
    CPPUNIT_ASSERT_EQUAL(std::string("mailer"), m.authUser);
    CPPUNIT_ASSERT(m.text.find(kToken) != std::string::npos);
    service->stop();
    CPPUNIT_ASSERT(log.contains("mail sent"));
    CPPUNIT_ASSERT(!log.contains(kPassword));
    CPPUNIT_ASSERT(!log.contains(kToken));
    CPPUNIT_ASSERT(!log.contains(kSubject));
  }

  void testStartTlsAutoUsedWhenOffered() {
    SmtpServer server(SmtpServer::Options().withStartTls());
    auto o = optionsFor(server);
    o.smtp.caFile = testCa();  // starttls=auto, the default
    auto service = serviceFor(o);
    service->send(resetMessage());
    CPPUNIT_ASSERT(server.waitForMessages(1).front().tls);
  }

  void testStartTlsOffSendsInClear() {
    SmtpServer server(SmtpServer::Options().withStartTls());
    auto o = optionsFor(server);
    o.smtp.startTls = mail::StartTls::Off;
    auto service = serviceFor(o);
    service->send(resetMessage());
    CPPUNIT_ASSERT(!server.waitForMessages(1).front().tls);
  }

  void testRequiredRefusesServerWithoutStartTls() {
    LogCapture log;
    SmtpServer server;
    auto o = optionsFor(server);
    o.smtp.startTls = mail::StartTls::Required;
    auto service = serviceFor(o);
    service->send(resetMessage());
    waitFor([&] { return log.contains("given up"); }, "the mailer to give up");
    CPPUNIT_ASSERT_EQUAL(1, log.countLines({"will retry", "attempt=1", "does not offer STARTTLS"}));
    CPPUNIT_ASSERT_EQUAL(1, log.countLines({"will retry", "attempt=2", "does not offer STARTTLS"}));
    CPPUNIT_ASSERT_EQUAL(1, log.countLines({"given up", "attempt=3", "purpose=password-reset",
                                            "to_domain=example.com", "does not offer STARTTLS"}));
    CPPUNIT_ASSERT_EQUAL(0, log.countLines({"mail sent"}));
    CPPUNIT_ASSERT(server.files().empty());
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, service->queued());
  }

  void testUntrustedCertificateRefused() {
    LogCapture log;
    const auto& other = SmtpServer::untrustedCertificates();
    SmtpServer server(
        SmtpServer::Options().withStartTls().withCertificate(other.certFile, other.keyFile));
    auto o = optionsFor(server);
    o.smtp.caFile = testCa();  // trusts the other CA only
    o.retrySchedule = {0ms};
    auto service = serviceFor(o);
    service->send(resetMessage());
    waitFor([&] { return log.contains("given up"); }, "the mailer to give up");
    CPPUNIT_ASSERT_EQUAL(1, log.countLines({"given up", "certificate verify failed"}));
    CPPUNIT_ASSERT(server.files().empty());
  }

  void testCertificateForAnotherNameRefused() {
    LogCapture log;
    const auto& wrong = SmtpServer::wrongNameCertificates();
    SmtpServer server(
        SmtpServer::Options().withStartTls().withCertificate(wrong.certFile, wrong.keyFile));
    auto o = optionsFor(server);
    o.smtp.caFile = wrong.caFile;  // a trusted chain, for mail.other.test only
    o.retrySchedule = {0ms};
    auto service = serviceFor(o);
    service->send(resetMessage());
    waitFor([&] { return log.contains("given up"); }, "the mailer to give up");
    CPPUNIT_ASSERT_EQUAL(1, log.countLines({"given up", "certificate is not valid for 127.0.0.1"}));
    CPPUNIT_ASSERT(server.files().empty());
  }

  void testPasswordNeverInClear() {
    LogCapture log;
    SmtpServer server;  // no STARTTLS
    auto o = optionsFor(server);
    o.smtp.username = "mailer";
    o.smtp.password = kPassword;
    o.retrySchedule = {0ms};
    auto service = serviceFor(o);
    service->send(resetMessage());
    waitFor([&] { return log.contains("given up"); }, "the mailer to give up");
    CPPUNIT_ASSERT_EQUAL(1, log.countLines({"given up", "refusing to send the password in clear"}));
    CPPUNIT_ASSERT(server.files().empty());
    CPPUNIT_ASSERT(!log.contains(kPassword));
    CPPUNIT_ASSERT(server.log().find("AUTH") == std::string::npos);
  }

  void testWrongPasswordNotLogged() {
    LogCapture log;
    SmtpServer server(SmtpServer::Options().withStartTls().withAuth("mailer:right-one"));
    auto o = optionsFor(server);
    o.smtp.caFile = testCa();
    o.smtp.username = "mailer";
    o.smtp.password = kPassword;
    o.retrySchedule = {0ms, 10ms};
    auto service = serviceFor(o);
    service->send(resetMessage());
    waitFor([&] { return log.contains("given up"); }, "the mailer to give up");
    CPPUNIT_ASSERT_EQUAL(1, log.countLines({"will retry", "attempt=1", "535"}));
    CPPUNIT_ASSERT_EQUAL(1, log.countLines({"given up", "attempt=2", "535"}));
    CPPUNIT_ASSERT(server.files().empty());
    CPPUNIT_ASSERT(!log.contains(kPassword));
    CPPUNIT_ASSERT(!log.contains(kToken));
    CPPUNIT_ASSERT(!log.contains(kSubject));
  }

  void testSlowServerDoesNotHoldUpSend() {
    SmtpServer server(SmtpServer::Options().withDelay(2.0));
    auto service = serviceFor(optionsFor(server));
    const auto before = std::chrono::steady_clock::now();
    service->send(resetMessage());
    service->send(resetMessage("bob@example.org"));
    const auto took = std::chrono::steady_clock::now() - before;
    CPPUNIT_ASSERT_MESSAGE("send() waited for the server", took < 200ms);
    CPPUNIT_ASSERT(server.files().empty());  // the server is still sleeping
    const auto mails = server.waitForMessages(2);
    CPPUNIT_ASSERT_EQUAL(std::string("ann@example.com"), mails[0].rcptTos.front());
    CPPUNIT_ASSERT_EQUAL(std::string("bob@example.org"), mails[1].rcptTos.front());
  }

  void testDeliveredOnThirdAttempt() {
    LogCapture log;
    SmtpServer server(SmtpServer::Options().withFailFirst(2));
    auto o = optionsFor(server);
    o.retrySchedule = {0ms, 50ms, 50ms, 50ms};
    auto service = serviceFor(o);
    service->send(resetMessage());
    const auto m = server.waitForMessages(1).front();
    CPPUNIT_ASSERT(m.text.find(kToken) != std::string::npos);
    service->stop();
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, server.files().size());
    CPPUNIT_ASSERT_EQUAL(1, log.countLines({"will retry", "attempt=1", "451"}));
    CPPUNIT_ASSERT_EQUAL(1, log.countLines({"will retry", "attempt=2", "451"}));
    CPPUNIT_ASSERT_EQUAL(1, log.countLines({"mail sent", "attempt=3"}));
    CPPUNIT_ASSERT_EQUAL(0, log.countLines({"given up"}));
  }

  void testUnreachableServerGivenUp() {
    LogCapture log;
    int port = 0;
    {
      SmtpServer gone;  // a port that was just free, now closed
      port = gone.port();
    }
    mail::MailOptions o;
    o.smtp.host = "127.0.0.1";
    o.smtp.port = port;
    o.smtp.timeout = 2s;
    o.retrySchedule = {0ms, 20ms};
    auto service = serviceFor(o);
    service->send(resetMessage());
    waitFor([&] { return log.contains("given up"); }, "the mailer to give up");
    CPPUNIT_ASSERT_EQUAL(1, log.countLines({"will retry", "attempt=1", "retry_in_ms=20"}));
    CPPUNIT_ASSERT_EQUAL(1, log.countLines({"given up", "attempt=2"}));
  }

  void testPermanentRefusalNotRetried() {
    LogCapture log;
    SmtpServer server(SmtpServer::Options().withRejectedRecipient("gone@example.com"));
    auto o = optionsFor(server);
    o.retrySchedule = {0ms, 10ms, 10ms};
    auto service = serviceFor(o);
    service->send(resetMessage("gone@example.com"));
    service->send(resetMessage());
    server.waitForMessages(1);
    service->stop();
    CPPUNIT_ASSERT_EQUAL(
        1, log.countLines({"mail refused, given up", "attempt=1", "RCPT TO refused: 550 5.1.1"}));
    CPPUNIT_ASSERT_EQUAL(0, log.countLines({"will retry"}));
    CPPUNIT_ASSERT_EQUAL(1, log.countLines({"mail sent", "to_domain=example.com"}));
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, server.files().size());
  }

  void testStopDrainsThenDrops() {
    LogCapture log;
    SmtpServer server(SmtpServer::Options().withDelay(3.0));
    auto o = optionsFor(server);
    o.drainTimeout = 1s;
    auto service = serviceFor(o);
    service->send(resetMessage());
    service->send(resetMessage("bob@example.org"));
    service->stop();  // the first is delivered (3 s), the second is past the drain
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, server.files().size());
    CPPUNIT_ASSERT_EQUAL(1, log.countLines({"mail sent", "to_domain=example.com"}));
    CPPUNIT_ASSERT_EQUAL(1, log.countLines({"mail dropped at shutdown", "to_domain=example.org"}));
    CPPUNIT_ASSERT_EQUAL(1, log.countLines({"mail not sent before shutdown", "dropped=1"}));
    // After stop(): dropped at once, logged.
    service->send(resetMessage());
    CPPUNIT_ASSERT_EQUAL(1, log.countLines({"the mailer has stopped"}));
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, service->queued());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(SmtpDeliveryTest);
