// A walk over a pickle's opcodes, before torch's unpickler reads it: that unpickler sizes a
// string or bytes object by the length the pickle claims and zero-fills it before reading,
// so a 2 KiB damaged or hostile .pt file can make it allocate and touch gigabytes (or be
// OOM-killed). A claimed length past the end of the pickle is refused here instead, and so is
// a memo index past it (the unpickler grows its memo table to the index).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace pypto_golden {

// What is wrong with the pickle's lengths ("a string of 1500000000 bytes at byte 57 of a
// 400-byte pickle", "a memo index of 174000000 at byte 80 of a 400-byte pickle"), or nullopt when every length-prefixed argument fits. Stops at STOP and
// at an opcode it does not know (the unpickler stops there too).
std::optional<std::string> pickle_length_problem(const unsigned char* data, size_t size);

}  // namespace pypto_golden
