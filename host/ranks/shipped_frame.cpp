#include "ranks/shipped_frame.h"

#include "ranks/changed_bytes.h"

#include "sim/comm/comm_domain.h"
#include "sim/kernel_error.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cstring>
#include <map>

namespace pypto_golden::ranks {

using nlohmann::json;
using sim::Value;

namespace {

// The bytes a view reaches from its first element: [lowest, highest) relative to it.
std::pair<int64_t, int64_t> reach(const at::Tensor& t) {
  int64_t lo = 0, hi = 0;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.size(d) == 0) return {0, 0};
    const int64_t span = (t.size(d) - 1) * t.stride(d);
    (span < 0 ? lo : hi) += span;
  }
  const int64_t e = static_cast<int64_t>(t.element_size());
  return {lo * e, (hi + 1) * e};
}

struct Packer {
  sim::CommDomain& domain;
  // Per storage: the byte range of it the frame's views reach.
  std::map<const void*, std::pair<const uint8_t*, const uint8_t*>> ranges;
  // Per storage: where each view starts, and its element size.
  std::map<const void*, std::vector<std::pair<const uint8_t*, int64_t>>> starts;
  std::map<const void*, int> region_of;

  void note(const Value& v) {
    if (v.kind == Value::Kind::Tuple || v.kind == Value::Kind::List) {
      for (const Value& item : *v.items) note(item);
      return;
    }
    if (!v.is_tensor() || domain.place_of(v.tensor, 0).first >= 0 || v.tensor.numel() == 0) return;
    const auto* p = static_cast<const uint8_t*>(v.tensor.const_data_ptr());
    const auto [lo, hi] = reach(v.tensor);
    const void* key = v.tensor.storage().data();
    starts[key].emplace_back(p, static_cast<int64_t>(v.tensor.element_size()));
    auto it = ranges.find(key);
    if (it == ranges.end()) ranges[key] = {p + lo, p + hi};
    else it->second = {std::min(it->second.first, p + lo), std::max(it->second.second, p + hi)};
  }

  json tensor(const at::Tensor& t, const std::vector<int64_t>& valid) {
    json j = {{"sizes", t.sizes()}, {"strides", t.strides()}, {"dtype", static_cast<int>(t.scalar_type())},
              {"valid", valid}};
    const auto [buffer, offset] = domain.place_of(t, 0);
    if (buffer >= 0) {
      j["window"] = buffer;
      j["offset"] = offset;
    } else if (t.numel() == 0) {
      j["empty"] = true;
    } else {
      const void* key = t.storage().data();
      j["region"] = region_of.at(key);
      j["offset"] = static_cast<const uint8_t*>(t.const_data_ptr()) - ranges.at(key).first;
    }
    return j;
  }

  json value(const Value& v) {
    switch (v.kind) {
      case Value::Kind::None:
        return nullptr;
      case Value::Kind::Int:
        return {{"k", "i"}, {"v", v.i}, {"s", static_cast<int>(v.stype)}};
      case Value::Kind::Float: {
        int64_t bits = 0;  // bit for bit: JSON has no NaN or infinity
        std::memcpy(&bits, &v.f, sizeof bits);
        return {{"k", "f"}, {"v", bits}, {"s", static_cast<int>(v.stype)}};
      }
      case Value::Kind::Bool:
        return {{"k", "b"}, {"v", v.i != 0}};
      case Value::Kind::Str:
        return {{"k", "s"}, {"v", *v.str}};
      case Value::Kind::DType:
        return {{"k", "d"}, {"s", static_cast<int>(v.stype)}, {"n", v.str ? json(*v.str) : json(nullptr)}};
      case Value::Kind::Tensor:
        return {{"k", "t"}, {"t", tensor(v.tensor, v.valid)}};
      case Value::Kind::Tuple:
      case Value::Kind::List: {
        json items = json::array();
        for (const Value& item : *v.items) items.push_back(value(item));
        return {{"k", v.kind == Value::Kind::Tuple ? "T" : "L"}, {"items", items}};
      }
    }
    return nullptr;
  }
};

struct Unpacker {
  sim::CommDomain& domain;
  const std::vector<at::Tensor>& regions;
  int rank;

  Value value(const json& j) {
    if (j.is_null()) return Value::none();
    const std::string k = j.at("k").get<std::string>();
    if (k == "i") return Value::from_int(j.at("v").get<int64_t>(), static_cast<c10::ScalarType>(j.at("s").get<int>()));
    if (k == "f") {
      const int64_t bits = j.at("v").get<int64_t>();
      double f = 0;
      std::memcpy(&f, &bits, sizeof f);
      return Value::from_float(f, static_cast<c10::ScalarType>(j.at("s").get<int>()));
    }
    if (k == "b") return Value::from_bool(j.at("v").get<bool>());
    if (k == "s") return Value::from_string(j.at("v").get<std::string>());
    if (k == "d") {
      if (j.at("n").is_string()) return Value::from_dtype_name(j.at("n").get<std::string>());
      return Value::from_dtype(static_cast<c10::ScalarType>(j.at("s").get<int>()));
    }
    if (k == "t") return tensor(j.at("t"));
    std::vector<Value> items;
    for (const json& item : j.at("items")) items.push_back(value(item));
    return k == "T" ? Value::tuple(std::move(items)) : Value::list(std::move(items));
  }

  Value tensor(const json& j) {
    const auto sizes = j.at("sizes").get<std::vector<int64_t>>();
    const auto strides = j.at("strides").get<std::vector<int64_t>>();
    const auto dtype = static_cast<c10::ScalarType>(j.at("dtype").get<int>());
    at::Tensor t;
    if (j.contains("window")) {
      t = domain.view_at(rank, j.at("window").get<int>(), j.at("offset").get<int64_t>(), sizes, strides, dtype);
    } else if (j.contains("empty")) {
      t = at::empty(sizes, at::TensorOptions().dtype(dtype));
    } else {
      const at::Tensor& region = regions.at(j.at("region").get<size_t>());
      t = at::from_blob(region.data_ptr<uint8_t>() + j.at("offset").get<int64_t>(), sizes, strides,
                        at::TensorOptions().dtype(dtype));
    }
    const auto valid = j.at("valid").get<std::vector<int64_t>>();
    return valid.empty() ? Value::from_tensor(t) : Value::from_tensor(t, valid);
  }
};

}  // namespace

ShippedFrame pack_frame(const sim::Frame& frame, const std::vector<int>& slots, sim::CommDomain& domain) {
  std::vector<int> wanted = slots;  // each once: a loop variable may be read too
  wanted.insert(wanted.end(), frame.active_loop_vars.begin(), frame.active_loop_vars.end());
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  Packer p{domain, {}, {}, {}};
  for (int s : wanted)
    if (s >= 0 && static_cast<size_t>(s) < frame.slots.size()) p.note(frame.slots[static_cast<size_t>(s)]);
  ShippedFrame out;
  json sizes = json::array();
  for (const auto& [key, range] : p.ranges) {
    p.region_of[key] = static_cast<int>(out.regions.size());
    const int64_t n = range.second - range.first;
    out.regions.push_back(at::from_blob(const_cast<uint8_t*>(range.first), {n}, at::TensorOptions().dtype(at::kByte)));
    int64_t granule = 8;
    for (const auto& [start, element_size] : p.starts.at(key))
      granule = granule_of(element_size, start - range.first, granule);
    out.granules.push_back(granule);
    out.storages.push_back(key);
    out.starts.push_back(range.first - static_cast<const uint8_t*>(key));
    sizes.push_back(n);
  }
  json values = json::array();
  for (int s : wanted)
    if (s >= 0 && static_cast<size_t>(s) < frame.slots.size())
      values.push_back({s, p.value(frame.slots[static_cast<size_t>(s)])});
  out.text = {{"slots", values}, {"regions", sizes}, {"granules", out.granules}, {"loop_vars", frame.active_loop_vars}};
  return out;
}

std::vector<int64_t> region_bytes(const json& text) { return text.at("regions").get<std::vector<int64_t>>(); }

std::vector<int64_t> region_granules(const json& text) { return text.at("granules").get<std::vector<int64_t>>(); }

void set_region_keeping(ShippedFrame& frame, const std::vector<RegionKeeping>& keeping) {
  json kept = json::array();
  for (const RegionKeeping& k : keeping) kept.push_back({static_cast<int>(k.how), k.key, k.read_only});
  frame.text["kept"] = kept;
}

std::vector<RegionKeeping> region_keeping(const json& text) {
  std::vector<RegionKeeping> out(text.at("regions").size());
  if (const auto kept = text.find("kept"); kept != text.end())
    for (size_t r = 0; r < out.size() && r < kept->size(); ++r) {
      const int how = (*kept)[r].at(0).get<int>();
      if (how < 0 || how > static_cast<int>(Keeping::Use))
        throw sim::KernelError("a launch's region " + std::to_string(r) + " travels in an unknown way (" +
                               std::to_string(how) + ")");
      out[r] = {static_cast<Keeping>(how), (*kept)[r].at(1).get<int64_t>(), (*kept)[r].at(2).get<bool>()};
    }
  return out;
}

void set_region_sharing(ShippedFrame& frame, const std::vector<std::optional<SharedBytes>>& shared) {
  json places = json::array();
  for (const std::optional<SharedBytes>& s : shared)
    places.push_back(s ? json{s->pid, s->fd, s->offset, s->bytes} : json(nullptr));
  frame.text["shared"] = places;
}

std::vector<std::optional<SharedBytes>> region_sharing(const json& text) {
  std::vector<std::optional<SharedBytes>> out(text.at("regions").size());
  if (const auto places = text.find("shared"); places != text.end())
    for (size_t r = 0; r < out.size() && r < places->size(); ++r)
      if (const json& p = (*places)[r]; !p.is_null())
        out[r] = SharedBytes{p.at(0).get<int64_t>(), p.at(1).get<int64_t>(), p.at(2).get<int64_t>(),
                             p.at(3).get<int64_t>()};
  return out;
}

void unpack_frame(const json& text, const std::vector<at::Tensor>& regions, sim::CommDomain& domain, int rank,
                  sim::Frame& frame) {
  Unpacker u{domain, regions, rank};
  for (const json& entry : text.at("slots")) {
    const size_t slot = entry.at(0).get<size_t>();
    if (slot >= frame.slots.size()) throw sim::KernelError("a launch names variable slot " + std::to_string(slot) +
                                                           " of a program with " + std::to_string(frame.slots.size()));
    frame.slots[slot] = u.value(entry.at(1));
  }
  frame.active_loop_vars = text.at("loop_vars").get<std::vector<int>>();
}

}  // namespace pypto_golden::ranks
