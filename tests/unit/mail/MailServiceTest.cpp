// The mailer's pieces without a network or a database: the outbox
// transport (files, modes, names, parseable MIME, the point of no return),
// refusals of header injection, the mail.* settings, and Letter
// composition. The outbox table and its sender are unit.mail_outbox.
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
#include "mail/OutboxTransport.h"
#include "mail/SmtpTransport.h"
#include "support/TestEnv.h"
#include "support/smtp/SmtpServer.h"

namespace mail = rapport::host::mail;
namespace fs = std::filesystem;
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

// A point of no return that only counts its calls.
struct Counted {
  int calls = 0;
  mail::PointOfNoReturn hook() {
    return [this] { ++calls; };
  }
};

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
  CPPUNIT_TEST(testOutboxRenameIsThePointOfNoReturn);
  CPPUNIT_TEST(testTextOnlyMessage);
  CPPUNIT_TEST(testHeaderInjectionRefused);
  CPPUNIT_TEST(testSettings);
  CPPUNIT_TEST(testSettingsRefused);
  CPPUNIT_TEST(testLetterComposition);
  CPPUNIT_TEST(testLetterEscapesEverything);
  CPPUNIT_TEST(testLetterThroughMime);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testOutboxWritesParseableMail() {
    const std::string outbox = rapport::test::tempDirectory("outbox") + "/data/outbox";
    mail::OutboxTransport transport(outbox);
    const auto envelope = mail::makeEnvelope(message(), "hello@rapport.test");
    Counted point;
    transport.deliver(envelope, point.hook());
    CPPUNIT_ASSERT_EQUAL(1, point.calls);
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
    // The id in the name is the one of the log, of the outbox table and of the Message-ID.
    CPPUNIT_ASSERT_EQUAL(envelope.id, name.substr(name.find("mail_"), 31));
    CPPUNIT_ASSERT_EQUAL("<" + envelope.id + "@rapport.test>", m.messageId);
  }

  void testOutboxNamesSortInSendOrder() {
    const std::string outbox = rapport::test::tempDirectory("outbox") + "/outbox";
    mail::OutboxTransport transport(outbox);
    Counted point;
    for (int i = 0; i < 12; ++i) {
      transport.deliver(
          mail::makeEnvelope(message("user" + std::to_string(i) + "@example.com"), "a@b.test"),
          point.hook());
    }
    const auto files = outboxFiles(outbox);
    CPPUNIT_ASSERT_EQUAL(std::size_t{12}, files.size());
    for (int i = 0; i < 12; ++i) {
      CPPUNIT_ASSERT_EQUAL("user" + std::to_string(i) + "@example.com", readMail(files[i]).to);
    }
  }

  // The file is complete before the point of no return and in place only
  // after it: a point that throws (the sender lost its claim) leaves no file.
  void testOutboxRenameIsThePointOfNoReturn() {
    const std::string outbox = rapport::test::tempDirectory("outbox");
    mail::OutboxTransport transport(outbox);
    std::size_t seenAtThePoint = 99;
    try {
      transport.deliver(mail::makeEnvelope(message(), "a@b.test"), [&] {
        seenAtThePoint = outboxFiles(outbox).size();
        throw std::runtime_error("claim lost");
      });
      CPPUNIT_FAIL("the point of no return's exception was swallowed");
    } catch (const std::runtime_error& e) {
      CPPUNIT_ASSERT_EQUAL(std::string("claim lost"), std::string(e.what()));
    }
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, seenAtThePoint);
    CPPUNIT_ASSERT_EQUAL(std::size_t{0}, outboxFiles(outbox, true).size());
  }

  void testTextOnlyMessage() {
    mail::MailMessage m = message();
    m.html.clear();
    m.subject = "Réinitialiser — ünïcode";
    m.text = "Ligne un\r\nLigne deux é\n";
    const auto envelope = mail::makeEnvelope(m, "no-reply@rapport.test");
    const std::string dir = rapport::test::tempDirectory("mime");
    Counted point;
    mail::OutboxTransport(dir).deliver(envelope, point.hook());
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

  // MailService::send() builds the envelope first, so what makeEnvelope
  // refuses never reaches the outbox table (unit.mail_outbox checks that).
  void testHeaderInjectionRefused() {
    const std::string from = "no-reply@localhost";
    for (const std::string to :
         {"ann@example.com\r\nBcc: eve@evil.test", "ann@example.com\nBcc: eve@evil.test",
          "ann@example.com, eve@evil.test", "Ann <ann@example.com>", "<ann@example.com>",
          "ann@example.com;eve@evil.test", "ann example@example.com", "ann.example.com",
          "ann@@example.com", "ann@", "@example.com", "", "\"ann\"@example.com",
          "ann@example.com\t"}) {
      const std::string what = invalidArgument([&] { mail::makeEnvelope(message(to), from); });
      CPPUNIT_ASSERT_EQUAL_MESSAGE(to, std::string("mail recipient must be one plain address"),
                                   what);
    }
    mail::MailMessage bad = message();
    bad.subject = "Hello\r\nBcc: eve@evil.test";
    CPPUNIT_ASSERT_EQUAL(std::string("mail subject must not contain a line break"),
                         invalidArgument([&] { mail::makeEnvelope(bad, from); }));
    bad.subject = "Hello\nX-Evil: 1";
    invalidArgument([&] { mail::makeEnvelope(bad, from); });
    // A plain address with a plus, dots, a sub-domain and UTF-8 passes.
    mail::makeEnvelope(message("ann.o'neil+reset@mail.example.co.uk"), from);
    mail::makeEnvelope(message("zoë@exämple.test"), from);
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
    const std::vector<std::chrono::milliseconds> schedule = {0s, 30s, 2min, 10min, 30min};
    CPPUNIT_ASSERT(d.retrySchedule == schedule);
    CPPUNIT_ASSERT(d.lease == 100s);  // ten SMTP steps of mail.smtp.timeout
    CPPUNIT_ASSERT(o.lease == 300s);
    config.values["mail.retry_schedule"] = "0, 5,60";
    const std::vector<std::chrono::milliseconds> custom = {0s, 5s, 60s};
    CPPUNIT_ASSERT(mail::MailOptions::fromConfig(config).retrySchedule == custom);
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
        {{{"mail.retry_schedule", ""}}, "mail.retry_schedule must list 1 to 20 delays in seconds"},
        {{{"mail.retry_schedule", "0,30s"}},
         "mail.retry_schedule: \"30s\" is not a number of seconds from 0 to 86400"},
        {{{"mail.retry_schedule", "0,-1"}},
         "mail.retry_schedule: \"-1\" is not a number of seconds from 0 to 86400"},
        {{{"mail.retry_schedule", "86401"}},
         "mail.retry_schedule: \"86401\" is not a number of seconds from 0 to 86400"},
    };
    for (const auto& [values, expected] : cases) {
      MapConfig config;
      config.values = values;
      CPPUNIT_ASSERT_EQUAL(expected,
                           invalidArgument([&] { mail::MailOptions::fromConfig(config); }));
    }
    MapConfig badCa{{"mail.smtp.host", "smtp.example.com"},
                    {"mail.smtp.ca_file", "/nonexistent/ca.pem"}};
    CPPUNIT_ASSERT_THROW(mail::SmtpTransport(mail::MailOptions::fromConfig(badCa).smtp),
                         std::exception);
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
    Counted point;
    mail::OutboxTransport(dir).deliver(mail::makeEnvelope(mail::compose(letter), "a@example.com"),
                                       point.hook());
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
