// pl.cast(x, target_type, mode="round"), on tensors and scalars.
// Modes (by name or code): none=0 rint=1 round=2 floor=3 ceil=4 trunc=5 odd=6.
//   rint: nearest, ties to even; round: nearest, ties away from zero; floor / ceil / trunc:
//   toward -inf / +inf / zero; odd: round to odd (the neighbour whose last bit is 1);
//   none: as rint where the conversion loses precision (exact otherwise).
// Float -> integer applies the mode, then saturates to the target range (NaN -> 0); integer
// -> narrower integer saturates; float -> narrower float rounds by the mode (a value past
// the largest finite one becomes inf only when the mode rounds it there); widening is exact.
// The 8-bit floats convert as the hardware's fp8 conversion does, with saturation: the mode
// rounds, then a finite value past the largest finite one becomes +-max (fp8e4m3fn: 448,
// fp8e5m2: 57344); an infinity stays one in fp8e5m2 and becomes +-448 in fp8e4m3fn (which
// has none); NaN stays NaN. Inside the range, rint and none are torch's own `.to(float8)`
// (which overflows fp8e5m2 to infinity rather than saturating).
// fp8e8m0 (a power of two, 2^-127..2^127, no sign or zero) follows torch's conversion for
// the nearest modes (the sign is dropped, 0 and tiny values become 2^-127, a tie rounds
// up), floor/trunc/ceil/odd pick the power of two below / below / above / with an odd
// exponent, values past 2^127 saturate and NaN or infinity become NaN.
#include "sim/kernel_error.h"
#include "sim/ops/op_result.h"
#include "sim/ops/operand_checks.h"
#include "sim/ops/valid_padding.h"
#include "sim/ops/widen_to_fp32.h"
#include "tensor/python_repr.h"
#include "tensor/float8.h"

#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <cmath>
#include <cstring>
#include <optional>
#include <type_traits>

namespace pypto_golden::sim {
namespace {

using ops::Dest;

enum class Mode { None = 0, Rint = 1, Round = 2, Floor = 3, Ceil = 4, Trunc = 5, Odd = 6 };

Mode parse_mode(const Value* v) {
  if (!v) return Mode::Round;
  static const char* names[] = {"none", "rint", "round", "floor", "ceil", "trunc", "odd"};
  if (v->kind == Value::Kind::Int) {
    if (v->i < 0 || v->i > 6)
      throw KernelError("pl.cast: mode must be 0..6 (none rint round floor ceil trunc odd), got " + std::to_string(v->i));
    return static_cast<Mode>(v->i);
  }
  if (v->kind == Value::Kind::Str) {
    std::string m = *v->str;
    if (m.rfind("RoundMode.", 0) == 0) m = m.substr(10);
    for (auto& c : m) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (int k = 0; k < 7; ++k)
      if (m == names[k]) return static_cast<Mode>(k);
    throw KernelError("pl.cast: unknown mode '" + *v->str + "' (none, rint, round, floor, ceil, trunc, odd)");
  }
  throw KernelError("pl.cast: mode must be a string or an integer code, got " + v->describe());
}

#if PYPTO_HAS_FLOAT8
using E4M3 = c10::Float8_e4m3fn;
using E5M2 = c10::Float8_e5m2;
#else
struct E4M3 {};
struct E5M2 {};
#endif
#if PYPTO_HAS_FLOAT8_E8M0
using E8M0 = c10::Float8_e8m0fnu;
#else
struct E8M0 {};
#endif

template <typename T>
constexpr bool is_fp8 = std::is_same_v<T, E4M3> || std::is_same_v<T, E5M2> || std::is_same_v<T, E8M0>;

template <typename T>
constexpr bool is_fp = std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, c10::Half> ||
                       std::is_same_v<T, c10::BFloat16> || is_fp8<T>;

// Bit access for the float storage types.
template <typename D> struct Bits;
template <> struct Bits<float> {
  using U = uint32_t;
  static constexpr U kSign = 0x80000000u;
  static U get(float x) { U b; std::memcpy(&b, &x, 4); return b; }
  static float make(U b) { float x; std::memcpy(&x, &b, 4); return x; }
};
template <> struct Bits<c10::Half> {
  using U = uint16_t;
  static constexpr U kSign = 0x8000u;
  static U get(c10::Half x) { return x.x; }
  static c10::Half make(U b) { return c10::Half(b, c10::Half::from_bits()); }
};
template <> struct Bits<c10::BFloat16> {
  using U = uint16_t;
  static constexpr U kSign = 0x8000u;
  static U get(c10::BFloat16 x) { return x.x; }
  static c10::BFloat16 make(U b) { return c10::BFloat16(b, c10::BFloat16::from_bits()); }
};

#if PYPTO_HAS_FLOAT8
template <typename F8> struct Bits8 {
  using U = uint8_t;
  static constexpr U kSign = 0x80u;
  static U get(F8 x) { return x.x; }
  static F8 make(U b) { return F8(b, F8::from_bits()); }
};
template <> struct Bits<E4M3> : Bits8<E4M3> {};
template <> struct Bits<E5M2> : Bits8<E5M2> {};

// fp8e4m3fn / fp8e5m2 results that need no rounding: NaN, infinities and values at or past
// the largest finite one, which saturate (see the top of the file).
template <typename D>
std::optional<D> fp8_special(double v) {
  constexpr bool has_inf = std::is_same_v<D, E5M2>;
  const double max = std::is_same_v<D, E4M3> ? 448.0 : 57344.0;
  if (std::isnan(v)) return Bits<D>::make(0x7F);
  if (std::isinf(v) && has_inf) return Bits<D>::make(v > 0 ? 0x7C : 0xFC);
  if (std::fabs(v) >= max) return static_cast<D>(static_cast<float>(v > 0 ? max : -max));
  return std::nullopt;
}
#endif

template <typename D>
D next_up(D x) {
  using B = Bits<D>;
  auto b = B::get(x);
  auto mag = static_cast<typename B::U>(b & ~B::kSign);
  if (mag == 0) return B::make(1);
  return B::make(static_cast<typename B::U>((b & B::kSign) ? b - 1 : b + 1));
}

template <typename D>
D next_down(D x) {
  using B = Bits<D>;
  auto b = B::get(x);
  auto mag = static_cast<typename B::U>(b & ~B::kSign);
  if (mag == 0) return B::make(static_cast<typename B::U>(B::kSign | 1));
  return B::make(static_cast<typename B::U>((b & B::kSign) ? b + 1 : b - 1));
}

template <typename D>
double as_double(D x) { return static_cast<double>(static_cast<float>(x)); }

#if PYPTO_HAS_FLOAT8_E8M0
// fp8e8m0: the exponent byte e stands for 2^(e-127); 0xFF is NaN.
E8M0 round_e8m0(double v, Mode m) {
  auto make = [](int e) { return E8M0(static_cast<uint8_t>(e), E8M0::from_bits()); };
  if (std::isnan(v) || std::isinf(v)) return make(0xFF);
  v = std::fabs(v);
  if (v <= std::ldexp(1.0, -127)) return make(0);
  if (v >= std::ldexp(1.0, 127)) return make(254);
  int exp2 = 0;
  const double frac = std::frexp(v, &exp2);  // v = frac * 2^exp2, frac in [0.5, 1)
  const int lo = exp2 - 1 + 127;             // 2^(exp2-1) <= v
  if (frac == 0.5) return make(lo);           // exact
  switch (m) {
    case Mode::Floor: case Mode::Trunc: return make(lo);
    case Mode::Ceil: return make(lo + 1);
    case Mode::Odd: return make((lo & 1) ? lo : lo + 1);
    default: return make(frac >= 0.75 ? lo + 1 : lo);  // torch: ties (1.5 * 2^k) round up
  }
}
#endif

// v rounded to the IEEE-style float type D (sign, exponent, mantissa) by the mode.
template <typename D>
D round_ieee(double v, Mode m) {
  if (std::isnan(v)) return static_cast<D>(std::numeric_limits<float>::quiet_NaN());
  const D c = static_cast<D>(static_cast<float>(v));  // within one ulp of v
  const double cd = as_double(c);
  if (cd == v || std::isinf(v)) return c;
  D lo, hi;
  if (cd < v) {
    lo = c;
    hi = next_up(c);
  } else {
    hi = c;
    lo = next_down(c);
  }
  switch (m) {
    case Mode::Floor: return lo;
    case Mode::Ceil: return hi;
    case Mode::Trunc: return v > 0 ? lo : hi;
    case Mode::Odd: return (Bits<D>::get(lo) & 1) ? lo : hi;
    default: break;
  }
  // Nearest. An infinity counts as one ulp past the largest finite value (IEEE overflow).
  double lod = as_double(lo), hid = as_double(hi);
  if (std::isinf(hid)) hid = lod + (lod - as_double(next_down(lo)));
  if (std::isinf(lod)) lod = hid - (as_double(next_up(hi)) - hid);
  const double dl = v - lod, dh = hid - v;
  if (dl < dh) return lo;
  if (dh < dl) return hi;
  if (m == Mode::Round) return v > 0 ? hi : lo;
  return (Bits<D>::get(lo) & 1) ? hi : lo;
}

#if PYPTO_HAS_FLOAT8
// v (finite, inside fp8e4m3fn's / fp8e5m2's finite range) rounded to D by the mode, read
// off v's FP32 bits: the truncated code and what is left below it. round_ieee's several
// conversions to and from D took half of an fp8 kernel's runtime. A v that is no FP32 value
// (only a double scalar can be) goes through round_ieee.
template <typename D>
D round_fp8(double v, Mode m) {
  constexpr int kMant = std::is_same_v<D, E4M3> ? 3 : 2;   // mantissa bits
  constexpr int kBias = std::is_same_v<D, E4M3> ? 7 : 15;
  const float f = static_cast<float>(std::fabs(v));
  if (static_cast<double>(f) != std::fabs(v)) return round_ieee<D>(v, m);
  const uint8_t sign = std::signbit(v) ? 0x80 : 0;
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  const int exp = static_cast<int>(u >> 23) - 127;
  int lo;      // the code of the largest magnitude <= |v|
  int below;   // |v| against the midpoint to the next code: -1 under, 0 on it, 1 over
  bool exact;
  if (exp >= 1 - kBias) {  // a normal fp8 value: the top mantissa bits, the rest below
    constexpr uint32_t kRest = (1u << (23 - kMant)) - 1, kHalf = 1u << (22 - kMant);
    lo = ((exp + kBias) << kMant) | static_cast<int>((u >> (23 - kMant)) & ((1u << kMant) - 1));
    const uint32_t rest = u & kRest;
    exact = rest == 0;
    below = rest < kHalf ? -1 : rest == kHalf ? 0 : 1;
  } else {  // subnormal: multiples of 2^(1 - kBias - kMant), scaled to integers exactly
    const float scaled = f * static_cast<float>(1 << (kBias - 1 + kMant));
    const float whole = std::floor(scaled), frac = scaled - whole;
    lo = static_cast<int>(whole);
    exact = frac == 0.0f;
    below = frac < 0.5f ? -1 : frac == 0.5f ? 0 : 1;
  }
  int pick = lo;
  if (!exact) {
    const int hi = lo + 1;
    switch (m) {
      case Mode::Floor: pick = sign ? hi : lo; break;
      case Mode::Ceil: pick = sign ? lo : hi; break;
      case Mode::Trunc: pick = lo; break;
      case Mode::Odd: pick = (lo & 1) ? lo : hi; break;
      default:
        if (below != 0) pick = below < 0 ? lo : hi;
        else pick = m == Mode::Round ? hi : (lo & 1) ? hi : lo;  // ties away from zero, or to even
    }
  }
  return Bits<D>::make(static_cast<uint8_t>(sign | pick));
}
#endif

// v rounded to the float type D by the mode.
template <typename D>
D round_float(double v, Mode m) {
#if PYPTO_HAS_FLOAT8_E8M0
  if constexpr (std::is_same_v<D, E8M0>) {
    return round_e8m0(v, m);
  } else
#endif
  {
#if PYPTO_HAS_FLOAT8
    if constexpr (std::is_same_v<D, E4M3> || std::is_same_v<D, E5M2>) {
      if (auto r = fp8_special<D>(v)) return *r;
      return round_fp8<D>(v, m);
    } else
#endif
    {
      return round_ieee<D>(v, m);
    }
  }
}

double round_integer(double v, Mode m) {
  switch (m) {
    case Mode::Round: return std::round(v);
    case Mode::Floor: return std::floor(v);
    case Mode::Ceil: return std::ceil(v);
    case Mode::Trunc: return std::trunc(v);
    case Mode::Odd: {
      const double f = std::floor(v);
      if (f == v) return v;
      return std::fmod(f, 2.0) != 0.0 ? f : f + 1.0;
    }
    default: return std::nearbyint(v);  // ties to even (the default rounding direction)
  }
}

struct IntRange {
  int64_t lo, hi;
};

IntRange int_range(c10::ScalarType t, const std::string& name) {
  if (name == "uint16") return {0, 65535};
  if (name == "uint32") return {0, 4294967295LL};
  switch (t) {
    case at::kChar: return {-128, 127};
    case at::kByte: return {0, 255};
    case at::kShort: return {-32768, 32767};
    case at::kInt: return {-2147483648LL, 2147483647LL};
    case at::kLong: return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
    case at::kBool: return {0, 1};
    default: break;
  }
  return {0, 0};
}

int64_t saturate_double(double r, IntRange range) {
  if (std::isnan(r)) return 0;
  if (r >= static_cast<double>(range.hi) + 1.0) return range.hi;  // 2^63 for int64
  if (r <= static_cast<double>(range.lo)) return range.lo;
  return static_cast<int64_t>(r);
}

template <typename S>
double to_double(S x) {
  if constexpr (std::is_same_v<S, c10::Half> || std::is_same_v<S, c10::BFloat16>) return as_double(x);
  else return static_cast<double>(x);
}

template <typename S, typename D>
D convert(S x, Mode m, IntRange range) {
  if constexpr (std::is_same_v<D, bool>) {
    return to_double(x) != 0.0;
  } else if constexpr (std::is_same_v<D, double>) {
    return to_double(x);  // not a PyPTO dtype; here for the dispatch only
  } else if constexpr (is_fp<D>) {
    if constexpr (std::is_same_v<S, bool>) return static_cast<D>(x ? 1.0f : 0.0f);
    else return round_float<D>(to_double(x), m);
  } else if constexpr (is_fp<S>) {
    return static_cast<D>(saturate_double(round_integer(to_double(x), m), range));
  } else {
    const int64_t v = static_cast<int64_t>(x);
    return static_cast<D>(v < range.lo ? range.lo : v > range.hi ? range.hi : v);
  }
}

bool exact_widening(c10::ScalarType from, c10::ScalarType to, const std::string& to_name) {
  if (from == to) return true;
  if (is_float8(to)) return from == at::kBool;  // no integer or wider float fits exactly
  auto bits = [](c10::ScalarType t) { return static_cast<int>(c10::elementSize(t)) * 8; };
  const bool ff = at::isFloatingType(from), tf = at::isFloatingType(to);
  if (ff && tf) return to == at::kFloat;  // fp16/bf16 -> fp32 (fp16 <-> bf16 is not exact)
  if (from == at::kBool) return true;
  if (!ff && tf) {  // small integers are exact in the float's significand
    const int sig = to == at::kFloat ? 24 : to == at::kHalf ? 11 : 8;
    const int need = from == at::kByte ? 8 : bits(from) - 1;
    return need <= sig;
  }
  if (!ff && !tf && to != at::kBool) {
    if (to_name == "uint16" || to_name == "uint32") return false;
    const bool from_unsigned = from == at::kByte;
    if (from_unsigned) return bits(to) > 8;
    return to != at::kByte && bits(to) >= bits(from);
  }
  return false;
}

void cast_tensor(const at::Tensor& src, at::Tensor& out, Mode m, const std::string& to_name) {
  const c10::ScalarType from = src.scalar_type(), to = out.scalar_type();
  const bool ff = at::isFloatingType(from), tf = at::isFloatingType(to);
  // ATen's float -> float conversion rounds to nearest even, but does not saturate fp8.
  if (exact_widening(from, to, to_name) || (ff && tf && !is_float8(to) && (m == Mode::None || m == Mode::Rint))) {
    // Exact, or float -> float round-to-nearest-even (ATen's conversion).
    ops::copy_widening(src, out);
    return;
  }
  const IntRange range = int_range(to, to_name);
  // An fp8 source is read as float32, which holds each of its values exactly.
  at::Tensor s;
  if (is_float8(from)) {
    s = at::empty(src.sizes(), src.options().dtype(at::kFloat));
    ops::copy_widening(src, s);
  } else {
    s = src.contiguous();
  }
  at::Tensor o = out.is_contiguous() ? out : at::empty(out.sizes(), out.options());
  const int64_t n = s.numel();
  AT_DISPATCH_ALL_TYPES_AND3(at::kHalf, at::kBFloat16, at::kBool, s.scalar_type(), "pl.cast", [&] {
    using S = scalar_t;
    const S* sp = s.const_data_ptr<S>();
    auto loop = [&](auto* dp) {
      using D = std::remove_pointer_t<decltype(dp)>;
      for (int64_t k = 0; k < n; ++k) dp[k] = convert<S, D>(sp[k], m, range);
    };
    switch (to) {
#if PYPTO_HAS_FLOAT8
      case at::ScalarType::Float8_e4m3fn: loop(o.data_ptr<E4M3>()); return;
      case at::ScalarType::Float8_e5m2: loop(o.data_ptr<E5M2>()); return;
#endif
#if PYPTO_HAS_FLOAT8_E8M0
      case at::ScalarType::Float8_e8m0fnu: loop(o.data_ptr<E8M0>()); return;
#endif
      default: break;
    }
    AT_DISPATCH_ALL_TYPES_AND3(at::kHalf, at::kBFloat16, at::kBool, to, "pl.cast", [&] { loop(o.data_ptr<scalar_t>()); });
  });
  if (!o.is_same(out)) out.copy_(o);
}

Value cast_scalar(const Value& x, c10::ScalarType to, const std::string& to_name, Mode m) {
  const IntRange range = int_range(to, to_name);
  if (to == at::kBool) return Value::from_bool(x.truthy("pl.cast's input"));
  if (at::isFloatingType(to)) {
    double v = x.as_double("pl.cast's input");
    switch (to) {
      case at::kFloat: v = static_cast<double>(round_float<float>(v, m)); break;
      case at::kHalf: v = as_double(round_float<c10::Half>(v, m)); break;
      case at::kBFloat16: v = as_double(round_float<c10::BFloat16>(v, m)); break;
#if PYPTO_HAS_FLOAT8
      case at::ScalarType::Float8_e4m3fn: v = as_double(round_float<E4M3>(v, m)); break;
      case at::ScalarType::Float8_e5m2: v = as_double(round_float<E5M2>(v, m)); break;
#endif
#if PYPTO_HAS_FLOAT8_E8M0
      case at::ScalarType::Float8_e8m0fnu: v = as_double(round_float<E8M0>(v, m)); break;
#endif
      default: break;
    }
    return Value::from_float(v, to);
  }
  int64_t v;
  if (x.kind == Value::Kind::Float) {
    v = saturate_double(round_integer(x.f, m), range);
  } else {
    v = x.i < range.lo ? range.lo : x.i > range.hi ? range.hi : x.i;
  }
  return Value::from_int(v, to);
}

Value cast(const OpArgs& a, Dest& d) {
  const Value& x = a.required(0, "input");
  std::string to_name;
  const c10::ScalarType to = a.as_dtype(a.required(1, "target_type"), "target_type", &to_name);
  const Mode m = parse_mode(a.optional(2, "mode"));
  if (x.is_scalar()) return cast_scalar(x, to, to_name, m);
  const Value& x_v = a.as_tensor(x, "input");
  const at::Tensor& src = x_v.tensor;
  at::Tensor out = d.out(src.sizes(), to, {src}, src.scalar_type() == to, x_v.fully_valid());
  cast_tensor(src, out, m, to_name);
  return Value::from_tensor(out, x_v.valid);
}

}  // namespace

void register_cast_ops(OpTable& t) { t.add(fresh_result(ops::op_def<cast>("cast", 2, 3))); }

}  // namespace pypto_golden::sim
