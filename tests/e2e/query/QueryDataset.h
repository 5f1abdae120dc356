// The dataset most e2e.query tests read: one tenant with CRM companies,
// contacts, deals (in two pipelines) and activities, created once, oldest
// first in the order below, never changed by a test (tests that write make
// their own tenant).
//
// CRM companies:
//   acme  "Acme Retail"    industry "Retail"          revenue 500000  tags Big
//   bolt  "bolt Mining"    industry "Mining"          revenue 100000  tags small
//   cask  "Cask"           (no industry)              (no revenue)    (no tags)
//   dyna  "Dyna Foods"     industry "Retail & Food"   revenue 250000  tags BIG
// Contacts:
//   alice "Alice Walker"  alice@north.io  job CEO    tags VIP, Lead  company acme  owner me
//   bob   "bob stone"     bob@south.io    (no job)   tags lead       company acme  owner colleague
//   carol "Carol Stone"   carol@north.io  job cto    tags Cold       company bolt  (no owner)
//   dan   "Dan Ode"       (no e-mail)     (no job)   (no tags)       (no company)  owner me
//   erin  "erin zed"      erin@west.io    job Buyer  tags vip        company dyna  (no owner)
//   fay   "Fay Acre"      fay@east.io     (no job)   (no tags)       company cask  owner colleague
// Deals (status after win/lose; probability 10 is the Lead stage's default):
//   engine  "Big engine"   sales/Proposal  open  250000  alice acme  me         2027-01-15  40 Big,
//   q1 parts   "Small parts"  sales/Lead      open    5000  bob   acme  (none)     2027-03-01  10
//   q2 fleet   "Fleet"        sales/Closing   won   100000  carol bolt  colleague  2026-12-31  90
//   audit   "Audit"        sales/Proposal  lost  120000  -     -     (none)     (none)      50
//   renewal "Renewal"      renewals/Renew  open  100000  alice cask  (none)     2027-02-10  30
//   mega    "Mega"         renewals/Renew  won   900000  erin  dyna  me         2027-06-30  100 BIG
// Activities (scheduled_at as sent; the instant in UTC):
//   callAlice  call     pending    2026-12-01T09:00:00Z       (09:00Z)  30 min  me         contact
//   alice meetAcme   meeting  completed  2026-12-01T14:00:00+02:00  (12:00Z)  60 min  (none)
//   company acme sendQuote  task     pending    (none)                               (none)
//   colleague  deal engine mailBob    email    completed  2026-11-30T23:30:00-05:00  (04:30Z)  15
//   min  (none)     contact bob note       note     pending    (none) (none)  (none)     (none)
#pragma once

#include <cppunit/TestFixture.h>

#include <memory>
#include <string>

#include "e2e/query/QuerySuite.h"

namespace rapport::e2e::query {

struct Dataset {
  Account account;    // the owner: "me"
  Account colleague;  // a member of account's company: the other owner
  std::string acme, bolt, cask, dyna;
  std::string alice, bob, carol, dan, erin, fay;
  Pipeline sales, renewals;
  std::string engine, parts, fleet, audit, renewal, mega;
  std::string callAlice, meetAcme, sendQuote, mailBob, note;

  Ids companies() const { return {acme, bolt, cask, dyna}; }
  Ids contacts() const { return {alice, bob, carol, dan, erin, fay}; }
  Ids deals() const { return {engine, parts, fleet, audit, renewal, mega}; }
  Ids activities() const { return {callAlice, meetAcme, sendQuote, mailBob, note}; }
};

namespace detail {

inline Dataset makeDataset() {
  HttpClient client(queryServer().port());
  Dataset d;
  d.account = registerUser(client, "query");
  d.colleague = registerUser(client, "query-colleague");
  const std::string& token = d.account.token;
  const HttpResult added =
      client.post("/v1/company/members",
                  Json::object({{"email", d.colleague.email}, {"role", "member"}}), bearer(token));
  if (added.status != 200) E2E_ASSERT_STATUS(201, added);
  const std::string me = d.account.userId;
  const std::string colleague = d.colleague.userId;

  const auto company = [&](Json body) {
    return createCrmCompany(client, token, std::move(body))["id"].asString();
  };
  d.acme = company(Json::object({{"name", "Acme Retail"},
                                 {"industry", "Retail"},
                                 {"annual_revenue", 500000},
                                 {"tags", Json::Array{"Big"}}}));
  d.bolt = company(Json::object({{"name", "bolt Mining"},
                                 {"industry", "Mining"},
                                 {"annual_revenue", 100000},
                                 {"tags", Json::Array{"small"}}}));
  d.cask = company(Json::object({{"name", "Cask"}}));
  d.dyna = company(Json::object({{"name", "Dyna Foods"},
                                 {"industry", "Retail & Food"},
                                 {"annual_revenue", 250000},
                                 {"tags", Json::Array{"BIG"}}}));

  const auto contact = [&](Json body) {
    return createContact(client, token, std::move(body))["id"].asString();
  };
  d.alice = contact(Json::object({{"name", "Alice Walker"},
                                  {"email", "alice@north.io"},
                                  {"job_title", "CEO"},
                                  {"tags", Json::Array{"VIP", "Lead"}},
                                  {"company_id", d.acme},
                                  {"owner_id", me}}));
  d.bob = contact(Json::object({{"name", "bob stone"},
                                {"email", "bob@south.io"},
                                {"tags", Json::Array{"lead"}},
                                {"company_id", d.acme},
                                {"owner_id", colleague}}));
  d.carol = contact(Json::object({{"name", "Carol Stone"},
                                  {"email", "carol@north.io"},
                                  {"job_title", "cto"},
                                  {"tags", Json::Array{"Cold"}},
                                  {"company_id", d.bolt}}));
  d.dan = contact(Json::object({{"name", "Dan Ode"}, {"owner_id", me}}));
  d.erin = contact(Json::object({{"name", "erin zed"},
                                 {"email", "erin@west.io"},
                                 {"job_title", "Buyer"},
                                 {"tags", Json::Array{"vip"}},
                                 {"company_id", d.dyna}}));
  d.fay = contact(Json::object({{"name", "Fay Acre"},
                                {"email", "fay@east.io"},
                                {"company_id", d.cask},
                                {"owner_id", colleague}}));

  d.sales = salesPipeline(client, token);  // Lead 10, Proposal 50, Closing 90
  d.renewals = createPipeline(client, token, "Renewals", {{"Renew", 30}});
  const auto deal = [&](const Pipeline& pipeline, std::size_t stage, Json body) {
    body.set("pipeline_id", pipeline.id);
    body.set("stage_id", pipeline.stages.at(stage));
    return createDeal(client, token, std::move(body))["id"].asString();
  };
  d.engine = deal(d.sales, 1,
                  Json::object({{"title", "Big engine"},
                                {"value", 250000},
                                {"contact_id", d.alice},
                                {"company_id", d.acme},
                                {"owner_id", me},
                                {"expected_close_date", "2027-01-15"},
                                {"probability", 40},
                                {"tags", Json::Array{"Big", "q1"}}}));
  d.parts = deal(d.sales, 0,
                 Json::object({{"title", "Small parts"},
                               {"value", 5000},
                               {"contact_id", d.bob},
                               {"company_id", d.acme},
                               {"expected_close_date", "2027-03-01"},
                               {"tags", Json::Array{"q2"}}}));
  d.fleet = deal(d.sales, 2,
                 Json::object({{"title", "Fleet"},
                               {"value", 100000},
                               {"contact_id", d.carol},
                               {"company_id", d.bolt},
                               {"owner_id", colleague},
                               {"expected_close_date", "2026-12-31"},
                               {"probability", 90}}));
  d.audit =
      deal(d.sales, 1, Json::object({{"title", "Audit"}, {"value", 120000}, {"probability", 50}}));
  d.renewal = deal(d.renewals, 0,
                   Json::object({{"title", "Renewal"},
                                 {"value", 100000},
                                 {"contact_id", d.alice},
                                 {"company_id", d.cask},
                                 {"expected_close_date", "2027-02-10"},
                                 {"probability", 30}}));
  d.mega = deal(d.renewals, 0,
                Json::object({{"title", "Mega"},
                              {"value", 900000},
                              {"contact_id", d.erin},
                              {"company_id", d.dyna},
                              {"owner_id", me},
                              {"expected_close_date", "2027-06-30"},
                              {"probability", 100},
                              {"tags", Json::Array{"BIG"}}}));
  for (const std::string& won : {d.fleet, d.mega}) {
    E2E_ASSERT_DATA(200,
                    client.post("/v1/crm/deals/" + won + "/win", Json::object(), bearer(token)));
  }
  E2E_ASSERT_DATA(200,
                  client.post("/v1/crm/deals/" + d.audit + "/lose", Json::object(), bearer(token)));

  const auto activity = [&](Json body) {
    return createActivity(client, token, std::move(body))["id"].asString();
  };
  d.callAlice = activity(Json::object({{"type", "call"},
                                       {"title", "Call Alice"},
                                       {"scheduled_at", "2026-12-01T09:00:00Z"},
                                       {"duration_minutes", 30},
                                       {"owner_id", me},
                                       {"related_to", related("contact", d.alice)}}));
  d.meetAcme = activity(Json::object({{"type", "meeting"},
                                      {"title", "Meet Acme"},
                                      {"scheduled_at", "2026-12-01T14:00:00+02:00"},
                                      {"duration_minutes", 60},
                                      {"related_to", related("company", d.acme)}}));
  d.sendQuote = activity(Json::object({{"type", "task"},
                                       {"title", "Send quote"},
                                       {"owner_id", colleague},
                                       {"related_to", related("deal", d.engine)}}));
  d.mailBob = activity(Json::object({{"type", "email"},
                                     {"title", "Mail Bob"},
                                     {"scheduled_at", "2026-11-30T23:30:00-05:00"},
                                     {"duration_minutes", 15},
                                     {"related_to", related("contact", d.bob)}}));
  d.note = activity(Json::object({{"type", "note"}, {"title", "Note"}}));
  for (const std::string& done : {d.meetAcme, d.mailBob}) {
    E2E_ASSERT_DATA(200, client.post("/v1/crm/activities/" + done + "/complete", Json::object(),
                                     bearer(token)));
  }
  return d;
}

}  // namespace detail

inline const Dataset& dataset() {
  static const Dataset data = detail::makeDataset();
  return data;
}

inline const std::string kContacts = "/v1/crm/contacts";
inline const std::string kCompanies = "/v1/crm/companies";
inline const std::string kDeals = "/v1/crm/deals";
inline const std::string kActivities = "/v1/crm/activities";

// The fixture of the e2e.query suites: a client of the suite's server and
// the dataset's token, fresh for each test.
class QueryFixture : public CppUnit::TestFixture {
 public:
  void setUp() override {
    client_ = std::make_unique<HttpClient>(queryServer().port());
    token_ = dataset().account.token;
  }
  void tearDown() override { client_.reset(); }

 protected:
  // GET <path>?<query> as the dataset's owner, or as `token`.
  HttpResult get(const std::string& path, const std::string& query, const std::string& token = "") {
    return client_->get(path + "?" + query, bearer(token.empty() ? token_ : token));
  }

  std::unique_ptr<HttpClient> client_;
  std::string token_;
};

}  // namespace rapport::e2e::query
