// Reading a list request (rapport/record_query.h): the query string of a
// list, or the JSON body of POST <list>/search.
#include <charconv>

#include "compiled.h"
#include "rapport/error.h"

namespace rapport {
namespace {

// "a,b,c" -> {"a", "b", "c"}; an empty element stays, and is refused as an
// unknown name by the part that reads the list.
std::vector<std::string> commaList(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    out.push_back(text.substr(start, comma == std::string::npos ? comma : comma - start));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

// A list member of a search body: an array of strings or a comma list.
std::vector<std::string> listMember(const Json& body, const char* name, FieldErrors& errors) {
  const Json* value = body.find(name);
  if (!value || value->isNull()) return {};
  if (value->isString()) return commaList(value->asString());
  std::vector<std::string> out;
  if (value->isArray()) {
    for (const Json& item : value->asArray()) {
      if (!item.isString() || item.asString().empty()) break;
      out.push_back(item.asString());
    }
    if (out.size() == value->size()) return out;
  }
  errors[name].push_back(std::string("The ") + name + " must be an array of names.");
  return {};
}

const char* const kLimitMessage = "The limit must be an integer between 1 and 100.";

std::optional<std::int64_t> parseLimit(const std::string& text) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 1 ||
      value > query::kMaxLimit) {
    return std::nullopt;
  }
  return value;
}

Json parseFilterText(const std::string& text, FieldErrors& errors) {
  try {
    Json filter = Json::parse(text);
    if (filter.isObject()) return filter;
  } catch (const JsonParseError&) {
  }
  errors["filter"].push_back("The filter must be a JSON object.");
  return nullptr;
}

}  // namespace

ListRequest RecordQuery::read(const Request& request) const {
  ListRequest list;
  list.caller = request.identity;
  FieldErrors errors;
  if (auto text = request.queryParam("filter")) list.filter = parseFilterText(*text, errors);
  if (auto text = request.queryParam("sort")) list.sort = commaList(*text);
  if (auto text = request.queryParam("fields")) list.fields = commaList(*text);
  if (auto text = request.queryParam("include")) {
    list.include = commaList(*text);
  }
  if (auto text = request.queryParam("limit")) {
    list.cursorMode = true;
    if (auto limit = parseLimit(*text)) {
      list.limit = *limit;
    } else {
      errors["limit"].push_back(kLimitMessage);
    }
  }
  if (auto text = request.queryParam("cursor")) {
    list.cursorMode = true;
    list.cursor = *text;
    if (text->empty()) errors["cursor"].push_back("The cursor is not valid for this list.");
  }
  if (auto text = request.queryParam("count")) {
    if (*text != "true" && *text != "false") {
      errors["count"].push_back("The count must be true or false.");
    }
    list.count = *text == "true";
  }
  try {
    list.page = parsePage(request);
  } catch (const Error& error) {  // page and per_page named with the others
    for (const auto& [field, messages] : error.errors()) errors[field] = messages;
  }
  if (!errors.empty()) throw Error::validation(std::move(errors));
  return list;
}

ListRequest RecordQuery::readBody(const Json& body) const {
  ListRequest list;
  list.cursorMode = true;
  FieldErrors errors;
  if (const Json* filter = body.find("filter"); filter && !filter->isNull()) {
    if (filter->isObject()) {
      list.filter = *filter;
    } else {
      errors["filter"].push_back("The filter must be a JSON object.");
    }
  }
  list.sort = listMember(body, "sort", errors);
  list.fields = listMember(body, "fields", errors);
  list.include = listMember(body, "include", errors);
  if (const Json* limit = body.find("limit"); limit && !limit->isNull()) {
    if (limit->isInt() && limit->asInt() >= 1 && limit->asInt() <= query::kMaxLimit) {
      list.limit = limit->asInt();
    } else {
      errors["limit"].push_back(kLimitMessage);
    }
  }
  if (const Json* cursor = body.find("cursor"); cursor && !cursor->isNull()) {
    if (cursor->isString() && !cursor->asString().empty()) {
      list.cursor = cursor->asString();
    } else {
      errors["cursor"].push_back("The cursor is not valid for this list.");
    }
  }
  if (const Json* count = body.find("count"); count && !count->isNull()) {
    if (count->isBool()) {
      list.count = count->asBool();
    } else {
      errors["count"].push_back("The count must be true or false.");
    }
  }
  if (!errors.empty()) throw Error::validation(std::move(errors));
  return list;
}

}  // namespace rapport
