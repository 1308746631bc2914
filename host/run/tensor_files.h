// .pt files of every dtype. Where torch.save's format has a typed storage class for the
// dtype (torch.FloatStorage, ...), the native writer and reader of host/snapshot do the
// work; the 8-bit floats and uint16/32/64 torch.save writes in a newer form
// (_rebuild_tensor_v3 over an UntypedStorage) that the native serializer lacks, and those
// go through Python's torch.save / torch.load (taking the GIL). Errors are TensorFileError
// naming the file, as from host/snapshot.
#pragma once

#include <ATen/core/Tensor.h>

#include <filesystem>

namespace pypto_golden {

// Atomically, like save_tensor_file.
void save_pt_file(const std::filesystem::path& path, const at::Tensor& tensor);

at::Tensor load_pt_file(const std::filesystem::path& path);

}  // namespace pypto_golden
