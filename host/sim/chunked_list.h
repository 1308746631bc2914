// An append-only list stored in fixed blocks: appending never moves what is stored, so a
// recorder that appends a record per task neither copies its records nor faults fresh pages
// in again each time a vector would have doubled.
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

namespace pypto_golden::sim {

template <typename T, size_t kBlock = 4096>
class ChunkedList {
 public:
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return blocks_[i / kBlock][i % kBlock]; }
  const T& operator[](size_t i) const { return blocks_[i / kBlock][i % kBlock]; }

  T& push_back(T value) {
    if (size_ / kBlock == blocks_.size()) add_block();  // the last block is full
    T& slot = (*this)[size_];
    slot = std::move(value);
    ++size_;
    return slot;
  }

  // Room for `n` elements side by side in one block (the rest of the current block is
  // skipped when they do not fit); returns the index of the first.
  size_t append_contiguous(size_t n) {
    if (n > kBlock) throw std::length_error("ChunkedList: a run longer than its block");
    if (size_ % kBlock + n > kBlock) size_ = (size_ / kBlock + 1) * kBlock;
    while (blocks_.size() * kBlock < size_ + n) add_block();
    const size_t first = size_;
    size_ += n;
    return first;
  }

 private:
  // Default-initialised, not zeroed: every element is written before it is read, and a
  // recorder's blocks add up to hundreds of MB.
  void add_block() { blocks_.push_back(std::unique_ptr<T[]>(new T[kBlock])); }

  std::vector<std::unique_ptr<T[]>> blocks_;
  size_t size_ = 0;
};

}  // namespace pypto_golden::sim
