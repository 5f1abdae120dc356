#include "accounts/twofactor/TwoFactor.h"

#include <chrono>

namespace rapport::host::accounts::twofactor {

void TwoFactor::registerOn(rapport::Registry& registry) {
  setup_.registerOn(registry);
  challenges_.registerOn(registry);
  registry.job({.name = "two-factor-purge",
                .interval = std::chrono::hours(1),
                .run = [this](JobContext&) { challenges_.purge(kChallengePurgeAfterSeconds); }});
}

SecondFactorGate TwoFactor::gate() {
  return
      [this](const UserRecord& user, bool remember) { return challenges_.start(user, remember); };
}

}  // namespace rapport::host::accounts::twofactor
