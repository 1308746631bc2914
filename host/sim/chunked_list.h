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

// A block's memory, mapped from the system (or reused from a list gone before) rather than
// taken from malloc: a malloc of this size first consolidates every small chunk the heap has
// freed (ATen frees thousands a second), which cost a recording dispatch ~1.5 % of its
// instructions. Throws std::bad_alloc when the system has no memory left.
void* map_block(size_t bytes);
void unmap_block(void* block, size_t bytes);

template <typename T, size_t kBlock = 4096>
class ChunkedList {
 public:
  ChunkedList() = default;
  ChunkedList(const ChunkedList&) = delete;
  ChunkedList& operator=(const ChunkedList&) = delete;
  ~ChunkedList() {
    for (T* block : blocks_) {
      std::destroy_n(block, kBlock);
      unmap_block(block, sizeof(T) * kBlock);
    }
  }

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
  // Default-initialised (records are not zeroed: every element is written before it is
  // read, and a recorder's blocks add up to hundreds of MB).
  void add_block() {
    blocks_.reserve(blocks_.size() + 1);
    T* block = static_cast<T*>(map_block(sizeof(T) * kBlock));
    try {
      std::uninitialized_default_construct_n(block, kBlock);
    } catch (...) {
      unmap_block(block, sizeof(T) * kBlock);
      throw;
    }
    blocks_.push_back(block);
  }

  std::vector<T*> blocks_;
  size_t size_ = 0;
};

}  // namespace pypto_golden::sim
