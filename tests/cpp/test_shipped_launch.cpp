// What a chip launch ships to a rank in a worker process, and what comes back: the argument
// bindings run on the host so a rank is sent its row, not the whole host tensor; a binding
// that fails or makes a tensor of its own leaves the binding to the rank; changes come back
// per element (granule), as runs of bytes or, past kMaxRuns, with a mask that keeps the
// bytes the launch did not change; the tasks a rank recorded come back on the host's clock;
// large host tensors are memory a worker on this machine maps instead of receiving.
#include "ranks/changed_bytes.h"
#include "ranks/gloo_group.h"
#include "ranks/recorded_tasks.h"
#include "ranks/shared_host_memory.h"
#include "ranks/shipped_frame.h"
#include "sim/comm/comm_domain.h"
#include "sim/device.h"
#include "sim/kernel_error.h"
#include "sim/program_loader.h"
#include "sim/statements.h"
#include "sim/task_recorder.h"
#include "tensor/untouched_zeros.h"

#include <ATen/ATen.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include <unistd.h>

using namespace std::chrono_literals;
using namespace pypto_golden;

namespace {

// A host program: for r in pl.range(2): chip(xs[r], <y>, device=r), the chip body reading
// its first parameter and writing into its second. `y` is the second argument's expression.
std::string host_program(const std::string& y) {
  return R"({"format": "pypto-golden-sim", "version": 1, "source_file": "/k/host.py", "entry": "h", "devices": [0, 1],
   "functions": [{"name": "h", "line": 1, "level": "host",
     "params": [{"name": "xs", "kind": "tensor", "direction": "In", "shape": [4, 8], "dtype": "fp32"},
                {"name": "ys", "kind": "tensor", "direction": "Out", "shape": [4, 8], "dtype": "fp32"}],
     "slots": ["xs", "ys", "r", "chip.x", "chip.y"],
     "body": [
       {"s": "for", "line": 5, "kind": "range", "var": 2,
        "start": {"e": "const", "dtype": "int64", "v": 0},
        "stop": {"e": "const", "dtype": "int64", "v": 2},
        "step": {"e": "const", "dtype": "int64", "v": 1},
        "body": [{"s": "launch", "line": 6, "name": "chip", "rank": {"e": "var", "slot": 2}, "body": [
          {"s": "assign", "line": 6, "slot": 3, "value": {"e": "subscript", "text": "xs[r]",
            "base": {"e": "var", "slot": 0}, "index": [{"k": "index", "v": {"e": "var", "slot": 2}}]}},
          {"s": "assign", "line": 6, "slot": 4, "value": )" + y + R"(},
          {"s": "expr", "line": 9, "value": {"e": "var", "slot": 3}},
          {"s": "write", "line": 9, "target": 4, "text": "y[0:1]", "value": {"e": "var", "slot": 3},
           "index": [{"k": "slice", "lo": {"e": "const", "dtype": "int64", "v": 0}, "hi": {"e": "const", "dtype": "int64", "v": 1}}]}]}]},
       {"s": "join", "line": 10}]}]})";
}

struct Host {
  std::unique_ptr<sim::Program> program;
  sim::Device d0{0, {}}, d1{1, {}};
  sim::CommDomain domain{{0, 1}, {&d0, &d1}, 1000ms};
  at::Tensor xs = at::arange(32, at::kFloat).view({4, 8});
  at::Tensor ys = at::zeros({4, 8}, at::kFloat);
  sim::Frame frame;

  explicit Host(const std::string& y) : program(sim::parse_program(host_program(y), "host")) {
    frame.function = &program->entry();
    frame.device = &d0;
    frame.slots.resize(program->entry().slot_names.size());
    frame.slots[0] = sim::Value::from_tensor(xs);
    frame.slots[1] = sim::Value::from_tensor(ys);
    frame.slots[2] = sim::Value::from_int(1);
  }
  const sim::LaunchStmt& launch() const { return *program->launches.at(0); }
};

const std::string kRowOfYs =
    R"({"e": "subscript", "text": "ys[r]", "base": {"e": "var", "slot": 1}, "index": [{"k": "index", "v": {"e": "var", "slot": 2}}]})";

}  // namespace

TEST_CASE("bound on the host, a launch ships the rows its arguments view, not the whole host tensors") {
  Host host(kRowOfYs);
  CHECK(host.launch().reads(false) == std::vector<int>{0, 1, 2, 3, 4});
  // The loader's analysis: the chip program writes ys (through y = ys[r]), not xs, so a
  // worker sends nothing back of xs's row.
  CHECK_FALSE(host.launch().may_write_param(0));
  CHECK(host.launch().may_write_param(1));
  CHECK(host.launch().reads(true) == std::vector<int>{3, 4});  // the bound parameters, one only written into

  sim::Frame chip = host.frame;
  REQUIRE(host.launch().bind_arguments(chip));
  const ranks::ShippedFrame bound = ranks::pack_frame(chip, host.launch().reads(true), host.domain);
  REQUIRE(bound.regions.size() == 2);
  CHECK(ranks::region_bytes(bound.text) == std::vector<int64_t>{32, 32});
  CHECK(ranks::region_granules(bound.text) == std::vector<int64_t>{4, 4});
  const void* row1 = host.xs[1].data_ptr();
  CHECK((bound.regions[0].data_ptr() == row1 || bound.regions[1].data_ptr() == row1));

  const ranks::ShippedFrame whole = ranks::pack_frame(host.frame, host.launch().reads(false), host.domain);
  CHECK(ranks::region_bytes(whole.text) == std::vector<int64_t>{128, 128});
}

TEST_CASE("a binding that fails is left to the rank; a computed argument ends the bindings") {
  SUBCASE("an index out of range: the rank reports it, as a rank thread does") {
    Host host(R"({"e": "subscript", "text": "ys[7]", "base": {"e": "var", "slot": 1},
                  "index": [{"k": "index", "v": {"e": "const", "dtype": "int64", "v": 7}}]})");
    sim::Frame chip = host.frame;
    CHECK_FALSE(host.launch().bind_arguments(chip));
  }
  SUBCASE("a computed tensor: made by the rank when the launch starts there, from the whole xs") {
    Host host(R"({"e": "call", "op": "add", "args": [{"e": "var", "slot": 0}, {"e": "var", "slot": 0}], "kwargs": {}})");
    CHECK(host.launch().reads(true) == std::vector<int>{0, 3, 4});
    sim::Frame chip = host.frame;
    REQUIRE(host.launch().bind_arguments(chip));
    const ranks::ShippedFrame bound = ranks::pack_frame(chip, host.launch().reads(true), host.domain);
    CHECK(ranks::region_bytes(bound.text) == std::vector<int64_t>{128});  // xs, whose row chip.x views
  }
}

TEST_CASE("a launch argument nested far too deep is refused when loaded, not walked off the stack") {
  // The loader looks through a launch's bindings for the slots they read before it builds
  // (and depth-checks) them: that look must stop at the same bound.
  std::string deep;
  const int depth = 100000;
  for (int k = 0; k < depth; ++k) deep += R"({"e": "unary", "op": "neg", "operand": )";
  deep += R"({"e": "var", "slot": 1})" + std::string(depth, '}');
  CHECK_THROWS_WITH_AS(sim::parse_program(host_program(deep), "host"),
                       "host: function 'h': statements and expressions nest deeper than 500 levels; rebuild the "
                       "kernel with this pypto-golden",
                       sim::ProgramError);
}

TEST_CASE("granule: the bytes one element write covers") {
  CHECK(ranks::granule_of(4, 0, 8) == 4);
  CHECK(ranks::granule_of(4, 2, 8) == 2);   // a view starting mid-element of another
  CHECK(ranks::granule_of(8, 16, 8) == 8);
  CHECK(ranks::granule_of(2, 64, 4) == 2);  // fp32 and bf16 views of one region
  CHECK(ranks::granule_of(16, 0, 8) == 8);  // at most 8
  CHECK(ranks::effective_granule(12, 8) == 1);
  CHECK(ranks::effective_granule(16, 8) == 8);
}

TEST_CASE("changes come back per element, as runs that view the worker's bytes") {
  const at::Tensor before = at::zeros({10000}, at::kFloat).view(at::kByte);
  SUBCASE("nothing changed") { CHECK_FALSE(ranks::find_changes(before.clone(), before, 4)); }
  SUBCASE("1.0 over 0.0 keeps two of its bytes; the element comes back whole") {
    at::Tensor now = before.clone();
    now.view(at::kFloat)[2] = 1.0f;
    const auto whole = ranks::find_changes(now, before, 4);
    REQUIRE(whole);
    CHECK(whole->runs.size(0) == 1);
    CHECK(whole->runs[0][0].item<int64_t>() == 8);
    CHECK(whole->runs[0][1].item<int64_t>() == 4);
    const auto bytes = ranks::find_changes(now, before, 1);
    REQUIRE(bytes);
    CHECK(bytes->runs[0][0].item<int64_t>() == 10);
    CHECK(bytes->runs[0][1].item<int64_t>() == 2);
  }
  SUBCASE("runs, past equal stretches longer than a compared block") {
    at::Tensor now = before.clone();
    now.view(at::kFloat).narrow(0, 1, 3).fill_(2.0f);
    now.view(at::kFloat)[9000] = -1.0f;
    now.view(at::kFloat)[9999] = 5.0f;
    const auto changes = ranks::find_changes(now, before, 4);
    REQUIRE(changes);
    CHECK(at::equal(changes->runs, at::tensor({4, 12, 36000, 4, 39996, 4}, at::kLong).view({3, 2})));
    REQUIRE(changes->pieces.size() == 3);
    CHECK(changes->pieces[1].data_ptr() == static_cast<void*>(now.data_ptr<uint8_t>() + 36000));
    CHECK(changes->pieces[2].numel() == 4);
  }
}

TEST_CASE("past kMaxRuns a mask comes back, and only the changed elements are written") {
  const int64_t n = 4 * ranks::kMaxRuns;
  const at::Tensor before = at::zeros({n}, at::kFloat).view(at::kByte);
  at::Tensor now = before.clone();
  now.view(at::kFloat).slice(0, 0, n, 2).fill_(3.0f);  // every other element: 2 * kMaxRuns runs
  const auto changes = ranks::find_changes(now, before, 4);
  REQUIRE(changes);
  CHECK_FALSE(changes->runs.defined());
  REQUIRE(changes->mask.numel() == n);
  CHECK(changes->mask[0].item<bool>());
  CHECK_FALSE(changes->mask[1].item<bool>());
  // The host's odd elements were written by another rank meanwhile: they stay.
  at::Tensor host = at::full({n}, 7.0f).view(at::kByte);
  ranks::apply_mask(*changes, host, 4);
  const at::Tensor values = host.view(at::kFloat);
  CHECK(values[0].item<float>() == 3.0f);
  CHECK(values[1].item<float>() == 7.0f);
  CHECK(values[n - 2].item<float>() == 3.0f);
  CHECK(values[n - 1].item<float>() == 7.0f);
}

TEST_CASE("a rank's recorded tasks come back named, on the host's clock, on lanes after the host's") {
  sim::TaskRecorder host;
  const std::string host_task = "on_host";
  host.record(host_task, 3, 0, {host.now(), 0}, 0, 0, 0, {});
  std::this_thread::sleep_for(20ms);
  sim::TaskRecorder rank;  // made 20 ms after the host's
  const std::string chip = "chip", region = "step";
  {
    sim::ChipLaunchScope launch(1, 2, chip);
    rank.record(region, 7, 5, {rank.now(), 64}, 128, 0, 0, {});
  }
  const sim::TaskRecord sent = rank.tasks().at(0);
  ranks::add_recorded_tasks(host, ranks::recorded_tasks_text(rank), 1);
  const std::vector<sim::TaskRecord> all = host.tasks();
  REQUIRE(all.size() == 2);
  const sim::TaskRecord& got = all[1];  // later than the host's own
  CHECK(*got.name == "step");
  CHECK(*got.program == "chip");
  CHECK((got.line == 7 && got.device == 5 && got.rank == 1 && got.launch == 2 && got.depth == 0));
  CHECK((got.start_bytes == 64 && got.end_bytes == 128));
  CHECK(got.lane == 1);  // the host's own lane is 0
  const int64_t shift = rank.origin_unix_ns() - host.origin_unix_ns();
  CHECK(shift >= 20'000'000);
  // tasks() converts the clock's ticks at its rate as measured when called: within 1 us.
  CHECK(std::llabs(got.start_ns - (sent.start_ns + shift)) < 1000);
  CHECK(std::llabs((got.end_ns - got.start_ns) - (sent.end_ns - sent.start_ns)) < 1000);
  CHECK_THROWS_WITH_AS(ranks::add_recorded_tasks(host, R"({"origin": 0, "names": [], "tasks": [[0]]})", 3),
                       doctest::Contains("rank 3 sent back task records that are not: "), ranks::GroupError);
}

TEST_CASE("with ranks in processes, large host tensors are memory a local worker maps copy-on-write") {
  ranks::share_large_host_tensors();
  at::Tensor small = at::empty({ranks::kSharedFrom - 1}, at::kByte);
  CHECK_FALSE(ranks::shared_bytes_of(small.data_ptr(), 16).has_value());

  at::Tensor host = at::arange(ranks::kSharedFrom / 4, at::kInt);
  const uint8_t* base = static_cast<const uint8_t*>(host.const_data_ptr());
  const std::optional<ranks::SharedBytes> place = ranks::shared_bytes_of(base + 4099, 4096);
  REQUIRE(place.has_value());
  CHECK(place->pid == getpid());
  CHECK(place->offset == 4099);  // not on a page: the mapping starts at the page before
  CHECK(place->bytes == 4096);
  CHECK_FALSE(ranks::shared_bytes_of(base + host.nbytes() - 8, 16).has_value());  // past its end

  at::Tensor mapped = ranks::map_shared_bytes(*place);
  REQUIRE(mapped.numel() == 4096);
  CHECK(std::memcmp(mapped.const_data_ptr(), base + 4099, 4096) == 0);
  // The worker's writes are its own; the host's bytes stay.
  mapped.fill_(7);
  CHECK(host[1025].item<int>() == 1025);
  CHECK(host.slice(0, 1024, 2048).equal(at::arange(1024, 2048, at::kInt)));

  // Zero specs that large are fresh memory files too (no fill: a new file reads as zeros).
  at::Tensor zeros = pypto_golden::untouched_zeros({ranks::kSharedFrom / 2}, at::kShort);
  CHECK(ranks::shared_bytes_of(zeros.const_data_ptr(), zeros.nbytes()).has_value());
  CHECK(zeros.count_nonzero().item<int64_t>() == 0);
  CHECK_FALSE(ranks::shared_bytes_of(pypto_golden::untouched_zeros({4 << 20}, at::kByte).const_data_ptr(), 16));

  // Freed, the allocation is no longer offered; a mapping of a file that is gone is named.
  const ranks::SharedBytes gone = *place;
  host.reset();
  CHECK_FALSE(ranks::shared_bytes_of(base + 4099, 4096).has_value());
  CHECK(mapped[0].item<int>() == 7);  // a mapping outlives the host's allocation
  CHECK_THROWS_WITH(ranks::map_shared_bytes(ranks::SharedBytes{gone.pid, 999999, 0, 16}),
                    ("cannot open the host's memory /proc/" + std::to_string(gone.pid) +
                     "/fd/999999: No such file or directory (PYPTO_SIM_SHARE_HOST_MEMORY=off sends its bytes "
                     "instead)").c_str());
}

TEST_CASE("a launch's frame names the regions a worker maps, and no others") {
  ranks::ShippedFrame frame;
  frame.text = {{"regions", {16, 32, 64}}};
  ranks::set_region_sharing(frame, {std::nullopt, ranks::SharedBytes{42, 7, 4096, 32}, std::nullopt});
  const std::vector<std::optional<ranks::SharedBytes>> back = ranks::region_sharing(frame.text);
  REQUIRE(back.size() == 3);
  CHECK_FALSE(back[0].has_value());
  REQUIRE(back[1].has_value());
  CHECK((back[1]->pid == 42 && back[1]->fd == 7 && back[1]->offset == 4096 && back[1]->bytes == 32));
  CHECK_FALSE(back[2].has_value());
  // A frame of a host that shares nothing says nothing about it.
  frame.text.erase("shared");
  const std::vector<std::optional<ranks::SharedBytes>> none = ranks::region_sharing(frame.text);
  CHECK(std::count_if(none.begin(), none.end(), [](const auto& s) { return s.has_value(); }) == 0);
  CHECK(none.size() == 3);
}
