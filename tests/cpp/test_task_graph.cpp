// The task graph of enable_dep_gen from recorded windows: read-after-write and
// write-after-write edges, boxes of a tensor's shape, strided windows by their span, later
// covering writes superseding earlier ones.
#include "report/task_graph.h"

#include <doctest/doctest.h>

#include <tuple>

using pypto_golden::task_edges;
using pypto_golden::TaskEdge;
using pypto_golden::sim::RecordedTensor;
using pypto_golden::sim::TaskRecord;
using pypto_golden::sim::TaskWindow;

namespace {

const std::string kName = "t";

// A [rows, cols] window of a row-major [R, 16] tensor at (row, col).
TaskWindow box(int tensor, bool write, int64_t row, int64_t col, int64_t rows, int64_t cols) {
  return {tensor, write, row * 16 + col, {rows, cols}, {16, 1}, {}};
}

TaskRecord task(std::vector<TaskWindow> windows) {
  TaskRecord t;
  t.name = &kName;
  t.windows = std::move(windows);
  return t;
}

std::vector<std::tuple<size_t, size_t, int, bool>> edges_of(const std::vector<TaskRecord>& tasks,
                                                            const std::vector<RecordedTensor>& tensors) {
  std::vector<std::tuple<size_t, size_t, int, bool>> out;
  for (const TaskEdge& e : task_edges(tasks, tensors)) out.emplace_back(e.pred, e.succ, e.tensor, e.covered);
  return out;
}

const std::vector<RecordedTensor> kTwo = {{"a", c10::kFloat, {32, 16}, 512}, {"b", c10::kFloat, {32, 16}, 512}};

}  // namespace

TEST_CASE("a read depends on the writers of the windows it overlaps, by box") {
  const std::vector<TaskRecord> tasks = {
      task({box(0, true, 0, 0, 16, 16)}),   // 0 writes a's rows 0..16
      task({box(0, true, 16, 0, 16, 16)}),  // 1 writes a's rows 16..32
      task({box(0, false, 8, 0, 4, 16)}),   // 2 reads rows 8..12: inside 0's
      task({box(0, false, 12, 0, 8, 16)}),  // 3 reads rows 12..20: across 0's and 1's
      task({box(0, false, 0, 8, 32, 8)}),   // 4 reads the right half of every row
      task({box(1, false, 0, 0, 32, 16)}),  // 5 reads b, which nobody wrote
  };
  CHECK(edges_of(tasks, kTwo) == std::vector<std::tuple<size_t, size_t, int, bool>>{
                                     {0, 2, 0, true}, {0, 3, 0, false}, {1, 3, 0, false}, {0, 4, 0, false},
                                     {1, 4, 0, false}});
}

TEST_CASE("boxes side by side in a row do not overlap though their spans do") {
  const std::vector<TaskRecord> tasks = {
      task({box(0, true, 0, 0, 32, 8)}),   // the left half of every row
      task({box(0, false, 0, 8, 32, 8)}),  // the right half: spans interleave, boxes do not meet
  };
  CHECK(edges_of(tasks, kTwo).empty());
}

TEST_CASE("a covering write supersedes earlier writes; write after write is an edge") {
  const std::vector<TaskRecord> tasks = {
      task({box(0, true, 0, 0, 8, 16)}),    // 0
      task({box(0, true, 0, 0, 32, 16)}),   // 1 rewrites all of a: depends on 0, then covers it
      task({box(0, false, 0, 0, 4, 16)}),   // 2 reads rows 0..4: only 1 is its writer
  };
  CHECK(edges_of(tasks, kTwo) ==
        std::vector<std::tuple<size_t, size_t, int, bool>>{{0, 1, 0, false}, {1, 2, 0, true}});
}

TEST_CASE("a task's own windows give no edge; one edge per predecessor and tensor") {
  const std::vector<TaskRecord> tasks = {
      task({box(0, true, 0, 0, 16, 16), box(1, true, 0, 0, 16, 16)}),
      task({box(0, false, 0, 0, 4, 16), box(0, false, 4, 0, 4, 16), box(1, false, 0, 0, 1, 1),
            box(0, true, 0, 0, 1, 16), box(0, false, 0, 0, 1, 16)}),
  };
  CHECK(edges_of(tasks, kTwo) ==
        std::vector<std::tuple<size_t, size_t, int, bool>>{{0, 1, 0, true}, {0, 1, 1, true}});
}

TEST_CASE("a window that is not a box of the tensor's shape is told by its span") {
  // A column of a as a [32] vector with stride 16 (rank 1 against a's 2 axes).
  const TaskWindow column{0, false, 3, {32}, {16}, {}};
  const std::vector<TaskRecord> tasks = {
      task({box(0, true, 31, 0, 1, 16)}),  // the last row: inside the column's span [3, 500)
      task({column}),
  };
  CHECK(edges_of(tasks, kTwo) == std::vector<std::tuple<size_t, size_t, int, bool>>{{0, 1, 0, false}});
  const std::vector<TaskRecord> past = {task({box(0, true, 31, 8, 1, 8)}), task({column})};  // [504, 512)
  CHECK(edges_of(past, kTwo).empty());
}

TEST_CASE("empty windows touch nothing") {
  const std::vector<TaskRecord> tasks = {task({box(0, true, 0, 0, 16, 16)}), task({box(0, false, 0, 0, 0, 16)})};
  CHECK(edges_of(tasks, kTwo).empty());
}

namespace {

using pypto_golden::task_graph;
using pypto_golden::TaskGraph;
using pypto_golden::sim::SubmitKind;
using pypto_golden::sim::SubmitRecord;

SubmitRecord submit(int64_t id, SubmitKind kind, std::vector<int64_t> deps = {}, bool manual = false,
                    int64_t blocks = 1) {
  SubmitRecord s;
  s.id = id;
  s.kind = kind;
  s.block_num = blocks;
  s.manual = manual;
  s.deps = std::move(deps);
  return s;
}

TaskRecord ran(int64_t submit, std::vector<TaskWindow> windows) {
  TaskRecord t = task(std::move(windows));
  t.submit = submit;
  return t;
}

// (pred, succ, tensor, explicit) of the graph's edges between nodes.
std::vector<std::tuple<size_t, size_t, int, bool>> node_edges(const TaskGraph& g) {
  std::vector<std::tuple<size_t, size_t, int, bool>> out;
  for (const TaskEdge& e : g.edges) out.emplace_back(e.pred, e.succ, e.tensor, e.explicit_dep);
  return out;
}

}  // namespace

TEST_CASE("an spmd launch is one node: its blocks' windows as one window per tensor and direction") {
  const std::vector<SubmitRecord> submits = {submit(10, SubmitKind::Launch, {}, false, 2),
                                             submit(11, SubmitKind::Region)};
  const std::vector<TaskRecord> tasks = {
      ran(10, {box(0, false, 0, 0, 16, 16), box(1, true, 0, 0, 16, 16)}),  // block 0
      ran(10, {box(0, false, 16, 0, 16, 16), box(1, true, 16, 0, 8, 16)}),  // block 1
      ran(11, {box(1, false, 20, 0, 4, 16)}),  // reads what block 1 wrote
  };
  const TaskGraph g = task_graph(tasks, submits, kTwo);
  REQUIRE(g.nodes.size() == 2);
  CHECK(g.nodes[0].records == std::vector<size_t>{0, 1});
  REQUIRE(g.nodes[0].args.size() == 2);
  CHECK(g.nodes[0].args[0].shape == std::vector<int64_t>{32, 16});  // a: rows 0..32
  CHECK((g.nodes[0].args[1].write && g.nodes[0].args[1].start_offset == 0));
  CHECK(g.nodes[0].args[1].shape == std::vector<int64_t>{24, 16});  // b: rows 0..24
  CHECK(node_edges(g) == std::vector<std::tuple<size_t, size_t, int, bool>>{{0, 1, 1, false}});
  CHECK(g.record_edges.size() == 1);  // block 1 -> the reader
}

TEST_CASE("deps= edges join the windows' edges; a join stands for each of its ids; a dummy is a node") {
  const std::vector<SubmitRecord> submits = {
      submit(1, SubmitKind::Region),
      submit(2, SubmitKind::Region),
      submit(3, SubmitKind::Join, {1, 2}),
      submit(4, SubmitKind::Dummy, {3}),
      submit(5, SubmitKind::Region, {4, 1, 99}),  // 99: not a task of this dispatch
  };
  const std::vector<TaskRecord> tasks = {ran(1, {box(0, true, 0, 0, 16, 16)}), ran(2, {}),
                                         ran(5, {box(0, false, 0, 0, 1, 1)})};
  const TaskGraph g = task_graph(tasks, submits, kTwo);
  REQUIRE(g.nodes.size() == 4);  // the join is not one
  CHECK(g.nodes[2].records.empty());
  CHECK(node_edges(g) == std::vector<std::tuple<size_t, size_t, int, bool>>{
                             {0, 2, -1, true}, {1, 2, -1, true}, {0, 3, 0, false}, {0, 3, -1, true}, {2, 3, -1, true}});
}

TEST_CASE("a task of a manual scope neither depends on windows nor leaves them") {
  const std::vector<SubmitRecord> submits = {submit(1, SubmitKind::Region), submit(2, SubmitKind::Region, {}, true),
                                             submit(3, SubmitKind::Region)};
  const std::vector<TaskRecord> tasks = {ran(1, {box(0, true, 0, 0, 16, 16)}),
                                         ran(2, {box(0, false, 0, 0, 16, 16), box(0, true, 0, 0, 8, 16)}),
                                         ran(3, {box(0, false, 0, 0, 4, 16)})};
  CHECK(node_edges(task_graph(tasks, submits, kTwo)) ==
        std::vector<std::tuple<size_t, size_t, int, bool>>{{0, 2, 0, false}});
}

TEST_CASE("a window of an alias's source is the alias's window of its target") {
  // Tensor 1 (a tile) was assembled into rows 16..32 of tensor 0; a later task reads rows 20..24.
  const std::vector<RecordedTensor> tensors = {{"out", c10::kFloat, {32, 16}, 512}, {"t", c10::kFloat, {16, 16}, 256}};
  const std::vector<SubmitRecord> submits = {submit(1, SubmitKind::Region), submit(2, SubmitKind::Region)};
  const std::vector<TaskRecord> tasks = {ran(1, {box(1, true, 0, 0, 16, 16)}), ran(2, {box(0, false, 20, 0, 4, 16)})};
  const std::vector<pypto_golden::sim::TaskRecorder::TensorAlias> aliases = {{1, box(0, false, 16, 0, 16, 16)}};
  const TaskGraph g = task_graph(tasks, submits, tensors, aliases);
  CHECK(node_edges(g) == std::vector<std::tuple<size_t, size_t, int, bool>>{{0, 1, 0, false}});
  REQUIRE(g.nodes[0].args.size() == 1);
  CHECK((g.nodes[0].args[0].tensor == 0 && g.nodes[0].args[0].write && g.nodes[0].args[0].start_offset == 256));
  CHECK(node_edges(task_graph(tasks, submits, tensors)).empty());  // without it, no edge
}
