// libFuzzer target: the bytes of a .pt file (torch.save's zip format). Any bytes give a
// tensor or a TensorFileError; anything else is a finding. A tensor that loads is read
// through once, so a storage shorter than its shape claims is caught here and not later.
#include "snapshot/tensor_file.h"

#include <ATen/ATen.h>

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    at::Tensor t = pypto_golden::load_tensor_bytes(std::string(reinterpret_cast<const char*>(data), size), "x.pt");
    if (t.numel() > 0 && t.numel() < (1 << 20)) (void)t.clone();
  } catch (const pypto_golden::TensorFileError&) {
  }
  return 0;
}
