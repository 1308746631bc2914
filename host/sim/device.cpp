#include "sim/device.h"

#include "sim/ops/sort_kernels.h"
#include "sim/write_log.h"
#include "tensor/lazy_copy.h"

#include <ATen/ATen.h>

#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>

namespace pypto_golden::sim {
namespace {

bool env_flag(const char* name) {
  const char* raw = std::getenv(name);
  if (!raw) return false;
  std::string v(raw);
  for (auto& ch : v) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return !(v.empty() || v == "0" || v == "false" || v == "no" || v == "off");
}

}  // namespace

DeviceOptions device_options_from_env() {
  DeviceOptions o;
  // Read once: glibc answers it by reading /sys on every call, and every dispatch of a
  // compiled program asks for its device (sim/device_registry).
  static const unsigned hw = std::thread::hardware_concurrency();
  o.threads = hw ? static_cast<int>(hw) : 1;
  if (const char* raw = std::getenv("PYPTO_SIM_THREADS")) {
    std::string v(raw);
    char* end = nullptr;
    long n = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0' || n < 1 || n > 1024)
      throw std::invalid_argument("PYPTO_SIM_THREADS must be an integer from 1 to 1024, got '" +
                                  v + "'");
    o.threads = static_cast<int>(n);
  }
  o.shuffle = env_flag("PYPTO_SIM_SHUFFLE");
  o.nan_check = env_flag("PYPTO_SIM_NAN_CHECK");
  if (const char* raw = std::getenv("PYPTO_SIM_OUT_INIT")) {
    const std::string v(raw);
    if (v != "poison" && v != "zero")
      throw std::invalid_argument("PYPTO_SIM_OUT_INIT must be 'poison' or 'zero', got '" + v + "'");
    o.zero_outputs = v == "zero";
  }
  // Read by the sort ops; checked here so a bad value fails when the device starts, like
  // the other simulator variables, not at the first sort of some kernel.
  sort_kernels::isa_from_env_value(std::getenv("PYPTO_SIM_SORT_ISA"));
  o.seed = 0x9E3779B97F4A7C15ull;
  return o;
}

Device::Device(int id, const DeviceOptions& options)
    : id_(id), options_(options), pool_(options.threads) {}

namespace {
constexpr size_t kChunkBytes = size_t(1) << 20;  // below this one thread is faster
}

void Device::for_each_chunk(size_t bytes, const std::function<void(size_t, size_t)>& body) {
  const int64_t chunks = static_cast<int64_t>((bytes + kChunkBytes - 1) / kChunkBytes);
  pool_.parallel_for(chunks, [&](int64_t k) {
    const size_t off = static_cast<size_t>(k) * kChunkBytes;
    body(off, std::min(kChunkBytes, bytes - off));
  });
}

void Device::copy_bytes(void* dst, const void* src, size_t bytes) {
  for_each_chunk(bytes, [&](size_t off, size_t len) {
    std::memcpy(static_cast<char*>(dst) + off, static_cast<const char*>(src) + off, len);
  });
}

void Device::fill_bytes(void* dst, int pattern, size_t bytes) {
  if (bytes <= kChunkBytes) {  // one chunk: no hand-off (a pure Out's gaps are often a part of a row)
    std::memset(dst, pattern, bytes);
    return;
  }
  for_each_chunk(bytes, [&](size_t off, size_t len) { std::memset(static_cast<char*>(dst) + off, pattern, len); });
}

at::Tensor Device::allocate(at::IntArrayRef shape, c10::ScalarType dtype) {
  return DeviceMemory::allocate(memory_, shape, dtype);
}

at::Tensor Device::upload(const at::Tensor& host, bool share) {
  // A whole contiguous host tensor is shared copy-on-write: a kernel that only reads an
  // input costs no copy and no memory, and the host never sees a device write.
  if (share && host.is_contiguous() && host.storage_offset() == 0 && host.nbytes() == host.storage().nbytes() &&
      shareable(host))
    return lazy_copy(host);
  at::Tensor dev = allocate(host.sizes(), host.scalar_type());
  if (host.is_contiguous()) copy_bytes(dev.data_ptr(), host.const_data_ptr(), dev.nbytes());
  else dev.copy_(host);
  return dev;
}

namespace {
int poison_byte(c10::ScalarType dtype) {
  return at::isFloatingType(dtype) ? 0xFF : dtype == at::kBool ? 0x01 : 0xA5;
}

// Whether every one of the `width` bytes at `p` is `pattern`.
bool holds_pattern(const unsigned char* p, size_t width, unsigned char pattern) {
  for (size_t b = 0; b < width; ++b)
    if (p[b] != pattern) return false;
  return true;
}
}  // namespace

int Device::output_start_byte(c10::ScalarType dtype) const {
  return options_.zero_outputs ? 0 : poison_byte(dtype);
}

void Device::poison_output(const at::Tensor& t) {
  fill_bytes(t.data_ptr(), output_start_byte(t.scalar_type()), t.nbytes());
}

std::vector<ElementRuns> Device::poison_unwritten(const WriteLog& log) {
  std::vector<ElementRuns> gaps;
  for (size_t k = 0; k < log.size(); ++k) {
    const at::Tensor& t = log.tensor(k);
    const int byte = output_start_byte(t.scalar_type());
    auto* base = static_cast<char*>(t.data_ptr());
    const auto width = static_cast<size_t>(t.element_size());
    gaps.push_back(log.unwritten(k));
    for (const auto& [begin, end] : gaps.back())
      fill_bytes(base + static_cast<size_t>(begin) * width, byte, static_cast<size_t>(end - begin) * width);
  }
  return gaps;
}

at::Tensor Device::poison_mask_against(const at::Tensor& actual, const at::Tensor& expected) {
  const at::Tensor a = actual.contiguous(), e = expected.contiguous();
  const size_t width = a.element_size(), items = static_cast<size_t>(a.numel());
  const auto* pa = static_cast<const unsigned char*>(a.const_data_ptr());
  const auto* pe = static_cast<const unsigned char*>(e.const_data_ptr());
  const auto pattern = static_cast<unsigned char>(poison_byte(a.scalar_type()));
  at::Tensor mask = at::zeros(a.sizes(), a.options().dtype(at::kBool));
  bool* m = mask.data_ptr<bool>();
  for (size_t i = 0; i < items; ++i)
    m[i] = holds_pattern(pa + i * width, width, pattern) && std::memcmp(pa + i * width, pe + i * width, width) != 0;
  return mask;
}

void Device::download(const at::Tensor& device_tensor, const at::Tensor& host) {
  if (host.is_contiguous() && host.scalar_type() == device_tensor.scalar_type() &&
      host.sizes().equals(device_tensor.sizes()) && device_tensor.is_contiguous()) {
    copy_bytes(host.data_ptr(), device_tensor.const_data_ptr(), host.nbytes());
    return;
  }
  const_cast<at::Tensor&>(host).copy_(device_tensor);
}

bool Device::same_bytes(const at::Tensor& device_tensor, const at::Tensor& host) {
  if (still_shared(device_tensor, host)) return true;
  // Bytes, not values: at::equal would call a NaN input "written".
  const at::Tensor d = device_tensor.contiguous(), h = host.contiguous();
  const auto* a = static_cast<const char*>(d.const_data_ptr());
  const auto* b = static_cast<const char*>(h.const_data_ptr());
  std::atomic<bool> differ{false};
  for_each_chunk(h.nbytes(), [&](size_t off, size_t len) {
    if (!differ.load(std::memory_order_relaxed) && std::memcmp(a + off, b + off, len) != 0) differ = true;
  });
  return !differ.load();
}

std::vector<int64_t> Device::iteration_order(int64_t n) {
  if (!options_.shuffle) return {};
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  // xorshift64 seeded per loop: cheap, thread-safe, and the same sequence every run so a
  // race it exposes can be replayed.
  uint64_t state = (options_.seed + 0x632BE59BD9B4E019ull * ++shuffle_calls_) | 1;
  for (int64_t i = n - 1; i > 0; --i) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    std::swap(order[i], order[state % static_cast<uint64_t>(i + 1)]);
  }
  return order;
}

}  // namespace pypto_golden::sim
