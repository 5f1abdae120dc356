#include "support/webhooks/DeliveryTally.h"

#include "rapport/json.h"

namespace rapport::test::webhooks {

std::string DeliveryTally::repeated() const {
  std::string text;
  for (const auto& [id, n] : perDelivery) {
    if (n != 1) text += " " + id + " x" + std::to_string(n);
  }
  return text;
}

DeliveryTally tallyDeliveries(const std::vector<ReceivedRequest>& requests) {
  DeliveryTally tally;
  for (const auto& request : requests) {
    ++tally.perDelivery[request.header("X-Service-Delivery")];
    tally.recordIds.insert(rapport::Json::parse(request.body)["data"]["id"].asString());
  }
  return tally;
}

}  // namespace rapport::test::webhooks
