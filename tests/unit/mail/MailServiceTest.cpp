// The mailer without a network: the outbox transport (files, modes, names,
// parseable MIME), the queue (bounded, drained at stop), refusals of
// header injection, the mail.* settings, and Letter composition.
#include <cppunit/extensions/HelperMacros.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <stdexcept>

#include "MailTestSupport.h"
#include "mail/Envelope.h"
#include "mail/Letter.h"
#include "mail/MailOptions.h"
#include "mail/MailService.h"
#include "mail/OutboxTransport.h"
#include "support/TestEnv.h"
#include "support/smtp/SmtpServer.h"

namespace mail = rapport::host::mail;
namespace fs = std::filesystem;
using rapport::test::mail::LogCapture;
using rapport::test::mail::MapConfig;
using rapport::test::smtp::readMail;
using namespace std::chrono_literals;

namespace {

mail::MailMessage message(const std::string& to = "ann@example.com",
                          const std::string& text = "Your code is 424242.") {
  return {to, "Your sign-in code", text, "<p>" + text + "</p>", "two-factor-code"};
}

std::vector<std::string> outboxFiles(const std::string& dir, bool hiddenToo = false) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (hiddenToo || name.front() != '.') out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

mode_t modeOf(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw std::runtime_error("cannot stat " + path);
  return st.st_mode & 07777;
}

template <typename Fn>
std::string invalidArgument(Fn&& fn) {
  try {
    fn();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  throw std::runtime_error("expected std::invalid_argument, none was thrown");
}

}  // namespace

class MailServiceTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(MailServiceTest);
  CPPUNIT_TEST(testOutboxWritesParseableMail);
  CPPUNIT_TEST(testOutboxNamesSortInSendOrder);
  CPPUNIT_TEST(testTextOnlyMessage);
  CPPUNIT_TEST(testHeaderInjectionRefused);
  CPPUNIT_TEST(testFullQueueDropsNewMessage);
  CPPUNIT_TEST(testStopDeliversWhatIsQueued);
  CPPUNIT_TEST(testSettings);
  CPPUNIT_TEST(testSettingsRefused);
  CPPUNIT_TEST(testLetterComposition);
  CPPUNIT_TEST(testLetterEscapesEverything);
  CPPUNIT_TEST(testLetterThroughMime);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testOutboxWritesParseableMail() {
    LogCapture log;
    const std::string outbox = rapport::test::tempDirectory("outbox") + "/data/outbox";
    MapConfig config{{"mail.outbox", outbox}, {"mail.from", "hello@rapport.test"}};
    auto service = mail::MailService::fromConfig(config);
    service->start();
    service->send(message());
    service->stop();  // drains: the file is there when stop() returns
    CPPUNIT_ASSERT_EQUAL(mode_t{0700}, modeOf(outbox));
    const auto files = outboxFiles(outbox, true);
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, files.size());  // no temporary file left
    const std::string name = fs::path(files[0]).filename().string();
    CPPUNIT_ASSERT_MESSAGE(
        name,
        std::regex_match(name, std::regex(R"(\d{8}T\d{6}\.\d{6}Z-\d{6}-mail_[a-z0-9]{26}\.eml)")));
    CPPUNIT_ASSERT_EQUAL(mode_t{0600}, modeOf(files[0]));
    const auto m = readMail(files[0]);
    CPPUNIT_ASSERT_EQUAL(std::string("Rapport <hello@rapport.test>"), m.from);
    CPPUNIT_ASSERT_EQUAL(std::string("ann@example.com"), m.to);
    CPPUNIT_ASSERT_EQUAL(std::string("Your sign-in code"), m.subject);
    CPPUNIT_ASSERT_EQUAL(std::string("multipart/alternative"), m.contentType);
    CPPUNIT_ASSERT_EQUAL(std::string("Your code is 424242."), m.text);
    CPPUNIT_ASSERT_EQUAL(std::string("<p>Your code is 424242.</p>"), m.html);
    CPPUNIT_ASSERT(m.raw.find("\r\nMime-Version: 1.0\r\n") != std::string::npos);
    CPPUNIT_ASSERT(m.raw.find("Auto-Submitted: auto-generated") != std::string::npos);
    // The id in the name is the one of the log and of the Message-ID.
    const std::string id = name.substr(name.find("mail_"), 31);
    CPPUNIT_ASSERT_EQUAL("<" + id + "@rapport.test>", m.messageId);
    CPPUNIT_ASSERT_EQUAL(1, log.countLines({"mail sent", "mail_id=" + id, "purpose=two-factor-code",
                                            "to_domain=example.com"}));
    CPPUNIT_ASSERT(!log.contains("424242"));
  }

  void testOutboxNamesSortInSendOrder() {
    const std::string outbox = rapport::test::tempDirectory("outbox") + "/outbox";
    mail::MailOptions o;
    o.outbox = outbox;
    mail::MailService service(o, std::make_unique<mail::OutboxTransport>(outbox));
    service.start();
    for (int i = 0; i < 12; ++i) service.send(message("user" + std::to_string(i) + "@example.com"));
    service.stop();
    const auto files = outboxFiles(outbox);
    CPPUNIT_ASSERT_EQUAL(std::size_t{12}, files.size());
    for (int i = 0; i < 12; ++i) {
      CPPUNIT_ASSERT_EQUAL("user" + std::to_string(i) + "@example.com", readMail(files[i]).to);
    }
  }

  void testTextOnlyMessage() {
    mail::MailMessage m = message();
    m.html.clear();
    m.subject = "Réinitialiser — ünïcode";
    m.text = "Ligne un\r\nLigne deux é\n";
    const auto envelope = mail::makeEnvelope(m, "no-reply@rapport.test");
    const std::string dir = rapport::test::tempDirectory("mime");
    mail::OutboxTransport(dir).deliver(envelope);
    const auto parsed = readMail(outboxFiles(dir).front());
    CPPUNIT_ASSERT_EQUAL(std::string("text/plain"), parsed.contentType);
    CPPUNIT_ASSERT_EQUAL(std::string("Réinitialiser — ünïcode"), parsed.subject);
    CPPUNIT_ASSERT_EQUAL(std::string("Ligne un\nLigne deux é\n"), parsed.text);
    CPPUNIT_ASSERT_EQUAL(std::string(""), parsed.html);
    // Every line of the file ends with CRLF.
    for (std::size_t i = 0; i < parsed.raw.size(); ++i) {
      if (parsed.raw[i] == '\n') CPPUNIT_ASSERT(i > 0 && parsed.raw[i - 1] == '\r');
    }
    CPPUNIT_ASSERT(parsed.raw.find("Subject: =?UTF-8?") != std::string::npos);
  }

  void testHeaderInjectionRefused() {
    const std::string outbox = rapport::test::tempDirectory("outbox");
    mail::MailOptions o;
    mail::MailService service(o, std::make_unique<mail::OutboxTransport>(outbox));
    for (const std::string to :
         {"ann@example.com\r\nBcc: eve@evil.test", "ann@example.com\nBcc: eve@evil.test",
          "ann@example.com, eve@evil.test", "Ann <ann@example.com>", "<ann@example.com>",
          "ann@example.com;eve@evil.test", "ann example@example.com", "ann.example.com",
          "ann@@example.com", "ann@", "@example.com", "", "\"ann\"@example.com",
          "ann@example.com\t"}) {
      const std::string what = invalidArgument([&] { service.send(message(to)); });
      CPPUNIT_ASSERT_EQUAL_MESSAGE(to, std::string("mail recipient must be one plain address"),
                                   what);
    }
    mail::MailMessage bad = message();
    bad.subject = "Hello\r\nBcc: eve@evil.test";
    CPPUNIT_ASSERT_EQUAL(std::string("mail subject must not contain a line break"),
                         invalidArgument([&] { service.send(bad); }));
    bad.subject = "Hello\nX-Evil: 1";
    invalidArgument([&] { service.send(bad); });
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, service.queued());
    // A plain address with a plus, dots, a sub-domain and UTF-8 passes.
    service.send(message("ann.o'neil+reset@mail.example.co.uk"));
    service.send(message("zoë@exämple.test"));
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, service.queued());
  }

  void testFullQueueDropsNewMessage() {
    LogCapture log;
    const std::string outbox = rapport::test::tempDirectory("outbox");
    mail::MailOptions o;
    o.queueSize = 2;
    mail::MailService service(o, std::make_unique<mail::OutboxTransport>(outbox));
    service.send(message("a@example.com"));  // not started: queued
    service.send(message("b@example.com"));
    service.send(message("c@example.net"));  // dropped, and send() does not throw
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, service.queued());
    CPPUNIT_ASSERT_EQUAL(
        1, log.countLines({"level=error", "mail dropped: queue full", "purpose=two-factor-code",
                           "to_domain=example.net", "queue_size=2"}));
    service.start();
    service.stop();
    const auto files = outboxFiles(outbox);
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, files.size());
    CPPUNIT_ASSERT_EQUAL(std::string("a@example.com"), readMail(files[0]).to);
    CPPUNIT_ASSERT_EQUAL(std::string("b@example.com"), readMail(files[1]).to);
  }

  void testStopDeliversWhatIsQueued() {
    LogCapture log;
    const std::string outbox = rapport::test::tempDirectory("outbox");
    mail::MailOptions o;
    o.drainTimeout = 10s;
    mail::MailService service(o, std::make_unique<mail::OutboxTransport>(outbox));
    service.start();
    for (int i = 0; i < 20; ++i) service.send(message());
    service.stop();
    CPPUNIT_ASSERT_EQUAL(std::size_t{20}, outboxFiles(outbox).size());
    CPPUNIT_ASSERT_EQUAL(0, log.countLines({"dropped"}));
    service.stop();  // twice is fine
  }

  void testSettings() {
    const std::string outbox = rapport::test::tempDirectory("outbox") + "/o";
    MapConfig config{{"mail.outbox", outbox},
                     {"mail.from", "no-reply@example.com"},
                     {"mail.smtp.host", "smtp.example.com"},
                     {"mail.smtp.port", "587"},
                     {"mail.smtp.username", "apikey"},
                     {"mail.smtp.password", "secret"},
                     {"mail.smtp.starttls", "required"},
                     {"mail.smtp.timeout", "30"},
                     {"mail.queue_size", "50"}};
    const auto o = mail::MailOptions::fromConfig(config);
    CPPUNIT_ASSERT_EQUAL(std::string("no-reply@example.com"), o.from);
    CPPUNIT_ASSERT_EQUAL(std::string("smtp.example.com"), o.smtp.host);
    CPPUNIT_ASSERT_EQUAL(587, o.smtp.port);
    CPPUNIT_ASSERT_EQUAL(std::string("apikey"), o.smtp.username);
    CPPUNIT_ASSERT_EQUAL(std::string("secret"), o.smtp.password);
    CPPUNIT_ASSERT(o.smtp.startTls == mail::StartTls::Required);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{30}, static_cast<std::int64_t>(o.smtp.timeout.count()));
    CPPUNIT_ASSERT_EQUAL(std::size_t{50}, o.queueSize);
    // Defaults.
    const auto d = mail::MailOptions::fromConfig(MapConfig{});
    CPPUNIT_ASSERT_EQUAL(std::string("no-reply@localhost"), d.from);
    CPPUNIT_ASSERT_EQUAL(std::string("data/outbox"), d.outbox);
    CPPUNIT_ASSERT_EQUAL(std::string(""), d.smtp.host);
    CPPUNIT_ASSERT_EQUAL(25, d.smtp.port);
    CPPUNIT_ASSERT(d.smtp.startTls == mail::StartTls::Auto);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{10}, static_cast<std::int64_t>(d.smtp.timeout.count()));
    CPPUNIT_ASSERT_EQUAL(std::size_t{1000}, d.queueSize);
    CPPUNIT_ASSERT_EQUAL(std::size_t{5}, d.retrySchedule.size());
    // With a host, SMTP; without, the outbox (created at once).
    CPPUNIT_ASSERT(!fs::exists(outbox));
    mail::MailService::fromConfig(config);
    CPPUNIT_ASSERT(!fs::exists(outbox));
    config.values.erase("mail.smtp.host");
    mail::MailService::fromConfig(config);
    CPPUNIT_ASSERT(fs::is_directory(outbox));
  }

  void testSettingsRefused() {
    const std::vector<std::pair<std::map<std::string, std::string>, std::string>> cases = {
        {{{"mail.smtp.starttls", "yes"}},
         "mail.smtp.starttls must be auto, required or off (got 'yes')"},
        {{{"mail.smtp.username", "u"}},
         "mail.smtp.username and mail.smtp.password must be set together (or both unset)"},
        {{{"mail.smtp.password", "p"}},
         "mail.smtp.username and mail.smtp.password must be set together (or both unset)"},
        {{{"mail.smtp.username", "u"}, {"mail.smtp.password", "p"}, {"mail.smtp.starttls", "off"}},
         "mail.smtp.starttls=off with mail.smtp.username would send the password in clear"},
        {{{"mail.smtp.port", "0"}}, "mail.smtp.port must be between 1 and 65535 (got 0)"},
        {{{"mail.smtp.timeout", "0"}}, "mail.smtp.timeout must be between 1 and 300 (got 0)"},
        {{{"mail.queue_size", "0"}}, "mail.queue_size must be between 1 and 1000000 (got 0)"},
        {{{"mail.from", "Rapport <no-reply@example.com>"}},
         "mail.from must be one plain address like no-reply@example.com"},
        {{{"mail.from", "no-reply@example.com\r\nBcc: x@y.z"}},
         "mail.from must be one plain address like no-reply@example.com"},
        {{{"mail.outbox", ""}}, "mail.outbox must not be empty"},
    };
    for (const auto& [values, expected] : cases) {
      MapConfig config;
      config.values = values;
      CPPUNIT_ASSERT_EQUAL(expected,
                           invalidArgument([&] { mail::MailOptions::fromConfig(config); }));
    }
    MapConfig badCa{{"mail.smtp.host", "smtp.example.com"},
                    {"mail.smtp.ca_file", "/nonexistent/ca.pem"}};
    CPPUNIT_ASSERT_THROW(mail::MailService::fromConfig(badCa), std::exception);
  }

  void testLetterComposition() {
    mail::Letter letter;
    letter.to = "ann@example.com";
    letter.purpose = "two-factor-code";
    letter.subject = "Your sign-in code";
    letter.heading = "Your sign-in code";
    letter.paragraphs = {"Hello Ann,", "Enter this code to finish signing in."};
    letter.code = "424242";
    letter.closing = {"If you did not try to sign in, change your password."};
    const mail::MailMessage m = mail::compose(letter);
    CPPUNIT_ASSERT_EQUAL(std::string("ann@example.com"), m.to);
    CPPUNIT_ASSERT_EQUAL(std::string("two-factor-code"), m.purpose);
    CPPUNIT_ASSERT_EQUAL(std::string("Rapport: Your sign-in code"), m.subject);
    CPPUNIT_ASSERT_EQUAL(std::string("Your sign-in code\n\n"
                                     "Hello Ann,\n\n"
                                     "Enter this code to finish signing in.\n\n"
                                     "    424242\n\n"
                                     "If you did not try to sign in, change your password.\n\n"
                                     "-- \nRapport\n"
                                     "This is an automated message; replies are not read.\n"),
                         m.text);
    CPPUNIT_ASSERT(m.html.find("<h1 style=\"font-size:20px\">Your sign-in code</h1>") !=
                   std::string::npos);
    CPPUNIT_ASSERT(m.html.find("<p>Hello Ann,</p>") != std::string::npos);
    CPPUNIT_ASSERT(m.html.find(">424242</p>") != std::string::npos);
    CPPUNIT_ASSERT(m.html.find("Rapport &middot;") != std::string::npos);
    CPPUNIT_ASSERT(m.html.find("<title>Rapport: Your sign-in code</title>") != std::string::npos);
    // Long paragraphs are wrapped at 72 columns in the text, never a URL.
    letter.code.clear();
    letter.paragraphs = {
        std::string(30, 'a') + " " + std::string(30, 'b') + " " + std::string(30, 'c'),
        "Open https://app.example.com/reset?token=" + std::string(80, 'x') +
            "&email=ann%40example.com."};
    const mail::MailMessage wrapped = mail::compose(letter);
    CPPUNIT_ASSERT(wrapped.text.find(std::string(30, 'a') + " " + std::string(30, 'b') + "\n" +
                                     std::string(30, 'c') + "\n") != std::string::npos);
    CPPUNIT_ASSERT(
        wrapped.text.find("Open\nhttps://app.example.com/reset?token=" + std::string(80, 'x') +
                          "&email=ann%40example.com.\n") != std::string::npos);
    // In the HTML the URL is a link (escaped), the full stop outside it.
    const std::string url = "https://app.example.com/reset?token=" + std::string(80, 'x') +
                            "&amp;email=ann%40example.com";
    CPPUNIT_ASSERT(wrapped.html.find("Open <a href=\"" + url + "\">" + url + "</a>.") !=
                   std::string::npos);
  }

  void testLetterEscapesEverything() {
    mail::Letter letter;
    letter.to = "ann@example.com";
    letter.subject = "S";
    letter.heading = "<script>alert(1)</script>";
    letter.paragraphs = {"Hello <b>Eve</b> & \"friends\" 'x'",
                         "javascript:alert(1) https://x.test/\"onmouseover=\"alert(1)"};
    letter.code = "<img src=x>";
    letter.closing = {"</p><p>bye"};
    const mail::MailMessage m = mail::compose(letter);
    for (const char* raw : {"<script>", "<b>Eve", "<img", "</p><p>bye", "\"onmouseover=\""}) {
      CPPUNIT_ASSERT_MESSAGE(raw, m.html.find(raw) == std::string::npos);
    }
    CPPUNIT_ASSERT(m.html.find("&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
    CPPUNIT_ASSERT(
        m.html.find("Hello &lt;b&gt;Eve&lt;/b&gt; &amp; &quot;friends&quot; &#39;x&#39;") !=
        std::string::npos);
    CPPUNIT_ASSERT(m.html.find("&lt;img src=x&gt;") != std::string::npos);
    CPPUNIT_ASSERT(m.html.find("<a href=\"https://x.test/&quot;onmouseover=&quot;alert(1\">") !=
                   std::string::npos);
    // The text part is text: nothing escaped there.
    CPPUNIT_ASSERT(m.text.find("Hello <b>Eve</b> & \"friends\" 'x'") != std::string::npos);
  }

  void testLetterThroughMime() {
    mail::Letter letter;
    letter.to = "zoë@example.com";
    letter.purpose = "password-reset";
    letter.subject = "Réinitialisez votre mot de passe";
    letter.heading = "Bonjour Zoë";
    letter.paragraphs = {"Voici votre jeton :"};
    letter.code = "tok-ÄÖÜ-123";
    const std::string dir = rapport::test::tempDirectory("mime");
    mail::OutboxTransport(dir).deliver(mail::makeEnvelope(mail::compose(letter), "a@example.com"));
    const auto parsed = readMail(outboxFiles(dir).front());
    CPPUNIT_ASSERT_EQUAL(std::string("Rapport: Réinitialisez votre mot de passe"), parsed.subject);
    CPPUNIT_ASSERT_EQUAL(std::string("zoë@example.com"), parsed.to);
    CPPUNIT_ASSERT(parsed.text.find("    tok-ÄÖÜ-123\n") != std::string::npos);
    CPPUNIT_ASSERT(parsed.html.find(">tok-ÄÖÜ-123</p>") != std::string::npos);
    CPPUNIT_ASSERT(parsed.html.find("<h1 style=\"font-size:20px\">Bonjour Zoë</h1>") !=
                   std::string::npos);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(MailServiceTest);
