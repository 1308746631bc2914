// Where the rank store listens: the c10d TCPStore the host process serves and every worker
// connects to, as HOST:PORT on the command line or torchrun's MASTER_ADDR / MASTER_PORT.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace pypto_golden::ranks {

struct StoreAddress {
  std::string host;
  uint16_t port = 0;

  std::string text() const;  // "10.0.0.2:29500", "[::1]:29500"
};

// "HOST:PORT" or "[IPV6]:PORT", the port 1..65535. Throws std::invalid_argument naming
// `what` (e.g. "--store") and the text otherwise.
StoreAddress parse_store_address(const std::string& text, const std::string& what);

// MASTER_ADDR and MASTER_PORT; nullopt when neither is set. Throws std::invalid_argument
// when only one is set or the port is not a port.
std::optional<StoreAddress> store_address_from_env();

// "localhost", "::1" or 127.x.y.z: an address that never leaves this machine.
bool is_loopback_host(const std::string& host);

// The address of this machine that traffic to `to` leaves from (the route's source
// address, found without sending anything); "" when `to` does not resolve or has no route.
std::string local_address_toward(const StoreAddress& to);

}  // namespace pypto_golden::ranks
