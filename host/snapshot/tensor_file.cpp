#include "snapshot/tensor_file.h"

#include "snapshot/atomic_file.h"
#include "snapshot/little_endian.h"
#include "snapshot/pickle_scan.h"

#include <ATen/ATen.h>
#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/serialization/export.h>
#include <torch/csrc/jit/serialization/import_read.h>
#include <torch/csrc/jit/serialization/pickler.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>


namespace pypto_golden {
namespace {

std::string describe_ivalue(const c10::IValue& v) {
  if (v.isTensorList() || v.isList()) return "list";
  if (v.isTuple()) return "tuple";
  if (v.isGenericDict()) return "dict";
  if (v.isInt()) return "int";
  if (v.isDouble()) return "float";
  if (v.isString()) return "str";
  if (v.isNone()) return "None";
  return v.tagKind();
}

// A fuzz finding: torch's zip reader allocates a record's size as its central directory
// claims it while it opens the archive (its version records), before any check of ours can
// run: a 1.5 KiB file claiming a 4 GiB record made it allocate 4 GiB. So the central
// directory is read here first, found as torch's reader (miniz) finds it: the 32-bit end
// record, or the zip64 one when a zip64 locator precedes it, whatever the 32-bit fields say
// (a second finding: a damaged 32-bit offset hid the directory from an earlier reading that
// went by those fields, while miniz went by the zip64 record torch.save always writes).
// Returns why the file is refused: a directory past the file's end, or the first record that
// claims more bytes than the file holds; nullopt otherwise (also when there is no end
// record: torch then reports the damage). `read_at(offset, n)`: up to n bytes at offset.
template <typename ReadAt>
std::optional<std::string> oversized_zip_record(uint64_t file_bytes, ReadAt read_at) {
  constexpr uint64_t kEocd = 22, kMaxComment = 65535, kLocator = 20, kEnd64 = 56, k32 = 0xFFFFFFFFull;
  if (file_bytes < kEocd) return std::nullopt;
  const uint64_t tail_at = file_bytes > kEocd + kMaxComment ? file_bytes - kEocd - kMaxComment : 0;
  const std::string tail = read_at(tail_at, file_bytes - tail_at);
  // The last signature with a whole end record after it, as miniz looks for it.
  const std::string signature("PK\x05\x06", 4);
  size_t eocd = tail.size() >= kEocd ? tail.rfind(signature, tail.size() - kEocd) : std::string::npos;
  if (eocd == std::string::npos) return std::nullopt;
  uint64_t cd_size = little_endian(tail, eocd + 12, 4), cd_at = little_endian(tail, eocd + 16, 4);
  const uint64_t eocd_at = tail_at + eocd;
  if (eocd_at >= kLocator + kEnd64) {
    const std::string locator = read_at(eocd_at - kLocator, kLocator);
    if (locator.size() == kLocator && locator.compare(0, 4, std::string("PK\x06\x07", 4)) == 0) {
      const uint64_t end64_at = little_endian(locator, 8, 8);
      const std::string end64 = end64_at <= file_bytes - kEnd64 ? read_at(end64_at, kEnd64) : std::string();
      if (end64.size() == kEnd64 && end64.compare(0, 4, std::string("PK\x06\x06", 4)) == 0) {
        cd_size = little_endian(end64, 40, 8);
        cd_at = little_endian(end64, 48, 8);
      }
    }
  }
  // miniz's own bound check of the directory adds the two 64-bit fields, which can wrap
  // around and pass, and it allocates the claimed size before reading.
  if (cd_at > file_bytes || cd_size > file_bytes - cd_at)
    return "its central directory claims " + std::to_string(cd_size) + " bytes at byte " + std::to_string(cd_at) +
           ", past the file's end at " + std::to_string(file_bytes);
  const std::string cd = read_at(cd_at, cd_size);
  for (size_t p = 0; p + 46 <= cd.size() && cd.compare(p, 4, std::string("PK\x01\x02", 4)) == 0;) {
    uint64_t compressed = little_endian(cd, p + 20, 4), size = little_endian(cd, p + 24, 4);
    const size_t name_len = little_endian(cd, p + 28, 2), extra_len = little_endian(cd, p + 30, 2),
                 comment_len = little_endian(cd, p + 32, 2);
    if (p + 46 + name_len + extra_len > cd.size()) break;
    // A 32-bit field of all ones defers to the zip64 extra field (id 1), in this order.
    for (size_t e = p + 46 + name_len; e + 4 <= p + 46 + name_len + extra_len;) {
      const size_t id = little_endian(cd, e, 2), len = little_endian(cd, e + 2, 2);
      if (id == 1) {
        size_t at = e + 4;
        for (uint64_t* field : {&size, &compressed})
          if (*field == k32 && at + 8 <= e + 4 + len && at + 8 <= cd.size()) {
            *field = little_endian(cd, at, 8);
            at += 8;
          }
        break;
      }
      e += 4 + len;
    }
    if (const uint64_t claimed = std::max(size, compressed); claimed > file_bytes)
      return "its record '" + cd.substr(p + 46, name_len) + "' claims " + std::to_string(claimed) +
             " bytes, more than the file's " + std::to_string(file_bytes);
    p += 46 + name_len + extra_len + comment_len;
  }
  return std::nullopt;
}

}  // namespace

bool native_tensor_file_dtype(c10::ScalarType type) {
  switch (type) {
    case at::kDouble: case at::kFloat: case at::kHalf: case at::kBFloat16: case at::kLong: case at::kInt:
    case at::kShort: case at::kChar: case at::kByte: case at::kBool: case at::kComplexFloat:
    case at::kComplexDouble:
      return true;
    default:
      return false;
  }
}

void save_tensor_file(const std::filesystem::path& path, const at::Tensor& tensor) {
  if (!native_tensor_file_dtype(tensor.scalar_type()))
    throw TensorFileError("cannot write " + path.string() + ": a " + c10::toString(tensor.scalar_type()) +
                          " tensor needs torch.save's _rebuild_tensor_v3 form, which this writer lacks");
  // The pickle holds the tensor's whole storage: save a compact copy of views.
  at::Tensor t = tensor.is_contiguous() && tensor.storage_offset() == 0 &&
                         tensor.storage().nbytes() == tensor.nbytes()
                     ? tensor
                     : tensor.contiguous().clone();

  std::vector<char> pickle;
  torch::jit::Pickler pickler([&](const char* buf, size_t n) { pickle.insert(pickle.end(), buf, buf + n); },
                              nullptr, nullptr, nullptr);
  pickler.protocol();
  pickler.pushIValue(t);
  pickler.stop();

  try {
    write_file_atomically(path, [&](int fd) {
      // Tensor bytes go straight from the tensor into the file: no in-memory archive. A
      // failed write (a full disk) is kept, not thrown: an exception unwinding through
      // torch's zip writer (C code, a destructor that writes) ends in std::terminate. The
      // rest of the archive is discarded and the failure thrown once torch is done.
      std::optional<std::string> failure;
      caffe2::serialize::PyTorchStreamWriter writer([&](const void* data, size_t n) {
        if (!failure) {
          try {
            write_all(fd, data, n, path);
          } catch (const FileWriteError& e) {
            failure = e.what();
          }
        }
        return n;
      });
      torch::jit::writeArchiveAndTensors("data", pickle.data(), pickle.size(), pickler.tensorData(), writer);
      writer.writeEndOfFile();
      if (failure) throw FileWriteError(*failure);
    });
  } catch (const FileWriteError& e) {
    throw TensorFileError(e.what());
  }
}

namespace {

// A fuzz finding: torch's C++ reader builds the tensor over a storage record smaller than
// its shape, strides and offset reach (a 0-byte record under a 2-element tensor), where
// Python's torch.load refuses ("record size does not match"); reading it then reads outside
// the storage. Why such a tensor cannot be read, or nullopt when it fits its storage.
std::optional<std::string> storage_extent_problem(const at::Tensor& t) {
  if (t.numel() == 0) return std::nullopt;
  int64_t last = t.storage_offset();  // the furthest element, counted from the storage's start
  bool bad = last < 0;
  for (int64_t k = 0; k < t.dim() && !bad; ++k) {
    int64_t reach = 0;
    bad = t.stride(k) < 0 || __builtin_mul_overflow(t.size(k) - 1, t.stride(k), &reach) ||
          __builtin_add_overflow(last, reach, &last);
  }
  const auto item = static_cast<int64_t>(t.element_size());
  int64_t need = 0;
  bad = bad || __builtin_add_overflow(last, int64_t{1}, &need) || __builtin_mul_overflow(need, item, &need);
  const auto have = static_cast<int64_t>(t.storage().nbytes());
  if (!bad && need <= have && t.storage().data() != nullptr) return std::nullopt;
  std::string shape = "(";
  for (int64_t k = 0; k < t.dim(); ++k) shape += (k ? ", " : "") + std::to_string(t.size(k));
  shape += t.dim() == 1 ? ",)" : ")";
  if (!bad && t.storage().data() == nullptr)
    return "its storage record holds no data for the " + std::to_string(need) + " bytes its tensor of shape " + shape +
           " needs";
  return "its tensor of shape " + shape + " reaches past its storage record of " + std::to_string(have) + " bytes";
}

// The one reading path of both entry points: `open` makes the zip reader (from a file or
// from memory); every failure becomes a TensorFileError naming `origin`.
template <typename OpenReader, typename ReadAt>
at::Tensor read_tensor(const std::string& origin, uint64_t file_bytes, OpenReader open, ReadAt read_at) {
  auto unreadable = [&](const std::string& why) {
    return TensorFileError(origin + " is not a readable torch tensor file (" + why + ")");
  };
  c10::IValue value;
  try {
    // torch.save stores records uncompressed: a record larger than the file is a lie of a
    // damaged or hostile archive, and believing it would allocate that size (gigabytes from
    // a 2 KiB file) before the read fails. Checked in the central directory before torch
    // opens the archive, and again as torch's reader sees the records.
    if (auto problem = oversized_zip_record(file_bytes, read_at)) throw unreadable(*problem);
    caffe2::serialize::PyTorchStreamReader reader = open();
    for (const auto& name : reader.getAllRecords())
      if (const size_t claimed = reader.getRecordSize(name); claimed > file_bytes)
        throw unreadable("its record '" + name + "' claims " + std::to_string(claimed) +
                         " bytes, more than the file's " + std::to_string(file_bytes));
    if (reader.hasRecord("data.pkl")) {
      const auto [pickle, pickle_bytes] = reader.getRecord("data.pkl");
      if (auto problem = pickle_length_problem(static_cast<const unsigned char*>(pickle.get()), pickle_bytes))
        throw unreadable("its pickle claims " + *problem);
    }
    value = torch::jit::readArchiveAndTensors("data", "", "data/", c10::nullopt, c10::nullopt, c10::nullopt, reader);
  } catch (const TensorFileError&) {
    throw;
  } catch (const std::exception& e) {
    // c10::Error's what() symbolises the backtrace it captured (milliseconds per error):
    // only the message is wanted.
    auto* c10e = dynamic_cast<const c10::Error*>(&e);
    std::string why = c10e ? c10e->what_without_backtrace() : e.what();
    // torch's first sentence says what is wrong; what follows is advice about checkpoints.
    why = why.substr(0, why.find('\n'));
    if (const auto end = why.find(". "); end != std::string::npos) why.erase(end);
    throw unreadable(why);
  }
  if (!value.isTensor())
    throw TensorFileError(origin + " must contain a torch.Tensor, got " + describe_ivalue(value));
  // A fuzz finding: a storage class such as UInt1Storage gives a tensor torch itself cannot
  // copy; torch.save writes every dtype outside the typed storages in another form.
  if (!native_tensor_file_dtype(value.toTensor().scalar_type()))
    throw unreadable("its storage is of dtype " + std::string(c10::toString(value.toTensor().scalar_type())) +
                     ", which torch.save never writes in this form");
  if (auto problem = storage_extent_problem(value.toTensor())) throw unreadable(*problem);
  return value.toTensor();
}

}  // namespace

at::Tensor load_tensor_file(const std::filesystem::path& path) {
  std::error_code ec;
  const auto type = std::filesystem::status(path, ec).type();
  if (type == std::filesystem::file_type::not_found) throw TensorFileError(path.string() + " does not exist");
  if (type == std::filesystem::file_type::directory)
    throw TensorFileError(path.string() + " is a directory, not a tensor file");
  if (type != std::filesystem::file_type::regular)  // a FIFO would block the read forever
    throw TensorFileError(path.string() + " is not a regular file (a FIFO, socket or device)");
  const uint64_t bytes = std::filesystem::file_size(path, ec);
  std::ifstream file(path, std::ios::binary);
  auto read_at = [&](uint64_t at, uint64_t n) {
    std::string out(static_cast<size_t>(n), '\0');
    file.clear();
    file.seekg(static_cast<std::streamoff>(at));
    file.read(out.data(), static_cast<std::streamsize>(n));
    out.resize(file ? out.size() : static_cast<size_t>(std::max<std::streamsize>(file.gcount(), 0)));
    return out;
  };
  return read_tensor(path.string(), ec ? UINT64_MAX : bytes,
                     [&] { return caffe2::serialize::PyTorchStreamReader(path.string()); },
                     [&](uint64_t at, uint64_t n) { return ec ? std::string() : read_at(at, n); });
}

at::Tensor load_tensor_bytes(const std::string& bytes, const std::string& origin) {
  std::istringstream in(bytes);
  return read_tensor(origin, bytes.size(), [&] { return caffe2::serialize::PyTorchStreamReader(&in); },
                     [&](uint64_t at, uint64_t n) { return at < bytes.size() ? bytes.substr(at, n) : std::string(); });
}

}  // namespace pypto_golden
