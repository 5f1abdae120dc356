#include "log/Log.h"

#include <unistd.h>

#include <atomic>
#include <mutex>

#include <stdexcept>

#include "rapport/json.h"
#include "rapport/time.h"

namespace rapport::host::log {
namespace {

std::atomic<int> g_level{static_cast<int>(Level::Info)};
std::atomic<Format> g_format{Format::Text};
std::mutex g_mutex;

std::string_view levelName(Level level) {
  switch (level) {
    case Level::Debug:
      return "debug";
    case Level::Info:
      return "info";
    case Level::Warn:
      return "warn";
    case Level::Error:
      return "error";
  }
  return "info";
}

void appendValue(std::string& out, std::string_view value) {
  bool quote = value.empty();
  for (char c : value) {
    if (c == ' ' || c == '"' || c == '=' || c == '\\' || static_cast<unsigned char>(c) < 0x20) {
      quote = true;
      break;
    }
  }
  if (!quote) {
    out.append(value);
    return;
  }
  out.push_back('"');
  for (char c : value) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (c == '\n') {
      out.append("\\n");
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
}

void appendTextLine(std::string& line, std::string_view timestamp, Level level,
                    std::string_view message, Fields fields) {
  line.append("ts=").append(timestamp);
  line.append(" level=").append(levelName(level));
  line.append(" msg=");
  appendValue(line, message);
  for (const auto& [key, value] : fields) {
    line.push_back(' ');
    line.append(key).push_back('=');
    appendValue(line, value);
  }
}

// The project's one JSON writer escapes (quotes, backslashes, control
// bytes, invalid UTF-8), so a line is always one valid JSON object.
void appendJsonMember(std::string& line, std::string_view key, std::string_view value) {
  if (line.size() > 1) line.push_back(',');
  Json(key).dumpTo(line);
  line.push_back(':');
  Json(value).dumpTo(line);
}

void appendJsonLine(std::string& line, std::string_view timestamp, Level level,
                    std::string_view message, Fields fields) {
  line.push_back('{');
  appendJsonMember(line, "ts", timestamp);
  appendJsonMember(line, "level", levelName(level));
  appendJsonMember(line, "msg", message);
  for (const auto& [key, value] : fields) appendJsonMember(line, key, value);
  line.push_back('}');
}

}  // namespace

void setLevel(Level level) {
  g_level = static_cast<int>(level);
}

void setFormat(Format format) {
  g_format = format;
}

Format parseFormat(std::string_view name) {
  if (name == "text") return Format::Text;
  if (name == "json") return Format::Json;
  throw std::invalid_argument("log.format must be text or json (got '" + std::string(name) + "')");
}

std::string formatLine(Format format, std::string_view timestamp, Level level,
                       std::string_view message, Fields fields) {
  std::string line;
  line.reserve(160);
  if (format == Format::Json) {
    appendJsonLine(line, timestamp, level, message, fields);
  } else {
    appendTextLine(line, timestamp, level, message, fields);
  }
  line.push_back('\n');
  return line;
}

Level parseLevel(std::string_view name) {
  if (name == "debug") return Level::Debug;
  if (name == "warn" || name == "warning") return Level::Warn;
  if (name == "error") return Level::Error;
  return Level::Info;
}

bool enabled(Level level) {
  return static_cast<int>(level) >= g_level.load();
}

void write(Level level, std::string_view message, Fields fields) {
  if (!enabled(level)) return;
  const std::string line =
      formatLine(g_format.load(), isoTimestamp(nowMicros()), level, message, fields);
  std::lock_guard lock(g_mutex);
  // One write(2) per line so lines never interleave, even across processes.
  const char* data = line.data();
  std::size_t left = line.size();
  while (left > 0) {
    ssize_t n = ::write(STDERR_FILENO, data, left);
    if (n <= 0) break;
    data += n;
    left -= static_cast<std::size_t>(n);
  }
}

}  // namespace rapport::host::log
