// Host tensors of zeros that take no memory until written (the specs' default weights).
#include "tensor/lazy_copy.h"
#include "tensor/untouched_zeros.h"

#include <ATen/ATen.h>
#include <doctest/doctest.h>  // after ATen, whose CHECK it must define
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace {

// This process's resident set in bytes, from /proc/self/statm.
int64_t resident_bytes() {
  long pages_total = 0, pages_resident = 0;
  FILE* f = std::fopen("/proc/self/statm", "r");
  REQUIRE(f != nullptr);
  REQUIRE(std::fscanf(f, "%ld %ld", &pages_total, &pages_resident) == 2);
  std::fclose(f);
  return int64_t{pages_resident} * ::sysconf(_SC_PAGESIZE);
}

int g_source_calls = 0;
void free_calloced(void* p) { std::free(p); }
c10::DataPtr calloc_source(size_t bytes) {
  ++g_source_calls;
  void* p = std::calloc(1, bytes);
  return {p, p, &free_calloced, c10::Device(c10::kCPU)};
}
c10::DataPtr no_pages_source(size_t) { return {}; }

// No fresh-pages source while it lives (a test of ranks in processes may have set one for
// the rest of the process), and the one before afterwards.
struct OwnMappings {
  pypto_golden::FreshPagesSource before = pypto_golden::set_fresh_pages_source(nullptr);
  ~OwnMappings() { pypto_golden::set_fresh_pages_source(before); }
};

}  // namespace

TEST_CASE("untouched_zeros: zeros of the spec's shape and dtype whose pages take no memory until written") {
  using pypto_golden::untouched_zeros;
  OwnMappings own;
  const int64_t before = resident_bytes();
  at::Tensor big = untouched_zeros({256, 1024, 1024}, at::kChar);  // 256 MiB
  CHECK(pypto_golden::is_untouched_zeros_storage(big));
  CHECK(big.sizes().equals({256, 1024, 1024}));
  CHECK((big.scalar_type() == at::kChar));
  CHECK(big.is_contiguous());
  CHECK(reinterpret_cast<uintptr_t>(big.const_data_ptr()) % 64 == 0);
  CHECK(resident_bytes() - before < (int64_t{16} << 20));
  // Reads see zeros and still take no memory (they share the kernel's zero page).
  CHECK(big.count_nonzero().item<int64_t>() == 0);
  CHECK(resident_bytes() - before < (int64_t{16} << 20));
  // Written pages are the tensor's own.
  big[7].fill_(3);
  CHECK(big[7].eq(3).all().item<bool>());
  CHECK(big.sum(at::kLong).item<int64_t>() == int64_t{3} << 20);

  // Below the threshold: ordinary zeros.
  at::Tensor small = untouched_zeros({16, 16}, at::kFloat);
  CHECK_FALSE(pypto_golden::is_untouched_zeros_storage(small));
  CHECK(small.eq(0).all().item<bool>());
  CHECK(untouched_zeros({0, 4096}, at::kFloat).numel() == 0);
}

TEST_CASE("untouched_zeros are shared copy-on-write, and a written clone copies without touching the original") {
  OwnMappings own;
  at::Tensor zeros = pypto_golden::untouched_zeros({1024, 1024}, at::kFloat);  // 4 MiB
  REQUIRE(pypto_golden::shareable(zeros));
  at::Tensor clone = pypto_golden::lazy_copy(zeros);
  CHECK(pypto_golden::still_shared(clone, zeros));
  clone[5][6] = 2.5f;  // materialises the clone through torch's CPU allocator
  CHECK_FALSE(pypto_golden::still_shared(clone, zeros));
  CHECK(clone[5][6].item<float>() == 2.5f);
  CHECK(zeros.count_nonzero().item<int64_t>() == 0);
  zeros.add_(1);  // the original is writable too, and its clone keeps its own bytes
  CHECK(clone.sum().item<float>() == 2.5f);
  // Resizable, as at::zeros' storage is (a golden may resize_ its copy of an input).
  at::Tensor grown = pypto_golden::lazy_copy(pypto_golden::untouched_zeros({1024, 1024}, at::kFloat));
  grown.resize_({2048, 1024});
  CHECK(grown.narrow(0, 0, 1024).count_nonzero().item<int64_t>() == 0);
  at::Tensor mapped = pypto_golden::untouched_zeros({1024, 1024}, at::kFloat);
  mapped.resize_({4096, 1024});
  CHECK(mapped.narrow(0, 0, 1024).count_nonzero().item<int64_t>() == 0);
}

TEST_CASE("untouched_zeros takes its pages from a fresh-pages source when it has them") {
  using pypto_golden::set_fresh_pages_source;
  OwnMappings own;
  g_source_calls = 0;
  set_fresh_pages_source(&calloc_source);
  at::Tensor from_source = pypto_golden::untouched_zeros({4, 1024, 1024}, at::kByte);
  at::Tensor below = pypto_golden::untouched_zeros({8, 8}, at::kByte);
  set_fresh_pages_source(&no_pages_source);
  at::Tensor mapped_here = pypto_golden::untouched_zeros({4, 1024, 1024}, at::kByte);
  CHECK(g_source_calls == 1);  // not asked below the threshold
  CHECK((from_source.storage().data_ptr().get_deleter() == &free_calloced));
  CHECK(from_source.count_nonzero().item<int64_t>() == 0);
  CHECK(pypto_golden::is_untouched_zeros_storage(mapped_here));
  CHECK_FALSE(pypto_golden::is_untouched_zeros_storage(below));
}
