// The recorder's append-only block list: elements keep their addresses as it grows, and a
// contiguous run never straddles two blocks.
#include "sim/chunked_list.h"

#include <doctest/doctest.h>

#include <string>

using pypto_golden::sim::ChunkedList;

TEST_CASE("a chunked list keeps what it holds in place as it grows") {
  ChunkedList<std::string, 4> list;
  CHECK(list.empty());
  list.push_back("0");
  const std::string* first = &list[0];
  for (int k = 1; k < 11; ++k) list.push_back(std::to_string(k));
  CHECK(list.size() == 11);
  CHECK(&list[0] == first);
  for (int k = 0; k < 11; ++k) CHECK(list[static_cast<size_t>(k)] == std::to_string(k));
}

TEST_CASE("a contiguous run starts a new block when the current one cannot hold it") {
  ChunkedList<long, 8> dims;
  CHECK(dims.append_contiguous(6) == 0);
  CHECK(dims.append_contiguous(2) == 6);   // fits the rest of block 0 exactly
  CHECK(dims.append_contiguous(6) == 8);   // block 1
  CHECK(dims.append_contiguous(4) == 16);  // 2 left in block 1: skipped
  CHECK(dims.size() == 20);
  long* run = &dims[16];
  for (int k = 0; k < 4; ++k) run[k] = k;  // side by side in one block
  CHECK(dims[19] == 3);
  CHECK(dims.append_contiguous(0) == 20);
  CHECK_THROWS_AS(dims.append_contiguous(9), std::length_error);
}
