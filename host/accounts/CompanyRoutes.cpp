#include "accounts/CompanyRoutes.h"

#include "accounts/CompanyStore.h"
#include "rapport/error.h"
#include "rapport/ids.h"
#include "rapport/pagination.h"
#include "rapport/roles.h"
#include "rapport/time.h"
#include "rapport/validation.h"

namespace rapport::host::accounts {

namespace {

// {id, name, role, created_at, joined_at}: a company as one of its members
// sees it. created_at is the company's; joined_at (an addition) is when the
// caller became a member, the default order of the list.
Json companyJson(const CompanyRecord& company, Role role, std::int64_t joinedAt) {
  return Json::object({{"id", company.id},
                       {"name", company.name},
                       {"role", std::string(rapport::roleName(role))},
                       {"created_at", rapport::isoTimestamp(company.createdAt)},
                       {"joined_at", rapport::isoTimestamp(joinedAt)}});
}

}  // namespace

void CompanyRoutes::registerOn(rapport::Registry& registry) {
  registry.route("GET", "/user/companies", [this](const Request& req) { return list(req); });
  registry.route("POST", "/user/companies", [this](const Request& req) { return create(req); });
  registry.route("GET", "/user/companies/{id}", [this](const Request& req) { return show(req); });
}

rapport::Response CompanyRoutes::list(const rapport::Request& req) {
  const PageRequest page = rapport::parsePage(req);
  const Sort sort =
      rapport::parseSort(req, companies::listSortColumns(), companies::defaultListSort());
  const std::string& userId = req.identity.userId;
  Json items = Json::array();
  for (const MemberCompany& item :
       companies::listFor(ctx_.db, userId, sort, page.perPage, page.offset())) {
    items.push(companyJson(item.company, item.role, item.joinedAt));
  }
  return rapport::Response::list(std::move(items),
                                 rapport::pageMeta(page, companies::countFor(ctx_.db, userId)));
}

rapport::Response CompanyRoutes::create(const rapport::Request& req) {
  Validator v(req.bodyObject());
  auto name = v.string("name", {.required = true, .max = 255});
  v.check();
  CompanyRecord company;
  ctx_.db.transaction("", [&](Tx& tx) {
    company = companies::createOwned(tx, *name.value, req.identity.userId, ctx_.clock());
  });
  // The creator joins as the company is created.
  return rapport::Response::created(companyJson(company, Role::Owner, company.createdAt),
                                    "Company created.");
}

rapport::Response CompanyRoutes::show(const rapport::Request& req) {
  const std::string& id = req.param("id");
  // Absent, wrongly prefixed, or not the caller's: the company does not exist for them.
  std::optional<MemberCompany> item;
  if (rapport::hasPrefix(id, "comp_")) item = companies::findFor(ctx_.db, id, req.identity.userId);
  if (!item) throw rapport::Error::notFound("Company not found.");
  Json data = companyJson(item->company, item->role, item->joinedAt);
  data.set("members_count", companies::memberCount(ctx_.db, id));
  return rapport::Response::ok(std::move(data));
}

}  // namespace rapport::host::accounts
