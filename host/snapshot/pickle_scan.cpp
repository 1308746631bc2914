#include "snapshot/pickle_scan.h"

#include "snapshot/little_endian.h"

#include <cstdint>
#include <cstring>

namespace pypto_golden {
namespace {

// How an opcode's argument is laid out (the pickle protocols 0 to 5, as Python's
// pickletools lists them).
enum class Arg { None, Fixed, Counted, Line, TwoLines };

struct OpcodeShape {
  Arg arg = Arg::None;
  int width = 0;  // Fixed: the argument's bytes; Counted: the little-endian count's bytes
  const char* what = "";
};

bool shape_of(unsigned char op, OpcodeShape& out) {
  switch (op) {
    // no argument
    case '(': case '.': case '0': case '1': case '2': case 'N': case 0x88: case 0x89: case '}': case ']':
    case ')': case 't': case 0x85: case 0x86: case 0x87: case 'a': case 'e': case 'd': case 'l': case 's':
    case 'u': case 'b': case 'R': case 0x81: case 0x92: case 0x93: case 0x8f: case 0x90: case 0x91: case 0x94:
    case 'Q': case 'o': case 0x97: case 0x98:
      out = {Arg::None, 0, ""};
      return true;
    // a fixed-size argument
    case 'K': case 'h': case 'q': case 0x82: case 0x80: out = {Arg::Fixed, 1, ""}; return true;
    case 'M': case 0x83: out = {Arg::Fixed, 2, ""}; return true;
    case 'J': case 'j': case 'r': case 0x84: out = {Arg::Fixed, 4, ""}; return true;
    case 'G': case 0x95: out = {Arg::Fixed, 8, ""}; return true;
    // a count, then that many bytes
    case 'U': out = {Arg::Counted, 1, "string"}; return true;
    case 'T': out = {Arg::Counted, 4, "string"}; return true;
    case 0x8c: out = {Arg::Counted, 1, "string"}; return true;
    case 'X': out = {Arg::Counted, 4, "string"}; return true;
    case 0x8d: out = {Arg::Counted, 8, "string"}; return true;
    case 'C': out = {Arg::Counted, 1, "bytes object"}; return true;
    case 'B': out = {Arg::Counted, 4, "bytes object"}; return true;
    case 0x8e: out = {Arg::Counted, 8, "bytes object"}; return true;
    case 0x96: out = {Arg::Counted, 8, "bytearray"}; return true;
    case 0x8a: out = {Arg::Counted, 1, "integer"}; return true;
    case 0x8b: out = {Arg::Counted, 4, "integer"}; return true;
    // text up to a newline (protocol 0)
    case 'I': case 'L': case 'F': case 'S': case 'V': case 'P': case 'g': case 'p':
      out = {Arg::Line, 0, ""};
      return true;
    case 'c': case 'i': out = {Arg::TwoLines, 0, ""}; return true;
    default:
      return false;
  }
}

}  // namespace

std::optional<std::string> pickle_length_problem(const unsigned char* data, size_t size) {
  size_t pos = 0;
  while (pos < size) {
    const unsigned char op = data[pos];
    OpcodeShape shape;
    if (op == '.' || !shape_of(op, shape)) return std::nullopt;
    const size_t at = pos++;
    const size_t left = size - pos;
    switch (shape.arg) {
      case Arg::None:
        break;
      case Arg::Fixed:
        if (static_cast<size_t>(shape.width) > left) return std::nullopt;  // truncated: the unpickler says so
        // LONG_BINPUT: the unpickler grows its memo table to the index (16 bytes an entry). A
        // pickler numbers its memo entries from 0, each put taking bytes of the pickle, so an
        // index past the pickle's size was never written by one (a fuzz finding: 2.8 GB).
        if (op == 'r') {
          const uint64_t index = little_endian(data + pos, shape.width);
          if (index > size)
            return "a memo index of " + std::to_string(index) + " at byte " + std::to_string(at) + " of a " +
                   std::to_string(size) + "-byte pickle";
        }
        pos += static_cast<size_t>(shape.width);
        break;
      case Arg::Counted: {
        if (static_cast<size_t>(shape.width) > left) return std::nullopt;
        const uint64_t count = little_endian(data + pos, shape.width);
        pos += static_cast<size_t>(shape.width);
        if (count > size - pos)
          return "a " + std::string(shape.what) + " of " + std::to_string(count) + " bytes at byte " +
                 std::to_string(at) + " of a " + std::to_string(size) + "-byte pickle";
        pos += static_cast<size_t>(count);
        break;
      }
      case Arg::Line:
      case Arg::TwoLines:
        for (int lines = shape.arg == Arg::Line ? 1 : 2; lines > 0; --lines) {
          const void* nl = std::memchr(data + pos, '\n', size - pos);
          if (!nl) return std::nullopt;
          pos = static_cast<size_t>(static_cast<const unsigned char*>(nl) - data) + 1;
        }
        break;
    }
  }
  return std::nullopt;
}

}  // namespace pypto_golden
