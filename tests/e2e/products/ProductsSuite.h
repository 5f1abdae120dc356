// The servers and helpers of e2e.products: rapportd serving examples/products,
// the module built out of tree against the installed SDK by e2e.sdk (fixture
// "products_module", which leaves <build>/e2e-sdk/modules/rapport_products.so).
//
// The servers load the first-party modules from <build>/modules and products
// from that second folder (modules.dir takes both), every first-party module
// enabled beside it (webhooks delivers its events), with the webhook delivery
// settings of the e2e.webhooks suite (a test receiver on loopback, trusted
// through the TestCa) and the generous rate limit unless a test sets its own.
#pragma once

#include <string>
#include <vector>

#include "e2e/webhooks/WebhooksSuite.h"
#include "support/TestEnv.h"

namespace rapport::e2e::products {

using namespace rapport::e2e::webhooks;

inline const std::string kFirstParty = "contacts,companies,pipelines,deals,activities,webhooks";
inline const std::string kWithProducts = kFirstParty + ",products";
inline const std::vector<std::string> kProductEvents = {
    "crm.product.created", "crm.product.deleted", "crm.product.updated"};

// <build>/modules (first-party) and <build>/e2e-sdk/modules (products).
inline std::string productsModulesDir() {
  return rapport::test::buildDir() + "/modules:" + rapport::test::buildDir() + "/e2e-sdk/modules";
}

// A delivery server (WebhooksSuite.h) that loads `modules` from both folders.
inline ServerProcess::Settings productsSettings(const std::string& modules = kWithProducts,
                                                ServerProcess::Settings extra = {}) {
  extra.emplace("modules.dir", productsModulesDir());
  extra.emplace("modules.enabled", modules);
  return deliverySettings(std::move(extra));
}

// The server most tests share: products enabled.
inline ServerProcess& productsServer() {
  static ServerProcess server(productsSettings());
  return server;
}

inline const std::string kProducts = "/v1/crm/products";

inline std::string productPath(const Json& product) {
  return kProducts + "/" + product["id"].asString();
}

// POST /v1/crm/products as `token`, asserting 201; returns data.
inline Json createProduct(HttpClient& client, const std::string& token, const Json& body) {
  return E2E_ASSERT_DATA(201, client.post(kProducts, body, bearer(token)));
}

// The event types of GET /v1/webhooks/events that `module` declared, sorted.
inline std::vector<std::string> catalogueOf(HttpClient& client, const std::string& token,
                                            const std::string& module) {
  const Json list = E2E_ASSERT_DATA(200, client.get("/v1/webhooks/events", bearer(token)));
  std::vector<std::string> types;
  for (const Json& item : list.asArray()) {
    if (item["module"].asString() == module) types.push_back(item["event"].asString());
  }
  return types;
}

}  // namespace rapport::e2e::products
