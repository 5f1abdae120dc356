#include "mail/Letter.h"

#include <string_view>

namespace rapport::host::mail {

namespace {

constexpr std::size_t kTextWidth = 72;
constexpr const char* kFooter = "This is an automated message; replies are not read.";

std::string escapeHtml(const std::string& text) {
  std::string out;
  out.reserve(text.size() + 16);
  for (char c : text) {
    switch (c) {
      case '&':
        out.append("&amp;");
        break;
      case '<':
        out.append("&lt;");
        break;
      case '>':
        out.append("&gt;");
        break;
      case '"':
        out.append("&quot;");
        break;
      case '\'':
        out.append("&#39;");
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// A paragraph as HTML: escaped, http(s) URLs made links (the URL escaped as
// both the attribute and the text; trailing punctuation left outside).
std::string paragraphHtml(const std::string& text) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const bool atWordStart = i == 0 || isSpace(text[i - 1]);
    if (atWordStart &&
        (text.compare(i, 8, "https://") == 0 || text.compare(i, 7, "http://") == 0)) {
      std::size_t end = i;
      while (end < text.size() && !isSpace(text[end])) ++end;
      while (end > i && std::string_view(".,;:!?)").find(text[end - 1]) != std::string::npos) {
        --end;
      }
      const std::string url = escapeHtml(text.substr(i, end - i));
      out.append("<a href=\"").append(url).append("\">").append(url).append("</a>");
      i = end;
      continue;
    }
    const std::size_t next = text.find_first_of(" \t\r\n", i);
    const std::size_t stop = next == std::string::npos ? text.size() : next + 1;
    out.append(escapeHtml(text.substr(i, stop - i)));
    i = stop;
  }
  return out;
}

// Words joined into lines of at most kTextWidth columns (a longer word, a
// URL for example, keeps a line of its own and is never broken).
std::string wrap(const std::string& text) {
  std::string out;
  std::size_t lineLength = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && isSpace(text[i])) ++i;
    if (i >= text.size()) break;
    std::size_t end = i;
    while (end < text.size() && !isSpace(text[end])) ++end;
    const std::size_t length = end - i;
    if (lineLength > 0 && lineLength + 1 + length > kTextWidth) {
      out.push_back('\n');
      lineLength = 0;
    } else if (lineLength > 0) {
      out.push_back(' ');
      ++lineLength;
    }
    out.append(text, i, length);
    lineLength += length;
    i = end;
  }
  return out;
}

}  // namespace

MailMessage compose(const Letter& letter) {
  MailMessage m;
  m.to = letter.to;
  m.purpose = letter.purpose;
  m.subject = std::string(kProductName) + ": " + letter.subject;

  std::string text = letter.heading + "\n\n";
  for (const auto& p : letter.paragraphs) text += wrap(p) + "\n\n";
  if (!letter.code.empty()) text += "    " + letter.code + "\n\n";
  for (const auto& p : letter.closing) text += wrap(p) + "\n\n";
  text += std::string("-- \n") + kProductName + "\n" + kFooter + "\n";
  m.text = std::move(text);

  const std::string product = escapeHtml(kProductName);
  std::string html =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + escapeHtml(m.subject) +
      "</title></head>\n"
      "<body style=\"font-family:-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;"
      "color:#222;line-height:1.5;max-width:560px;margin:0 auto;padding:24px\">\n"
      "<h1 style=\"font-size:20px\">" +
      escapeHtml(letter.heading) + "</h1>\n";
  for (const auto& p : letter.paragraphs) html += "<p>" + paragraphHtml(p) + "</p>\n";
  if (!letter.code.empty()) {
    html +=
        "<p style=\"font-family:Menlo,Consolas,monospace;font-size:24px;letter-spacing:2px;"
        "background:#f3f3f3;padding:12px 16px;display:inline-block;"
        "word-break:break-all\">" +
        escapeHtml(letter.code) + "</p>\n";
  }
  for (const auto& p : letter.closing) html += "<p>" + paragraphHtml(p) + "</p>\n";
  html +=
      "<hr style=\"border:none;border-top:1px solid #ddd\">\n<p style=\"color:#777;font-size:"
      "12px\">" +
      product + " &middot; " + escapeHtml(kFooter) + "</p>\n</body></html>\n";
  m.html = std::move(html);
  return m;
}

}  // namespace rapport::host::mail
