// The SMTP transport against a real SMTP server on loopback
// (tests/support/smtp, aiosmtpd): plain SMTP, STARTTLS with a throw-away CA,
// AUTH, refusals (STARTTLS required but not offered, an untrusted
// certificate, a password that would go in clear), what each failure is
// (retryable, PermanentFailure, TemporaryRefusal or unknown) and where the
// point of no return lies: after the whole message, before its final ".".
// The outbox table's sender over SMTP is unit.mail_outbox.
#include <cppunit/extensions/HelperMacros.h>

#include <chrono>
#include <functional>
#include <memory>

#include "MailTestSupport.h"
#include "mail/Envelope.h"
#include "mail/SmtpTransport.h"
#include "support/smtp/SmtpServer.h"

namespace mail = rapport::host::mail;
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

mail::SmtpOptions optionsFor(const SmtpServer& server) {
  mail::SmtpOptions o;
  o.host = "127.0.0.1";
  o.port = server.port();
  o.timeout = 10s;
  return o;
}

// One delivery: what it threw (nothing: ""), which kind, and whether the
// point of no return was reached.
struct Outcome {
  std::string error;
  enum class Kind { None, Permanent, Temporary, Other } kind = Kind::None;
  int points = 0;
};

Outcome deliver(const mail::SmtpOptions& o, const mail::MailMessage& m = resetMessage(),
                const std::function<void()>& atThePoint = {}) {
  Outcome out;
  try {
    mail::SmtpTransport(o).deliver(mail::makeEnvelope(m, "no-reply@rapport.test"), [&] {
      ++out.points;
      if (atThePoint) atThePoint();
    });
  } catch (const mail::PermanentFailure& e) {
    out.error = e.what();
    out.kind = Outcome::Kind::Permanent;
  } catch (const mail::TemporaryRefusal& e) {
    out.error = e.what();
    out.kind = Outcome::Kind::Temporary;
  } catch (const std::exception& e) {
    out.error = e.what();
    out.kind = Outcome::Kind::Other;
  }
  return out;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The CA that signed the test server's certificate.
std::string testCa() {
  return SmtpServer::certificates().caFile;
}

}  // namespace

class SmtpDeliveryTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(SmtpDeliveryTest);
  CPPUNIT_TEST(testPlainSmtp);
  CPPUNIT_TEST(testDotStuffing);
  CPPUNIT_TEST(testStartTlsAndAuth);
  CPPUNIT_TEST(testStartTlsAutoUsedWhenOffered);
  CPPUNIT_TEST(testStartTlsOffSendsInClear);
  CPPUNIT_TEST(testRequiredRefusesServerWithoutStartTls);
  CPPUNIT_TEST(testUntrustedCertificateRefused);
  CPPUNIT_TEST(testCertificateForAnotherNameRefused);
  CPPUNIT_TEST(testPasswordNeverInClear);
  CPPUNIT_TEST(testWrongPasswordNotInTheError);
  CPPUNIT_TEST(testUnreachableServer);
  CPPUNIT_TEST(testRecipientRefusedIsPermanent);
  CPPUNIT_TEST(testMessageRefusedWith451IsTemporary);
  CPPUNIT_TEST(testNothingSentPastALostPoint);
  CPPUNIT_TEST(testNoAnswerToTheEndIsUnknown);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testPlainSmtp() {
    SmtpServer server;
    const Outcome out = deliver(optionsFor(server));
    CPPUNIT_ASSERT_EQUAL(std::string(""), out.error);
    CPPUNIT_ASSERT_EQUAL(1, out.points);
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
    CPPUNIT_ASSERT(contains(m.html, std::string("<b>") + kToken + "</b>"));
    CPPUNIT_ASSERT(m.messageId.rfind("<mail_", 0) == 0);
    CPPUNIT_ASSERT(contains(m.messageId, "@rapport.test>"));
    CPPUNIT_ASSERT(!m.date.empty());
  }

  // Lines that start with "." arrive as written (the transport doubles the
  // dot, the server removes it), and a lone "." does not end the message.
  void testDotStuffing() {
    SmtpServer server;
    mail::MailMessage m = resetMessage();
    m.html.clear();
    m.text = ".hidden\n.\n..two\nlast line\n";
    CPPUNIT_ASSERT_EQUAL(std::string(""), deliver(optionsFor(server), m).error);
    CPPUNIT_ASSERT_EQUAL(m.text, server.waitForMessages(1).front().text);
  }

  void testStartTlsAndAuth() {
    SmtpServer server(
        SmtpServer::Options().withRequiredStartTls().withAuth(std::string("mailer:") + kPassword));
    auto o = optionsFor(server);
    o.startTls = mail::StartTls::Required;
    o.caFile = testCa();
    o.username = "mailer";
    o.password = kPassword;
    CPPUNIT_ASSERT_EQUAL(std::string(""), deliver(o).error);
    const auto m = server.waitForMessages(1).front();
    CPPUNIT_ASSERT(m.tls);
    CPPUNIT_ASSERT_EQUAL(std::string("mailer"), m.authUser);
    CPPUNIT_ASSERT(contains(m.text, kToken));
  }

  void testStartTlsAutoUsedWhenOffered() {
    SmtpServer server(SmtpServer::Options().withStartTls());
    auto o = optionsFor(server);
    o.caFile = testCa();  // starttls=auto, the default
    CPPUNIT_ASSERT_EQUAL(std::string(""), deliver(o).error);
    CPPUNIT_ASSERT(server.waitForMessages(1).front().tls);
  }

  void testStartTlsOffSendsInClear() {
    SmtpServer server(SmtpServer::Options().withStartTls());
    auto o = optionsFor(server);
    o.startTls = mail::StartTls::Off;
    CPPUNIT_ASSERT_EQUAL(std::string(""), deliver(o).error);
    CPPUNIT_ASSERT(!server.waitForMessages(1).front().tls);
  }

  void testRequiredRefusesServerWithoutStartTls() {
    SmtpServer server;
    auto o = optionsFor(server);
    o.startTls = mail::StartTls::Required;
    const Outcome out = deliver(o);
    CPPUNIT_ASSERT(out.kind == Outcome::Kind::Other);  // retried: the server may change
    CPPUNIT_ASSERT(contains(out.error, "does not offer STARTTLS"));
    CPPUNIT_ASSERT_EQUAL(0, out.points);
    CPPUNIT_ASSERT(server.files().empty());
  }

  void testUntrustedCertificateRefused() {
    const auto& other = SmtpServer::untrustedCertificates();
    SmtpServer server(
        SmtpServer::Options().withStartTls().withCertificate(other.certFile, other.keyFile));
    auto o = optionsFor(server);
    o.caFile = testCa();  // trusts the other CA only
    const Outcome out = deliver(o);
    CPPUNIT_ASSERT_MESSAGE(out.error, contains(out.error, "certificate verify failed"));
    CPPUNIT_ASSERT_EQUAL(0, out.points);
    CPPUNIT_ASSERT(server.files().empty());
  }

  void testCertificateForAnotherNameRefused() {
    const auto& wrong = SmtpServer::wrongNameCertificates();
    SmtpServer server(
        SmtpServer::Options().withStartTls().withCertificate(wrong.certFile, wrong.keyFile));
    auto o = optionsFor(server);
    o.caFile = wrong.caFile;  // a trusted chain, for mail.other.test only
    const Outcome out = deliver(o);
    CPPUNIT_ASSERT_MESSAGE(out.error,
                           contains(out.error, "certificate is not valid for 127.0.0.1"));
    CPPUNIT_ASSERT(server.files().empty());
  }

  void testPasswordNeverInClear() {
    SmtpServer server;  // no STARTTLS
    auto o = optionsFor(server);
    o.username = "mailer";
    o.password = kPassword;
    const Outcome out = deliver(o);
    CPPUNIT_ASSERT(contains(out.error, "refusing to send the password in clear"));
    CPPUNIT_ASSERT(!contains(out.error, kPassword));
    CPPUNIT_ASSERT(server.files().empty());
    CPPUNIT_ASSERT(!contains(server.log(), "AUTH"));
  }

  void testWrongPasswordNotInTheError() {
    SmtpServer server(SmtpServer::Options().withStartTls().withAuth("mailer:right-one"));
    auto o = optionsFor(server);
    o.caFile = testCa();
    o.username = "mailer";
    o.password = kPassword;
    const Outcome out = deliver(o);
    CPPUNIT_ASSERT(out.kind == Outcome::Kind::Other);  // retried: a relay being reconfigured
    CPPUNIT_ASSERT_MESSAGE(out.error, contains(out.error, "535"));
    CPPUNIT_ASSERT(!contains(out.error, kPassword));
    CPPUNIT_ASSERT(!contains(out.error, kToken));
    CPPUNIT_ASSERT(!contains(out.error, kSubject));
    CPPUNIT_ASSERT(server.files().empty());
  }

  void testUnreachableServer() {
    int port = 0;
    {
      SmtpServer gone;  // a port that was just free, now closed
      port = gone.port();
    }
    mail::SmtpOptions o;
    o.host = "127.0.0.1";
    o.port = port;
    o.timeout = 2s;
    const Outcome out = deliver(o);
    CPPUNIT_ASSERT(out.kind == Outcome::Kind::Other);
    CPPUNIT_ASSERT_EQUAL(0, out.points);
  }

  void testRecipientRefusedIsPermanent() {
    SmtpServer server(SmtpServer::Options().withRejectedRecipient("gone@example.com"));
    const Outcome out = deliver(optionsFor(server), resetMessage("gone@example.com"));
    CPPUNIT_ASSERT(out.kind == Outcome::Kind::Permanent);
    CPPUNIT_ASSERT_MESSAGE(out.error, contains(out.error, "RCPT TO refused: 550 5.1.1"));
    CPPUNIT_ASSERT_EQUAL(0, out.points);
  }

  // A 451 answer to the end of the data: past the point of no return, but
  // the server said no, so another attempt is safe (TemporaryRefusal).
  void testMessageRefusedWith451IsTemporary() {
    SmtpServer server(SmtpServer::Options().withFailFirst(1));
    const Outcome first = deliver(optionsFor(server));
    CPPUNIT_ASSERT(first.kind == Outcome::Kind::Temporary);
    CPPUNIT_ASSERT_MESSAGE(first.error, contains(first.error, "message refused: 451"));
    CPPUNIT_ASSERT_EQUAL(1, first.points);
    CPPUNIT_ASSERT(server.files().empty());
    CPPUNIT_ASSERT_EQUAL(std::string(""), deliver(optionsFor(server)).error);
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, server.waitForMessages(1).size());
  }

  // The whole message went out before the point; when the point throws (the
  // sender lost its claim), the final "." is never sent and the server
  // stores nothing. A second delivery shows the server was working.
  void testNothingSentPastALostPoint() {
    SmtpServer server;
    const Outcome lost =
        deliver(optionsFor(server), resetMessage(), [] { throw std::runtime_error("claim lost"); });
    CPPUNIT_ASSERT_EQUAL(std::string("claim lost"), lost.error);
    CPPUNIT_ASSERT_EQUAL(1, lost.points);
    CPPUNIT_ASSERT_EQUAL(std::string(""),
                         deliver(optionsFor(server), resetMessage("b@x.test")).error);
    const auto mails = server.waitForMessages(1);
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, server.files().size());
    CPPUNIT_ASSERT_EQUAL(std::string("b@x.test"), mails.front().rcptTos.front());
  }

  // No answer to the final "." within the timeout: the outcome is unknown
  // (neither refusal type): the server may have taken the message, so the
  // sender does not try again (unit.mail_outbox).
  void testNoAnswerToTheEndIsUnknown() {
    SmtpServer server(SmtpServer::Options().withDelay(3.0));
    auto o = optionsFor(server);
    o.timeout = 1s;
    const Outcome out = deliver(o);
    CPPUNIT_ASSERT(out.kind == Outcome::Kind::Other);
    CPPUNIT_ASSERT_MESSAGE(out.error, contains(out.error, "no answer to the end of the message"));
    CPPUNIT_ASSERT_EQUAL(1, out.points);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(SmtpDeliveryTest);
