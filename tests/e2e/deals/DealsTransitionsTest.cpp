// The deal's state table (API States and transitions; decisions §7, §8):
// win, lose, reopen and stage moves, allowed and refused, with their events.
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/deals/DealsSuite.h"
#include "rapport/time.h"

using namespace rapport::e2e;
using namespace rapport::e2e::crm;

namespace {
using Types = std::vector<std::string>;

std::string today() {
  return rapport::isoDate(rapport::nowMicros());
}
}  // namespace

class DealsTransitionsTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(DealsTransitionsTest);
  CPPUNIT_TEST(testWin);
  CPPUNIT_TEST(testWinDefaultsToToday);
  CPPUNIT_TEST(testLose);
  CPPUNIT_TEST(testClosedDealsCannotCloseAgain);
  CPPUNIT_TEST(testReopen);
  CPPUNIT_TEST(testReopenOfAnOpenDealIs409);
  CPPUNIT_TEST(testMoveWithinThePipeline);
  CPPUNIT_TEST(testMoveToAnotherPipeline);
  CPPUNIT_TEST(testMoveRules);
  CPPUNIT_TEST(testSameStageIsANoOp);
  CPPUNIT_TEST(testMoveOfAClosedDealIs409);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testWin() {
    ServerProcess& server = dealsServer();
    HttpClient client(server.port());
    const Account account = registerUser(client, "deals-win");
    const Pipeline pipeline = salesPipeline(client, account.token);
    const Json deal = dealIn(client, account.token, pipeline, 1, "Winner", 700);
    CRM_ASSERT_FIELD_ERROR(
        client.post(dealPath(deal, "/win"), Json::object({{"won_at", "2026-02-30"}}),
                    bearer(account.token)),
        "won_at", "The won_at is not a valid date.");
    CRM_ASSERT_FIELD_ERROR(
        client.post(dealPath(deal, "/win"), Json::object({{"won_at", 5}}), bearer(account.token)),
        "won_at", "");
    CPPUNIT_ASSERT_EQUAL(deal.dump(), readDeal(client, account.token, deal).dump());

    const Json won = E2E_ASSERT_DATA(
        200, client.post(dealPath(deal, "/win"),
                         Json::object({{"won_at", "2026-03-01"}, {"notes", "Signed."}}),
                         bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(std::string("won"), won["status"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("2026-03-01"), won["won_at"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("Signed."), won["notes"].asString());
    CPPUNIT_ASSERT(won["lost_at"].isNull());
    Json expected = deal;
    expected.set("status", "won");
    expected.set("won_at", "2026-03-01");
    expected.set("notes", "Signed.");
    expected.set("updated_at", won["updated_at"]);
    CPPUNIT_ASSERT_EQUAL(expected.dump(), won.dump());
    CPPUNIT_ASSERT_EQUAL(won.dump(), readDeal(client, account.token, deal).dump());

    const auto events = dealEvents(server, account.companyId, deal["id"].asString());
    CPPUNIT_ASSERT(typesOf(events) == (Types{"crm.deal.created", "crm.deal.won"}));
    // The spec's fields of a won deal, and the rest of GET.
    CPPUNIT_ASSERT_EQUAL(won.dump(), events[1].second.dump());
  }

  void testWinDefaultsToToday() {
    HttpClient client(dealsServer().port());
    const Account account = registerUser(client, "deals-win-today");
    const Pipeline pipeline = salesPipeline(client, account.token);
    const Json deal = dealIn(client, account.token, pipeline, 0, "Today");
    const std::string before = today();
    // An empty body is fine.
    const Json won = E2E_ASSERT_DATA(
        200, client.send("POST", dealPath(deal, "/win"), std::string(), bearer(account.token)));
    const std::string after = today();
    CPPUNIT_ASSERT_MESSAGE(won.dump(),
                           won["won_at"].asString() == before || won["won_at"].asString() == after);
    CPPUNIT_ASSERT(won["notes"].isNull());
  }

  void testLose() {
    ServerProcess& server = dealsServer();
    HttpClient client(server.port());
    const Account account = registerUser(client, "deals-lose");
    const Pipeline pipeline = salesPipeline(client, account.token);
    const Json deal = dealIn(client, account.token, pipeline, 0, "Loser", 300);
    CRM_ASSERT_FIELD_ERROR(
        client.post(dealPath(deal, "/lose"), Json::object({{"lost_at", "yesterday"}}),
                    bearer(account.token)),
        "lost_at", "The lost_at is not a valid date.");
    CRM_ASSERT_FIELD_ERROR(
        client.post(dealPath(deal, "/lose"), Json::object({{"reason", std::string(1001, 'r')}}),
                    bearer(account.token)),
        "reason", "");
    CRM_ASSERT_FIELD_ERROR(
        client.post(dealPath(deal, "/lose"),
                    Json::object({{"lost_reason", std::string(1001, 'r')}}), bearer(account.token)),
        "lost_reason", "");
    const Json lost = E2E_ASSERT_DATA(
        200, client.post(dealPath(deal, "/lose"),
                         Json::object({{"lost_at", "2026-04-02"}, {"reason", " Too expensive "}}),
                         bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(std::string("lost"), lost["status"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("2026-04-02"), lost["lost_at"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("Too expensive"), lost["lost_reason"].asString());
    CPPUNIT_ASSERT(lost["won_at"].isNull());
    CPPUNIT_ASSERT_EQUAL(lost.dump(), readDeal(client, account.token, deal).dump());
    const auto events = dealEvents(server, account.companyId, deal["id"].asString());
    CPPUNIT_ASSERT(typesOf(events) == (Types{"crm.deal.created", "crm.deal.lost"}));
    CPPUNIT_ASSERT_EQUAL(lost.dump(), events[1].second.dump());

    // lost_reason is an alias of reason; without either the reason is null;
    // lost_at defaults to today.
    const Json aliased = dealIn(client, account.token, pipeline, 0, "Alias");
    const Json viaAlias = E2E_ASSERT_DATA(
        200, client.post(dealPath(aliased, "/lose"), Json::object({{"lost_reason", "Timing"}}),
                         bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(std::string("Timing"), viaAlias["lost_reason"].asString());
    CPPUNIT_ASSERT_EQUAL(today(), viaAlias["lost_at"].asString());
    const Json plain = dealIn(client, account.token, pipeline, 0, "Plain");
    const Json plainLost = E2E_ASSERT_DATA(
        200, client.post(dealPath(plain, "/lose"), Json::object(), bearer(account.token)));
    CPPUNIT_ASSERT(plainLost["lost_reason"].isNull());
  }

  void testClosedDealsCannotCloseAgain() {
    ServerProcess& server = dealsServer();
    HttpClient client(server.port());
    const Account account = registerUser(client, "deals-closed");
    const Pipeline pipeline = salesPipeline(client, account.token);
    const Json won = dealIn(client, account.token, pipeline, 0, "Won");
    const Json lost = dealIn(client, account.token, pipeline, 0, "Lost");
    E2E_ASSERT_DATA(200, client.post(dealPath(won, "/win"), Json::object(), bearer(account.token)));
    E2E_ASSERT_DATA(200,
                    client.post(dealPath(lost, "/lose"), Json::object(), bearer(account.token)));
    for (const Json& deal : {won, lost}) {
      const Json before = readDeal(client, account.token, deal);
      for (const char* action : {"/win", "/lose"}) {
        CRM_ASSERT_ERROR_MESSAGE(
            409, "The deal is already closed.",
            client.post(dealPath(deal, action), Json::object({{"won_at", "2026-01-01"}}),
                        bearer(account.token)));
      }
      CPPUNIT_ASSERT_EQUAL(before.dump(), readDeal(client, account.token, deal).dump());
      CPPUNIT_ASSERT_EQUAL(std::size_t(2),
                           dealEvents(server, account.companyId, deal["id"].asString()).size());
    }
    // An action reads the record before its body: an unknown deal is a 404
    // whatever the body says (docs/api-choices.md, the order of refusals).
    for (const char* action : {"/win", "/lose", "/reopen"}) {
      CRM_ASSERT_ERROR_MESSAGE(
          404, "Deal not found.",
          client.post(std::string("/v1/crm/deals/deal_missing") + action,
                      Json::object({{"won_at", "not a date"}, {"lost_at", "not a date"}}),
                      bearer(account.token)));
    }
  }

  void testReopen() {
    ServerProcess& server = dealsServer();
    HttpClient client(server.port());
    const Account account = registerUser(client, "deals-reopen");
    const Pipeline pipeline = salesPipeline(client, account.token);
    const Json deal = dealIn(client, account.token, pipeline, 1, "Again", 40);
    E2E_ASSERT_DATA(200,
                    client.post(dealPath(deal, "/win"), Json::object({{"won_at", "2026-01-02"}}),
                                bearer(account.token)));
    const Json reopened = E2E_ASSERT_DATA(
        200, client.post(dealPath(deal, "/reopen"), Json::object(), bearer(account.token)));
    Json expected = deal;
    expected.set("updated_at", reopened["updated_at"]);
    CPPUNIT_ASSERT_EQUAL(expected.dump(), reopened.dump());

    E2E_ASSERT_DATA(200, client.post(dealPath(deal, "/lose"),
                                     Json::object({{"lost_at", "2026-01-03"}, {"reason", "r"}}),
                                     bearer(account.token)));
    const Json again = E2E_ASSERT_DATA(
        200, client.post(dealPath(deal, "/reopen"), Json::object(), bearer(account.token)));
    for (const char* key : {"won_at", "lost_at", "lost_reason"}) {
      CPPUNIT_ASSERT_MESSAGE(key, again[key].isNull());
    }
    CPPUNIT_ASSERT_EQUAL(std::string("open"), again["status"].asString());
    // An open deal can be won again.
    E2E_ASSERT_DATA(200,
                    client.post(dealPath(deal, "/win"), Json::object(), bearer(account.token)));

    const auto events = dealEvents(server, account.companyId, deal["id"].asString());
    CPPUNIT_ASSERT(typesOf(events) == (Types{"crm.deal.created", "crm.deal.won", "crm.deal.updated",
                                             "crm.deal.lost", "crm.deal.updated", "crm.deal.won"}));
    CPPUNIT_ASSERT_EQUAL(reopened.dump(), events[2].second.dump());
    CPPUNIT_ASSERT_EQUAL(again.dump(), events[4].second.dump());
  }

  void testReopenOfAnOpenDealIs409() {
    ServerProcess& server = dealsServer();
    HttpClient client(server.port());
    const Account account = registerUser(client, "deals-reopen-open");
    const Pipeline pipeline = salesPipeline(client, account.token);
    const Json deal = dealIn(client, account.token, pipeline, 0, "Open");
    CRM_ASSERT_ERROR_MESSAGE(
        409, "The deal is already open.",
        client.post(dealPath(deal, "/reopen"), Json::object(), bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(deal.dump(), readDeal(client, account.token, deal).dump());
    CPPUNIT_ASSERT_EQUAL(std::size_t(1),
                         dealEvents(server, account.companyId, deal["id"].asString()).size());
  }

  void testMoveWithinThePipeline() {
    ServerProcess& server = dealsServer();
    HttpClient client(server.port());
    const Account account = registerUser(client, "deals-move");
    const Pipeline pipeline = salesPipeline(client, account.token);
    const Json deal = createDeal(
        client, account.token,
        Json::object(
            {{"title", "Mover"}, {"pipeline_id", pipeline.id}, {"stage_id", pipeline.stages[0]}}));
    const Json moved = E2E_ASSERT_DATA(
        200, client.patch(dealPath(deal, "/stage"),
                          Json::object({{"stage_id", pipeline.stages[2]}}), bearer(account.token)));
    Json expected = deal;
    expected.set("stage_id", pipeline.stages[2]);
    expected.set("updated_at", moved["updated_at"]);
    // The probability stays as it was (10, the first stage's).
    CPPUNIT_ASSERT_EQUAL(expected.dump(), moved.dump());
    CPPUNIT_ASSERT_EQUAL(moved.dump(), readDeal(client, account.token, deal).dump());
    // pipeline_id may name the deal's own pipeline.
    const Json back = E2E_ASSERT_DATA(
        200,
        client.patch(dealPath(deal, "/stage"),
                     Json::object({{"stage_id", pipeline.stages[1]}, {"pipeline_id", pipeline.id}}),
                     bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(pipeline.stages[1], back["stage_id"].asString());

    const auto events = dealEvents(server, account.companyId, deal["id"].asString());
    CPPUNIT_ASSERT(typesOf(events) ==
                   (Types{"crm.deal.created", "crm.deal.stage_changed", "crm.deal.stage_changed"}));
    Json data = moved;
    data.set("previous_stage_id", pipeline.stages[0]);
    CPPUNIT_ASSERT_EQUAL(data.dump(), events[1].second.dump());
    CPPUNIT_ASSERT_EQUAL(pipeline.stages[2], events[2].second["previous_stage_id"].asString());
    CPPUNIT_ASSERT(!events[2].second.contains("previous_pipeline_id"));
  }

  void testMoveToAnotherPipeline() {
    ServerProcess& server = dealsServer();
    HttpClient client(server.port());
    const Account account = registerUser(client, "deals-move-across");
    const Pipeline first = salesPipeline(client, account.token);
    const Pipeline second =
        createPipeline(client, account.token, "Renewals", {{"Due", 30}, {"Done", 95}});
    const Json deal = dealIn(client, account.token, first, 1, "Across", 5);
    // A stage of another pipeline without pipeline_id: 422.
    CRM_ASSERT_FIELD_ERROR(
        client.patch(dealPath(deal, "/stage"), Json::object({{"stage_id", second.stages[0]}}),
                     bearer(account.token)),
        "stage_id", "The stage does not belong to the pipeline.");
    const Json moved = E2E_ASSERT_DATA(
        200,
        client.patch(dealPath(deal, "/stage"),
                     Json::object({{"stage_id", second.stages[1]}, {"pipeline_id", second.id}}),
                     bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(second.id, moved["pipeline_id"].asString());
    CPPUNIT_ASSERT_EQUAL(second.stages[1], moved["stage_id"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(50), moved["probability"].asInt());
    const auto events = dealEvents(server, account.companyId, deal["id"].asString());
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), events.size());
    Json data = moved;
    data.set("previous_stage_id", first.stages[1]);
    data.set("previous_pipeline_id", first.id);
    CPPUNIT_ASSERT_EQUAL(data.dump(), events[1].second.dump());
    // Filters follow the move.
    const Json inSecond = getBody(client, account.token, "/v1/crm/deals?pipeline_id=" + second.id);
    CPPUNIT_ASSERT(idsOf(inSecond) == std::vector<std::string>{deal["id"].asString()});
  }

  void testMoveRules() {
    HttpClient client(dealsServer().port());
    const Account account = registerUser(client, "deals-move-rules");
    const Account other = registerUser(client, "deals-move-rules-other");
    const Pipeline pipeline = salesPipeline(client, account.token);
    const Pipeline second = createPipeline(client, account.token, "Second", {{"Only", 20}});
    const Pipeline theirs = salesPipeline(client, other.token);
    const Json deal = dealIn(client, account.token, pipeline, 0, "Rules");
    const auto move = [&](const Json& body) {
      return client.patch(dealPath(deal, "/stage"), body, bearer(account.token));
    };
    CRM_ASSERT_FIELD_ERROR(move(Json::object()), "stage_id", "The stage_id field is required.");
    CRM_ASSERT_FIELD_ERROR(move(Json::object({{"stage_id", 3}})), "stage_id", "");
    for (const std::string& id : {std::string("stg_missing"), theirs.stages[1], second.id}) {
      CRM_ASSERT_ERROR_MESSAGE(404, "Stage not found.", move(Json::object({{"stage_id", id}})));
    }
    for (const std::string& id : {std::string("pipe_missing"), theirs.id}) {
      CRM_ASSERT_ERROR_MESSAGE(
          404, "Pipeline not found.",
          move(Json::object({{"stage_id", theirs.stages[0]}, {"pipeline_id", id}})));
    }
    // The stage must belong to the pipeline named.
    CRM_ASSERT_FIELD_ERROR(
        move(Json::object({{"stage_id", pipeline.stages[1]}, {"pipeline_id", second.id}})),
        "stage_id", "The stage does not belong to the pipeline.");
    CRM_ASSERT_FIELD_ERROR(
        move(Json::object({{"stage_id", second.stages[0]}, {"pipeline_id", pipeline.id}})),
        "stage_id", "The stage does not belong to the pipeline.");
    CPPUNIT_ASSERT_EQUAL(deal.dump(), readDeal(client, account.token, deal).dump());
  }

  void testSameStageIsANoOp() {
    ServerProcess& server = dealsServer();
    HttpClient client(server.port());
    const Account account = registerUser(client, "deals-same-stage");
    const Pipeline pipeline = salesPipeline(client, account.token);
    const Json deal = dealIn(client, account.token, pipeline, 1, "Stay");
    for (const Json& body :
         {Json::object({{"stage_id", pipeline.stages[1]}}),
          Json::object({{"stage_id", pipeline.stages[1]}, {"pipeline_id", pipeline.id}})}) {
      const Json same =
          E2E_ASSERT_DATA(200, client.patch(dealPath(deal, "/stage"), body, bearer(account.token)));
      CPPUNIT_ASSERT_EQUAL(deal.dump(), same.dump());
    }
    CPPUNIT_ASSERT_EQUAL(deal.dump(), readDeal(client, account.token, deal).dump());
    CPPUNIT_ASSERT(typesOf(dealEvents(server, account.companyId, deal["id"].asString())) ==
                   Types{"crm.deal.created"});
  }

  void testMoveOfAClosedDealIs409() {
    ServerProcess& server = dealsServer();
    HttpClient client(server.port());
    const Account account = registerUser(client, "deals-move-closed");
    const Pipeline pipeline = salesPipeline(client, account.token);
    const Json won = dealIn(client, account.token, pipeline, 0, "Won");
    const Json lost = dealIn(client, account.token, pipeline, 0, "Lost");
    E2E_ASSERT_DATA(200, client.post(dealPath(won, "/win"), Json::object(), bearer(account.token)));
    E2E_ASSERT_DATA(200,
                    client.post(dealPath(lost, "/lose"), Json::object(), bearer(account.token)));
    for (const Json& deal : {won, lost}) {
      const Json before = readDeal(client, account.token, deal);
      for (std::size_t stage : {std::size_t(0), std::size_t(2)}) {
        CRM_ASSERT_ERROR_MESSAGE(409, "The deal is closed.",
                                 client.patch(dealPath(deal, "/stage"),
                                              Json::object({{"stage_id", pipeline.stages[stage]}}),
                                              bearer(account.token)));
      }
      CPPUNIT_ASSERT_EQUAL(before.dump(), readDeal(client, account.token, deal).dump());
    }
    // Reopened, it moves again.
    E2E_ASSERT_DATA(200,
                    client.post(dealPath(won, "/reopen"), Json::object(), bearer(account.token)));
    E2E_ASSERT_DATA(
        200, client.patch(dealPath(won, "/stage"), Json::object({{"stage_id", pipeline.stages[2]}}),
                          bearer(account.token)));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(DealsTransitionsTest);
