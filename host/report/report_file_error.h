// A report asked for (--junit FILE, --report DIR) that cannot be written, or whose file holds
// something this writer must not replace; the message names the option and the path.
// golden.ReportError in Python.
#pragma once

#include <stdexcept>

namespace pypto_golden {

class ReportFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace pypto_golden
