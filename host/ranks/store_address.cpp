#include "ranks/store_address.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

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

bool is_loopback_host(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

std::string local_address_toward(const StoreAddress& to) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(to.host.c_str(), std::to_string(to.port).c_str(), &hints, &found) != 0) return "";
  std::string address;
  for (addrinfo* a = found; a != nullptr && address.empty(); a = a->ai_next) {
    // Connecting a datagram socket only picks the route: nothing is sent.
    const int fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (fd < 0) continue;
    sockaddr_storage local{};
    socklen_t length = sizeof local;
    char text[INET6_ADDRSTRLEN] = {};
    if (connect(fd, a->ai_addr, a->ai_addrlen) == 0 &&
        getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) == 0) {
      const void* raw = local.ss_family == AF_INET6
                            ? static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(&local)->sin6_addr)
                            : static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(&local)->sin_addr);
      if (inet_ntop(local.ss_family, raw, text, sizeof text) != nullptr) address = text;
    }
    close(fd);
  }
  freeaddrinfo(found);
  return address;
}

}  // namespace pypto_golden::ranks
