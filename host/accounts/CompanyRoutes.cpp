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

// {id, name, role, created_at}: a company as one of its members sees it.
Json companyJson(const CompanyRecord& company, Role role) {
  return Json::object({{"id", company.id},
                       {"name", company.name},
                       {"role", std::string(rapport::roleName(role))},
                       {"created_at", rapport::isoTimestamp(company.createdAt)}});
}

}  // namespace

void CompanyRoutes::registerOn(rapport::Registry& registry) {
  registry.route("GET", "/user/companies", [this](const Request& req) { return list(req); });
  registry.route("POST", "/user/companies", [this](const Request& req) { return create(req); });
  registry.route("GET", "/user/companies/{id}", [this](const Request& req) { return show(req); });
}

rapport::Response CompanyRoutes::list(const rapport::Request& req) {
  const PageRequest page = rapport::parsePage(req);
  const std::string& userId = req.identity.userId;
  Json items = Json::array();
  for (const MemberCompany& item :
       companies::listFor(ctx_.db, userId, page.perPage, page.offset())) {
    items.push(companyJson(item.company, item.role));
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
  return rapport::Response::created(companyJson(company, Role::Owner), "Company created.");
}

rapport::Response CompanyRoutes::show(const rapport::Request& req) {
  const std::string& id = req.param("id");
  // Absent, wrongly prefixed, or not the caller's: the company does not exist for them.
  std::optional<Role> role;
  if (rapport::hasPrefix(id, "comp_"))
    role = companies::roleOf(ctx_.db, id, req.identity.userId);
  const std::optional<CompanyRecord> company =
      role ? companies::find(ctx_.db, id) : std::nullopt;
  if (!company) throw rapport::Error::notFound("Company not found.");
  Json data = companyJson(*company, *role);
  data.set("members_count", companies::memberCount(ctx_.db, id));
  return rapport::Response::ok(std::move(data));
}

}  // namespace rapport::host::accounts
