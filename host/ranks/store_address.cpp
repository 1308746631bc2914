#include "ranks/store_address.h"

#include <cstdlib>
#include <stdexcept>

namespace pypto_golden::ranks {
namespace {

// 1..65535 in decimal digits, else nullopt.
std::optional<uint16_t> parse_port(const std::string& text) {
  if (text.empty() || text.size() > 5 || text.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  const long v = std::strtol(text.c_str(), nullptr, 10);
  if (v < 1 || v > 65535) return std::nullopt;
  return static_cast<uint16_t>(v);
}

}  // namespace

std::string StoreAddress::text() const {
  const std::string shown = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return shown + ":" + std::to_string(port);
}

StoreAddress parse_store_address(const std::string& text, const std::string& what) {
  const auto bad = [&](const std::string& why) {
    return std::invalid_argument(what + " must be HOST:PORT (a port from 1 to 65535), got '" + text + "': " + why);
  };
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos) throw bad("no port");
  std::string host = text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  else if (host.find(':') != std::string::npos) throw bad("write an IPv6 address in brackets, as [::1]:29500");
  if (host.empty()) throw bad("no host");
  const std::optional<uint16_t> port = parse_port(text.substr(colon + 1));
  if (!port) throw bad("the port is '" + text.substr(colon + 1) + "'");
  return StoreAddress{host, *port};
}

std::optional<StoreAddress> store_address_from_env() {
  const char* addr = std::getenv("MASTER_ADDR");
  const char* port = std::getenv("MASTER_PORT");
  const bool has_addr = addr != nullptr && *addr != '\0';
  const bool has_port = port != nullptr && *port != '\0';
  if (!has_addr && !has_port) return std::nullopt;
  if (!has_addr) throw std::invalid_argument("MASTER_PORT is set but MASTER_ADDR is not: set both, or neither");
  if (!has_port) throw std::invalid_argument("MASTER_ADDR is set but MASTER_PORT is not: set both, or neither");
  const std::optional<uint16_t> p = parse_port(port);
  if (!p) throw std::invalid_argument(std::string("MASTER_PORT must be a port from 1 to 65535, got '") + port + "'");
  return StoreAddress{addr, *p};
}

}  // namespace pypto_golden::ranks
