#include "validate/gate_report.h"

#include <doctest/doctest.h>

using namespace pypto_golden;

TEST_CASE("a gate's lines become the compare_fn detail in one place") {
  const GateResult pass = gate_result({});
  CHECK((pass.passed && pass.detail.empty()));
  const GateResult fail = gate_result({"top-k idx mismatch", "  [0,1] actual_idx=3", "first 0 mismatches:", ""});
  CHECK_FALSE(fail.passed);
  // Four spaces a line, nesting kept, an empty line left empty.
  CHECK(fail.detail == "    top-k idx mismatch\n      [0,1] actual_idx=3\n    first 0 mismatches:\n");
}

TEST_CASE("a failing output's block is headed with its name, its comparator and its tensor") {
  CHECK(output_failure_text("y", std::nullopt, "shape=(4,) dtype=torch.float32", "    bad") ==
        "  'y' FAIL  shape=(4,) dtype=torch.float32\n    bad");
  CHECK(output_failure_text("y", std::string("rel_l2"), "shape=(4,) dtype=torch.float32", "    bad") ==
        "  'y' FAIL (rel_l2)  shape=(4,) dtype=torch.float32\n    bad");
  CHECK(output_failure_text("y", std::string(), "shape=(4,) dtype=torch.float32", "") ==
        "  'y' FAIL ()  shape=(4,) dtype=torch.float32\n");
}
