#include "http/server/ConnectionStats.h"

#include <string>

#include "log/Log.h"

namespace rapport::host {

void ConnectionStats::log(std::string_view message) const {
  const auto text = [](const auto& counter) { return std::to_string(counter.load()); };
  const std::string values[] = {text(open),           text(accepted),       text(idleClosed),
                                text(headerTimeouts), text(bodyTimeouts),   text(sendTimeouts),
                                text(shed),           text(refusedFull),    text(refusedPerAddress),
                                text(refusedBusy),    text(acceptFailures), text(shedSlowBodies)};
  log::info(message, {{"open", values[0]},
                      {"accepted", values[1]},
                      {"idle_closed", values[2]},
                      {"header_timeouts", values[3]},
                      {"body_timeouts", values[4]},
                      {"send_timeouts", values[5]},
                      {"shed", values[6]},
                      {"refused_full", values[7]},
                      {"refused_per_address", values[8]},
                      {"refused_busy", values[9]},
                      {"accept_failures", values[10]},
                      {"shed_slow_bodies", values[11]}});
}

std::uint64_t ConnectionStats::events() const {
  return accepted + idleClosed + headerTimeouts + bodyTimeouts + sendTimeouts + shed + refusedFull +
         refusedPerAddress + refusedBusy + acceptFailures + shedSlowBodies;
}

}  // namespace rapport::host
