// Device memory pool, direct views and tile copies: the simulator's own tensor plumbing
// (it bypasses ATen's allocator, view operators and copy_ on the hot path).
#include "sim/device.h"
#include "sim/device_registry.h"
#include "sim/device_memory.h"
#include "sim/strided_view.h"
#include "sim/tensor_copy.h"
#include "tensor/lazy_copy.h"

#include <ATen/ATen.h>
#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using pypto_golden::sim::copy_values;
using pypto_golden::sim::corner_view;
using pypto_golden::sim::Device;
using pypto_golden::sim::DeviceMemory;
using pypto_golden::sim::DeviceOptions;
using pypto_golden::sim::Ownership;
using pypto_golden::sim::shares_memory;
using pypto_golden::sim::strided_view;
using pypto_golden::sim::window_view;
using pypto_golden::sim::simulated_device;

namespace {
uintptr_t address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

bool same(const at::Tensor& a, const at::Tensor& b) {
  return a.scalar_type() == b.scalar_type() && a.sizes().equals(b.sizes()) && at::equal(a, b);
}
}  // namespace

TEST_CASE("device memory reuses a freed block of the same size and keeps 64-byte alignment") {
  auto pool = std::make_shared<DeviceMemory>();
  void* first = nullptr;
  {
    at::Tensor t = DeviceMemory::allocate(pool, {3, 5}, at::kFloat);
    CHECK(t.sizes().equals({3, 5}));
    CHECK(t.is_contiguous());
    CHECK((t.scalar_type() == at::kFloat));
    CHECK(address(t.data_ptr()) % 64 == 0);
    t.fill_(2.0f);
    CHECK(t.sum().item<float>() == 30.0f);
    first = t.data_ptr();
    CHECK(pool->cached_bytes() == 0);
    CHECK(pool->live_bytes() == 60);
  }
  CHECK(pool->cached_bytes() == 60);  // 15 floats back in the pool
  CHECK(pool->live_bytes() == 0);     // and none in use: what the trace's memory counter shows
  at::Tensor again = DeviceMemory::allocate(pool, {15}, at::kInt);  // same byte size
  CHECK(address(again.data_ptr()) == address(first));
  CHECK(pool->cached_bytes() == 0);
  at::Tensor other = DeviceMemory::allocate(pool, {16}, at::kInt);
  CHECK(address(other.data_ptr()) != address(first));
  CHECK(pool->live_bytes() == 60 + 64);
  other = at::Tensor();
  CHECK(pool->live_bytes() == 60);
}

TEST_CASE("a tile freed on another thread is reused here, and the pool's counts add up over threads") {
  auto pool = std::make_shared<DeviceMemory>();
  void* first = nullptr;
  std::thread([&] {
    at::Tensor t = DeviceMemory::allocate(pool, {8, 8}, at::kFloat);  // a tile: 256 bytes
    first = t.data_ptr();
  }).join();  // made and freed on the other thread: cached in that thread's shard
  CHECK(pool->cached_bytes() == 256);
  at::Tensor mine = DeviceMemory::allocate(pool, {64}, at::kFloat);
  CHECK(address(mine.data_ptr()) == address(first));
  CHECK(pool->cached_bytes() == 0);
  at::Tensor kept;
  std::thread([&] { kept = DeviceMemory::allocate(pool, {2, 8}, at::kFloat); }).join();
  CHECK(pool->live_bytes() == 256 + 64);  // one block from each thread
  std::thread([&] { mine.reset(); }).join();  // freed on a thread that did not allocate it
  kept.reset();
  CHECK(pool->live_bytes() == 0);
  CHECK(pool->cached_bytes() == 256 + 64);
  // A large block (a dispatch's tensor) goes back to the shared shard: any thread reuses it.
  void* large = nullptr;
  std::thread([&] { large = DeviceMemory::allocate(pool, {1 << 18}, at::kFloat).data_ptr(); }).join();
  CHECK(address(DeviceMemory::allocate(pool, {1 << 18}, at::kFloat).data_ptr()) == address(large));
}

TEST_CASE("a device tensor keeps its pool alive after the device lets go of it") {
  auto pool = std::make_shared<DeviceMemory>();
  std::weak_ptr<DeviceMemory> watch = pool;
  at::Tensor t = DeviceMemory::allocate(pool, {4}, at::kLong);
  at::Tensor view = t.narrow(0, 1, 2);
  pool.reset();
  CHECK_FALSE(watch.expired());
  t.fill_(7);
  t.reset();
  CHECK_FALSE(watch.expired());  // the view still holds the storage
  CHECK(view.sum().item<int64_t>() == 14);
  view.reset();
  CHECK(watch.expired());  // last block returned: the pool went with it
}

TEST_CASE("a device replaced when PYPTO_SIM_THREADS changes stays usable by whoever holds it") {
  const char* saved = std::getenv("PYPTO_SIM_THREADS");
  const std::string restore = saved ? saved : "";
  setenv("PYPTO_SIM_THREADS", "2", 1);
  std::shared_ptr<Device> held = simulated_device(7);
  CHECK(simulated_device(7) == held);  // same settings: the same device
  std::weak_ptr<Device> watch = held;
  setenv("PYPTO_SIM_THREADS", "3", 1);
  std::shared_ptr<Device> fresh = simulated_device(7);
  CHECK(fresh != held);
  CHECK(fresh->pool().size() == 3);
  // The replaced device still runs work for its holder (a dispatch in flight) ...
  std::atomic<int> sum{0};
  held->pool().parallel_for(10, [&](int64_t i) { sum += static_cast<int>(i); });
  CHECK(sum.load() == 45);
  at::Tensor t = held->upload(at::arange(4, at::kLong));
  CHECK(t.sum().item<int64_t>() == 6);
  // ... and goes away when the holder lets go.
  held.reset();
  CHECK(watch.expired());
  if (saved) setenv("PYPTO_SIM_THREADS", restore.c_str(), 1);
  else unsetenv("PYPTO_SIM_THREADS");
}

TEST_CASE("strided_view / window_view / corner_view match ATen's narrow and share storage") {
  at::Tensor x = at::arange(60, at::kFloat).reshape({3, 4, 5});
  at::Tensor w = window_view(x, {1, 2}, {2, 2});
  CHECK(same(w, x.narrow(0, 1, 2).narrow(1, 2, 2)));
  CHECK(address(w.data_ptr()) == address(x[1][2].data_ptr()));
  w.fill_(-1.0f);
  CHECK(x[2][3][4].item<float>() == -1.0f);
  CHECK(window_view(x, {0, 0, 0}, {3, 4, 5}).is_same(x));  // the whole tensor: no new view
  CHECK(same(corner_view(x, {2}), x.narrow(0, 0, 2)));
  at::Tensor col = strided_view(x, {3}, {20}, 4);  // x[:, 0, 4]
  CHECK(same(col, x.select(1, 0).select(1, 4)));
  at::Tensor scalar = strided_view(x, {}, {}, 7);
  CHECK(scalar.dim() == 0);
  CHECK(scalar.item<float>() == 7.0f);
}

TEST_CASE("a borrowed view is no owner of its storage; ATen's views of it are") {
  at::Tensor x = at::arange(60, at::kFloat).reshape({3, 4, 5});
  const size_t owners = x.storage().use_count();
  {
    at::Tensor shared = window_view(x, {1, 2}, {2, 2});
    CHECK(x.storage().use_count() == owners + 1);
  }
  CHECK(x.storage().use_count() == owners);
  {
    at::Tensor w = window_view(x, {1, 2}, {2, 2}, Ownership::Borrowed);
    CHECK(x.storage().use_count() == owners);
    CHECK(same(w, x.narrow(0, 1, 2).narrow(1, 2, 2)));
    w.fill_(-1.0f);
    CHECK(x[2][3][4].item<float>() == -1.0f);
    {
      at::Tensor t = w.transpose(0, 1);  // ATen's view copies the storage: a counted owner
      CHECK(x.storage().use_count() == owners + 1);
      at::Tensor again = w;  // another reference to the borrowed view itself
      CHECK(x.storage().use_count() == owners + 1);
    }
    CHECK(x.storage().use_count() == owners);
    at::Tensor col = strided_view(x, {3}, {20}, 4, Ownership::Borrowed);
    CHECK(same(col, x.select(1, 0).select(1, 4)));
  }
  CHECK(x.storage().use_count() == owners);
}

TEST_CASE("a borrowed window of a copy-on-write upload writes the device's own copy") {
  DeviceOptions options;
  options.threads = 1;
  Device device(0, options);
  at::Tensor host = at::randn({16, 8});
  const at::Tensor before = host.clone();
  at::Tensor dev = device.upload(host, /*share=*/true);
  at::Tensor row = window_view(dev, {2, 0}, {1, 8}, Ownership::Borrowed);
  copy_values(row, at::full({1, 8}, 5.0f));  // the first write copies the storage's bytes
  CHECK_FALSE(pypto_golden::still_shared(dev, host));
  CHECK(same(host, before));
  CHECK(dev[2].eq(5.0f).all().item<bool>());
  CHECK(address(row.const_data_ptr()) == address(dev[2].const_data_ptr()));
}

TEST_CASE("a device's windows borrow only the storages its running dispatch keeps") {
  DeviceOptions options;
  options.threads = 1;
  Device device(0, options);
  at::Tensor kept = at::zeros({4, 4}), other = at::zeros({4, 4});
  CHECK(device.window_ownership(kept) == Ownership::Shared);
  device.set_dispatch_storages({kept.storage().unsafeGetStorageImpl()});
  CHECK(device.window_ownership(kept) == Ownership::Borrowed);
  CHECK(device.window_ownership(window_view(kept, {1}, {2})) == Ownership::Borrowed);  // same storage
  CHECK(device.window_ownership(other) == Ownership::Shared);
  device.set_dispatch_storages({});
  CHECK(device.window_ownership(kept) == Ownership::Shared);
}

TEST_CASE("shares_memory: overlapping bytes, whichever tensors hold them") {
  at::Tensor x = at::zeros({4, 8}), y = at::zeros({4, 8});
  CHECK_FALSE(shares_memory(x, y));
  CHECK(shares_memory(x, x));
  CHECK(shares_memory(window_view(x, {1}, {2}), window_view(x, {2}, {2})));
  CHECK_FALSE(shares_memory(window_view(x, {0}, {2}), window_view(x, {2}, {2})));  // side by side
  CHECK_FALSE(shares_memory(window_view(x, {0}, {0}), x));                         // empty
  // Copy-on-write: the same bytes until one side writes.
  at::Tensor lazy = pypto_golden::lazy_copy(x);
  CHECK(shares_memory(lazy, x));
  lazy.fill_(1.0f);
  CHECK_FALSE(shares_memory(lazy, x));
  // Meta tensors have no bytes: only their own storage counts.
  at::Tensor m = at::empty({4}, at::TensorOptions().device(at::kMeta));
  at::Tensor n = at::empty({4}, at::TensorOptions().device(at::kMeta));
  CHECK_FALSE(shares_memory(m, n));
  CHECK(shares_memory(m, m));
}

TEST_CASE("copy_values copies tiles between windows exactly, whatever the layout") {
  at::Tensor src = at::randn({6, 40});
  SUBCASE("contiguous to contiguous") {
    at::Tensor dst = at::zeros({6, 40});
    copy_values(dst, src);
    CHECK(same(dst, src));
  }
  SUBCASE("window rows into a window of a wider tensor, leaving the rest alone") {
    at::Tensor big = at::full({8, 50}, 3.0f);
    at::Tensor dst = big.narrow(0, 1, 4).narrow(1, 5, 40);
    copy_values(dst, src.narrow(0, 2, 4));
    CHECK(same(dst, src.narrow(0, 2, 4)));
    CHECK(big[0].eq(3.0f).all().item<bool>());
    CHECK(big.narrow(1, 0, 5).eq(3.0f).all().item<bool>());
    CHECK(big.narrow(1, 45, 5).eq(3.0f).all().item<bool>());
  }
  SUBCASE("3-D strided source with short rows, a transposed source and a column") {
    at::Tensor s3 = at::randn({3, 4, 6}).narrow(2, 1, 2);  // 8-byte rows
    at::Tensor d3 = at::empty({3, 4, 2});
    copy_values(d3, s3);
    CHECK(same(d3, s3));
    at::Tensor t = at::randn({5, 7}).t();
    at::Tensor dt = at::empty({7, 5});
    copy_values(dt, t);
    CHECK(same(dt, t));
    at::Tensor dcol = at::zeros({6, 1});
    copy_values(dcol, src.narrow(1, 3, 1));
    CHECK(same(dcol, src.narrow(1, 3, 1)));
  }
  SUBCASE("overlapping windows of one tensor copy as if through a temporary") {
    at::Tensor x = at::arange(40, at::kFloat).reshape({4, 10});
    at::Tensor expect = x.clone();
    expect.narrow(0, 1, 3).copy_(x.clone().narrow(0, 0, 3));
    copy_values(x.narrow(0, 1, 3), x.narrow(0, 0, 3));
    CHECK(same(x, expect));
  }
  SUBCASE("a copy onto itself changes nothing") {
    at::Tensor before = src.clone();
    copy_values(src, src);
    copy_values(src.narrow(0, 0, 3), src.narrow(0, 0, 3));
    CHECK(same(src, before));
  }
  SUBCASE("integer and bool tiles, empty tiles") {
    at::Tensor i = at::randint(-100, 100, {4, 33}, at::kInt);
    at::Tensor di = at::zeros({4, 33}, at::kInt);
    copy_values(di, i);
    CHECK(same(di, i));
    at::Tensor b = at::randint(0, 2, {9, 64}, at::kBool).narrow(1, 0, 40);
    at::Tensor db = at::zeros({9, 40}, at::kBool);
    copy_values(db, b);
    CHECK(same(db, b));
    at::Tensor e = at::empty({0, 40});
    copy_values(e, src.narrow(0, 0, 0));
    CHECK(e.numel() == 0);
  }
}

TEST_CASE("same_bytes compares device memory with the host bytes, NaN payloads included") {
  DeviceOptions options;
  options.threads = 2;
  Device device(0, options);
  at::Tensor host = at::randn({1024, 600});  // several copy chunks
  host.narrow(0, 0, 7).fill_(std::numeric_limits<float>::quiet_NaN());
  at::Tensor dev = device.upload(host);
  CHECK(device.same_bytes(dev, host));
  dev[1000][599] = 1e9f;  // one element in the last chunk
  CHECK_FALSE(device.same_bytes(dev, host));
  at::Tensor view = host.t();  // a non-contiguous host view holding NaN
  at::Tensor dev_view = device.upload(view);
  CHECK(device.same_bytes(dev_view, view));
}

TEST_CASE("a shared upload is copy-on-write: reads move no bytes, a device write never reaches the host") {
  DeviceOptions options;
  options.threads = 2;
  Device device(0, options);
  at::Tensor host = at::randn({64, 48});
  const at::Tensor before = host.clone();
  CHECK(address(device.upload(host).const_data_ptr()) != address(host.const_data_ptr()));  // a copy
  at::Tensor dev = device.upload(host, /*share=*/true);
  CHECK(address(dev.const_data_ptr()) == address(host.const_data_ptr()));
  // What a kernel does with an input it only reads: tiles copied out, ATen ops, scalar reads.
  at::Tensor tile = at::empty({8, 48});
  copy_values(tile, window_view(dev, {8, 0}, {8, 48}));
  at::Tensor sum = (dev * 2.0f).sum(1);
  (void)dev[3][4].item<float>();
  CHECK(address(dev.const_data_ptr()) == address(host.const_data_ptr()));
  CHECK(pypto_golden::still_shared(dev, host));
  CHECK(device.same_bytes(dev, host));
  // The first write copies: the host keeps its bytes, the device sees its write.
  copy_values(window_view(dev, {0, 0}, {1, 48}), at::full({1, 48}, 5.0f));
  CHECK(address(dev.const_data_ptr()) != address(host.const_data_ptr()));
  CHECK_FALSE(pypto_golden::still_shared(dev, host));
  CHECK(same(host, before));
  CHECK(dev[0].eq(5.0f).all().item<bool>());
  CHECK(same(dev.narrow(0, 1, 63), before.narrow(0, 1, 63)));
  CHECK_FALSE(device.same_bytes(dev, host));
}

TEST_CASE("a host tensor torch cannot share is copied by upload and by lazy_copy") {
  DeviceOptions options;
  Device device(0, options);
  std::vector<float> foreign(32, 1.5f);  // a storage whose DataPtr torch did not allocate
  at::Tensor blob = at::from_blob(foreign.data(), {4, 8}, at::TensorOptions().dtype(at::kFloat));
  CHECK_FALSE(pypto_golden::shareable(blob));
  at::Tensor dev = device.upload(blob, true);
  CHECK(address(dev.const_data_ptr()) != address(foreign.data()));
  CHECK(same(dev, blob));
  at::Tensor copy = pypto_golden::lazy_copy(blob);
  CHECK(address(copy.const_data_ptr()) != address(foreign.data()));
  copy.fill_(0.0f);
  CHECK(foreign[0] == 1.5f);
  // A window of a larger host tensor is copied too (sharing would keep the whole storage).
  at::Tensor big = at::randn({8, 8});
  at::Tensor part = device.upload(big.narrow(0, 2, 4), true);
  CHECK(address(part.const_data_ptr()) != address(big[2].const_data_ptr()));
  CHECK(same(part, big.narrow(0, 2, 4)));
}

TEST_CASE("lazy_copy has clone's semantics: each side's writes stay its own") {
  at::Tensor a = at::arange(16, at::kFloat);
  at::Tensor b = pypto_golden::lazy_copy(a);
  CHECK(pypto_golden::still_shared(b, a));
  b.add_(1.0f);
  CHECK(a[0].item<float>() == 0.0f);
  CHECK(b[0].item<float>() == 1.0f);
  at::Tensor c = pypto_golden::lazy_copy(a);
  a.mul_(2.0f);
  CHECK(c[3].item<float>() == 3.0f);
  CHECK(a[3].item<float>() == 6.0f);
}
