#include "report/dfx_outputs.h"

#include "report/json_stream.h"
#include "report/task_graph.h"
#include "snapshot/atomic_file.h"
#include "snapshot/tensor_file.h"
#include "tensor/dtype_names.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace pypto_golden {
namespace {

using nlohmann::json;

double us(int64_t ns) { return static_cast<double>(ns) / 1000.0; }

std::string where(const DfxRun& run, int line) {
  return std::filesystem::path(run.source_file).filename().string() + ":" + std::to_string(line);
}

// What the tasks ran on and the graph between them.
struct Recorded {
  const std::vector<sim::TaskRecord>& tasks;
  const std::vector<sim::RecordedTensor>& tensors;
  const std::vector<sim::SubmitRecord>& submits;
  const std::vector<sim::TaskRecorder::TensorAlias>& aliases;
  TaskGraph graph;
  std::vector<TaskEdge> edges;  // between records: the graph's, a deps= edge from its predecessor's last block
};

// The name an edge's arrow carries: its tensor, or "deps=".
std::string edge_name(const TaskEdge& e, const Recorded& rec) {
  return e.explicit_dep ? "deps=" : rec.tensors[static_cast<size_t>(e.tensor)].name;
}

// A node's task name: its records', or the barrier's.
const std::string& node_name(const TaskNode& n, const Recorded& rec) {
  static const std::string dummy = "task_dummy";
  return n.records.empty() ? dummy : *rec.tasks[n.records.front()].name;
}

int node_line(const TaskNode& n, const Recorded& rec) {
  return n.submit ? n.submit->line : rec.tasks[n.records.front()].line;
}

// "FP32": a dtype as the DSL spells it (pl.FP32).
std::string dtype_name(c10::ScalarType t) {
  std::string name = pypto_name(t);
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return name;
}

// A window as deps.json gives a task's argument: the strided view of its tensor.
JsonText window_text(const sim::TaskWindow& w, const Recorded& rec) {
  const auto& t = rec.tensors[static_cast<size_t>(w.tensor)];
  JsonText out;
  out.field("type", w.write ? "OUTPUT" : "INPUT")
      .field("tensor_id", w.tensor)
      .field("tensor", t.name)
      .field("dtype", dtype_name(t.dtype))
      .field("shape", w.shape)
      .field("start_offset", w.start_offset)
      .field("strides", w.strides);
  return out;
}

// The fields each of our JSON files starts with: what it is and of which kernel.
void file_header(JsonObjectStream& out, const char* format, const DfxRun& run) {
  out.field("format", format);
  out.field("version", 1);
  out.field("kernel", run.kernel);
}

// Texts as one JSON array.
std::string json_array(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t k = 0; k < items.size(); ++k) out += (k ? "," : "") + items[k];
  return out + "]";
}

void write_records(const std::filesystem::path& path, const DfxRun& run, const Recorded& rec) {
  write_json_stream(path, [&](JsonObjectStream& out) {
    file_header(out, "pypto-golden-chip-swimlane", run);
    out.field("platform", run.platform);
    out.field("level", run.swimlane_level);
    out.field("source_file", run.source_file);
    out.field("time_unit", "us since the dispatch started");
    out.begin_array("tasks");
    for (size_t k = 0; k < rec.tasks.size(); ++k) {
      const auto& t = rec.tasks[k];
      JsonText task;
      task.field("task_id", k)
          .field("func_name", *t.name)
          .field("device", t.device)
          .field("worker", t.lane)
          .field("start_us", us(t.start_ns))
          .field("end_us", us(t.end_ns))
          .field("source", where(run, t.line))
          .field("depth", t.depth)
          .field("device_memory_bytes", std::vector<int64_t>{t.start_bytes, t.end_bytes});
      if (run.dep_gen) {
        std::vector<std::string> windows;
        for (const auto& w : t.windows) windows.push_back(window_text(w, rec).text());
        task.raw("windows", json_array(windows));
      }
      out.element(task);
    }
    out.end_array();
  });
}

// Chrome's trace-event format: a process per device, a thread per worker lane, a complete
// ("X") slice per task; a region nested in another on one lane lies inside it in time, so
// the viewer nests the slices.
void trace_events(const DfxRun& run, const Recorded& rec, JsonObjectStream& events) {
  const auto& tasks = rec.tasks;
  std::set<std::pair<int, int>> lanes;
  std::set<int> devices;
  for (const auto& t : tasks) {
    devices.insert(t.device);
    lanes.insert({t.device, t.lane});
  }
  for (const int d : devices)
    events.element({{"name", "process_name"}, {"ph", "M"}, {"pid", d}, {"tid", 0},
                    {"args", {{"name", "device " + std::to_string(d) + " (" + run.kernel + ")"}}}});
  for (const auto& [d, lane] : lanes)
    events.element({{"name", "thread_name"}, {"ph", "M"}, {"pid", d}, {"tid", lane},
                    {"args", {{"name", "worker " + std::to_string(lane)}}}});
  for (size_t k = 0; k < tasks.size(); ++k) {
    const auto& t = tasks[k];
    JsonText slice;
    slice.field("name", *t.name)
        .field("cat", "task")
        .field("ph", "X")
        .field("ts", us(t.start_ns))
        .field("dur", us(t.end_ns - t.start_ns))
        .field("pid", t.device)
        .field("tid", t.lane)
        .raw("args", JsonText().field("task_id", k).field("source", where(run, t.line)).text());
    events.element(slice);
  }
  // A counter per device of the memory in use, sampled at every task's start and end.
  std::map<int, std::vector<std::pair<int64_t, int64_t>>> memory;  // device -> (ns, bytes)
  for (const auto& t : tasks) {
    memory[t.device].push_back({t.start_ns, t.start_bytes});
    memory[t.device].push_back({t.end_ns, t.end_bytes});
  }
  for (auto& [d, samples] : memory) {
    std::stable_sort(samples.begin(), samples.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [ns, bytes] : samples) {
      JsonText counter;
      counter.field("name", "device memory")
          .field("cat", "memory")
          .field("ph", "C")
          .field("ts", us(ns))
          .field("pid", d)
          .raw("args", JsonText().field("bytes in use", bytes).text());
      events.element(counter);
    }
  }
  // A flow arrow per dependency, from inside the predecessor's slice to the successor's.
  for (size_t e = 0; e < rec.edges.size(); ++e) {
    const auto& p = tasks[rec.edges[e].pred];
    const auto& s = tasks[rec.edges[e].succ];
    const std::string name = edge_name(rec.edges[e], rec);
    JsonText start, finish;
    start.field("name", name).field("cat", "dep").field("ph", "s").field("id", e);
    start.field("ts", us(p.start_ns)).field("pid", p.device).field("tid", p.lane);
    finish.field("name", name).field("cat", "dep").field("ph", "f").field("bp", "e").field("id", e);
    finish.field("ts", us(s.start_ns)).field("pid", s.device).field("tid", s.lane);
    events.element(start);
    events.element(finish);
  }
}

void write_trace(const std::filesystem::path& path, const DfxRun& run, const Recorded& rec) {
  write_json_stream(path, [&](JsonObjectStream& out) {
    out.field("displayTimeUnit", "ns");
    out.field("otherData", {{"kernel", run.kernel}, {"platform", run.platform}, {"level", run.swimlane_level}});
    out.begin_array("traceEvents");
    trace_events(run, rec, out);
    out.end_array();
  });
}

// One JSON object per line per scope (a region's name): how often it ran and how long.
std::string scope_stats(const DfxRun& run, const Recorded& rec) {
  const auto& tasks = rec.tasks;
  struct Stats {
    int line = 0;
    int64_t count = 0, total = 0, min = INT64_MAX, max = 0;
  };
  std::map<std::string, Stats> by_name;
  std::vector<std::string> order;
  for (const auto& t : tasks) {
    auto [it, fresh] = by_name.try_emplace(*t.name);
    if (fresh) order.push_back(*t.name);
    Stats& s = it->second;
    const int64_t d = t.end_ns - t.start_ns;
    s.line = t.line;
    ++s.count;
    s.total += d;
    s.min = std::min(s.min, d);
    s.max = std::max(s.max, d);
  }
  std::string out;
  for (const auto& name : order) {
    const Stats& s = by_name[name];
    out += json({{"scope", name}, {"source", where(run, s.line)}, {"count", s.count}, {"total_us", us(s.total)},
                 {"mean_us", us(s.total) / static_cast<double>(s.count)}, {"min_us", us(s.min)}, {"max_us", us(s.max)}})
               .dump() +
           "\n";
  }
  return out;
}

// deps.json: the tasks with the windows they touched, the tensors, the edges (the fields
// PyPTO's dep_gen writes, where the simulator has them).
void write_deps(const std::filesystem::path& path, const DfxRun& run, const Recorded& rec) {
  write_json_stream(path, [&](JsonObjectStream& out) {
    file_header(out, "pypto-golden-deps", run);
    out.field("platform", run.platform);
    out.begin_array("tensors");
    for (size_t k = 0; k < rec.tensors.size(); ++k) {
      const auto& t = rec.tensors[k];
      out.element({{"tensor_id", k}, {"name", t.name}, {"dtype", dtype_name(t.dtype)}, {"shape", t.shape},
                   {"buffer_numel", t.numel}, {"manual_dep", t.manual_dep}});
    }
    out.end_array();
    out.begin_array("tasks");
    for (size_t k = 0; k < rec.graph.nodes.size(); ++k) {
      const TaskNode& n = rec.graph.nodes[k];
      std::vector<std::string> args;
      for (const auto& w : n.args) args.push_back(window_text(w, rec).field("idx", args.size()).text());
      const sim::SubmitRecord* s = n.submit;
      JsonText task;
      task.field("task_id", k)
          .field("func_name", node_name(n, rec))
          .field("source", where(run, node_line(n, rec)))
          .field("device", s ? s->device : rec.tasks[n.records.front()].device)
          .field("scope", s && s->manual ? "manual" : "auto")
          .field("kind", !s || s->kind == sim::SubmitKind::Region ? "task"
                         : s->kind == sim::SubmitKind::Launch     ? "spmd"
                                                                  : "dummy")
          .field("block_num", s ? s->block_num : 1)
          .raw("args", json_array(args));
      out.element(task);
    }
    out.end_array();
    out.begin_array("edges");
    for (const auto& e : rec.graph.edges) {
      JsonText edge;
      edge.field("pred", e.pred).field("succ", e.succ);
      if (e.explicit_dep) {
        edge.field("source", "explicit").field("arg", -1);
      } else {
        edge.field("source", "tensormap")
            .field("overlap", e.covered ? "covered" : "other")
            .field("tensor_id", e.tensor)
            .field("tensor", rec.tensors[static_cast<size_t>(e.tensor)].name);
      }
      out.element(edge);
    }
    out.end_array();
  });
}

// `s` as a DOT string: quotes and backslashes escaped, a line break as DOT's \n.
std::string dot_quoted(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '\n') {  // a line break of the label: DOT's \n
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// The same graph for Graphviz: a node per task (name, number, source line; an spmd launch
// with its block count), an edge per dependency labelled with its tensor (deps= edges bold).
std::string dot(const DfxRun& run, const Recorded& rec) {
  std::string out = "digraph " + dot_quoted(run.kernel) + " {\n  node [shape=box, fontname=\"monospace\"];\n";
  for (size_t k = 0; k < rec.graph.nodes.size(); ++k) {
    const TaskNode& n = rec.graph.nodes[k];
    std::string label = "#" + std::to_string(k) + " " + node_name(n, rec);
    if (n.submit && n.submit->kind == sim::SubmitKind::Launch) label += " x" + std::to_string(n.submit->block_num);
    out += "  t" + std::to_string(k) + " [label=" + dot_quoted(label + "\n" + where(run, node_line(n, rec))) +
           (n.records.empty() ? ", style=dashed" : "") + "];\n";
  }
  for (const auto& e : rec.graph.edges)
    out += "  t" + std::to_string(e.pred) + " -> t" + std::to_string(e.succ) + " [label=" +
           dot_quoted(edge_name(e, rec)) + (e.explicit_dep ? ", style=bold" : e.covered ? "" : ", style=dashed") +
           "];\n";
  return out + "}\n";
}

void write_text(const std::filesystem::path& path, const std::string& text) {
  write_file_atomically(path, [&](int fd) { write_all(fd, text.data(), text.size(), path); });
}

// args_dump/: a manifest of every window each task read (its data before the task used it)
// and wrote (its data when the task ended) and, at level 2, the data as one .pt per window;
// at level 1 the windows of the tensors tasks were asked to dump (pl.dump_tag / dumps=),
// with their data.
// A dtype torch.save's typed storages lack (the 8-bit floats, uint16/32/64) is stored as its
// bytes: uint8, with a last axis of the element size.
std::filesystem::path write_args_dump(const std::filesystem::path& dir, const DfxRun& run, const Recorded& rec) {
  const std::filesystem::path manifest = dir / "args_dump.json";
  write_json_stream(manifest, [&](JsonObjectStream& out) {
    file_header(out, "pypto-golden-args-dump", run);
    out.field("level", run.dump_args);
    out.begin_array("records");
    for (size_t k = 0; k < rec.tasks.size(); ++k) {
      const auto& t = rec.tasks[k];
      for (size_t i = 0; i < t.windows.size(); ++i) {
        const auto& w = t.windows[i];
        if (run.dump_args == 1 && !w.data.defined()) continue;  // not marked: idx keeps its place
        JsonText entry = window_text(w, rec);
        entry.field("task_id", k).field("func_name", *t.name).field("idx", i);
        entry.field("stage", w.write ? "after_completion" : "before_dispatch");
        if (!w.data.defined()) {
          entry.raw("file", "null");
        } else {
          const std::string file = "task" + std::to_string(k) + "_" + *t.name + "_" + std::to_string(i) +
                                   (w.write ? "_out" : "_in") + ".pt";
          at::Tensor data = w.data;
          if (!native_tensor_file_dtype(data.scalar_type())) {
            std::vector<int64_t> shape = data.sizes().vec();
            shape.push_back(static_cast<int64_t>(data.element_size()));
            data = data.contiguous().view(at::kByte).reshape(shape);
            entry.field("stored_as", "UINT8 bytes, last axis the element's");
          }
          save_tensor_file(dir / file, data);
          entry.field("file", file);
        }
        out.element(entry);
      }
    }
    out.end_array();
  });
  return manifest;
}

// pmu.csv: a row per task with PyPTO's leading columns where the simulator has them (the
// worker lane stands for the AICPU thread and the core) and, for the hardware counters it
// does not have, what it measures: the task's host time and the bytes of outside tensors it
// read and wrote.
std::string pmu_csv(const DfxRun& run, const Recorded& rec) {
  std::string out = "thread_id,core_id,task_id,func_name,sim_duration_ns,gm_read_bytes,gm_write_bytes,event_type\n";
  for (size_t k = 0; k < rec.tasks.size(); ++k) {
    const auto& t = rec.tasks[k];
    int64_t read = 0, written = 0;
    for (const auto& w : t.windows) {
      int64_t n = c10::elementSize(rec.tensors[static_cast<size_t>(w.tensor)].dtype);
      for (const int64_t e : w.shape) n *= e;
      (w.write ? written : read) += n;
    }
    out += std::to_string(t.lane) + "," + std::to_string(t.lane) + "," + std::to_string(k) + "," + *t.name + "," +
           std::to_string(t.end_ns - t.start_ns) + "," + std::to_string(read) + "," + std::to_string(written) + "," +
           std::to_string(run.pmu) + "\n";
  }
  return out;
}

// The files `run` asks for, of the tasks of one dispatch, in `dir`.
std::vector<std::filesystem::path> write_set(const std::filesystem::path& dir, const DfxRun& run, Recorded rec) {
  if (run.dep_gen) {
    rec.graph = task_graph(rec.tasks, rec.submits, rec.tensors, rec.aliases);
    rec.edges = rec.graph.record_edges;
    for (const auto& e : rec.graph.edges) {  // a deps= edge: from the last block to end to the first to start
      const auto& pred = rec.graph.nodes[e.pred].records;
      const auto& succ = rec.graph.nodes[e.succ].records;
      if (!e.explicit_dep || pred.empty() || succ.empty()) continue;
      const size_t last = *std::max_element(pred.begin(), pred.end(), [&](size_t a, size_t b) {
        return rec.tasks[a].end_ns < rec.tasks[b].end_ns;
      });
      rec.edges.push_back({last, succ.front(), -1, false, true});
    }
  }
  std::vector<std::filesystem::path> written;
  if (run.swimlane_level > 0) {
    written.push_back(dir / "chip_swimlane_records.json");
    write_records(written.back(), run, rec);
    written.push_back(dir / ("merged_swimlane_" + run.kernel + ".json"));
    write_trace(written.back(), run, rec);
  }
  if (run.dep_gen) {
    written.push_back(dir / "deps.json");
    write_deps(written.back(), run, rec);
    written.push_back(dir / "deps.dot");
    write_text(written.back(), dot(run, rec));
  }
  if (run.dump_args > 0) written.push_back(write_args_dump(dir / "args_dump", run, rec));
  if (run.pmu > 0) {
    written.push_back(dir / "pmu.csv");
    write_text(written.back(), pmu_csv(run, rec));
  }
  if (run.scope_stats) {
    written.push_back(dir / "scope_stats" / "scope_stats.jsonl");
    write_text(written.back(), scope_stats(run, rec));
  }
  return written;
}

}  // namespace

std::vector<std::filesystem::path> write_dfx_outputs(const std::filesystem::path& dir, const DfxRun& run,
                                                     const std::vector<sim::TaskRecord>& tasks,
                                                     const std::vector<sim::RecordedTensor>& tensors,
                                                     const std::vector<sim::SubmitRecord>& submits,
                                                     const std::vector<sim::TaskRecorder::TensorAlias>& aliases) {
  // An L3 program's chip launches each get their files in rank{r}/d{k}/ (the k-th launch on
  // rank r), as PyPTO's distributed runner lays them out; the swimlane of every rank is also
  // merged into one trace at the top.
  bool l3 = false;
  for (const auto& t : tasks) l3 = l3 || t.rank >= 0;
  if (!l3) return write_set(dir, run, {tasks, tensors, submits, aliases, {}, {}});
  using Where = std::pair<int, int>;
  std::map<Where, std::pair<std::vector<sim::TaskRecord>, std::vector<sim::SubmitRecord>>> launches;
  std::vector<sim::TaskRecord> host;
  std::vector<sim::SubmitRecord> host_submits;
  for (const auto& t : tasks) (t.rank >= 0 ? launches[{t.rank, t.launch}].first : host).push_back(t);
  for (const auto& s : submits)
    if (s.rank < 0)
      host_submits.push_back(s);
    else if (auto it = launches.find({s.rank, s.launch}); it != launches.end())
      it->second.second.push_back(s);
  std::vector<std::filesystem::path> written;
  if (!host.empty()) written = write_set(dir, run, {host, tensors, host_submits, aliases, {}, {}});
  for (auto& [where, group] : launches) {
    DfxRun chip = run;
    chip.kernel = *group.first.front().program;
    const auto dispatch_dir = dir / ("rank" + std::to_string(where.first)) / ("d" + std::to_string(where.second));
    for (auto& path : write_set(dispatch_dir, chip, {group.first, tensors, group.second, aliases, {}, {}}))
      written.push_back(path);
  }
  if (run.swimlane_level > 0) {
    written.push_back(dir / ("merged_swimlane_" + run.kernel + ".json"));
    write_trace(written.back(), run, {tasks, tensors, submits, aliases, {}, {}});
  }
  return written;
}

}  // namespace pypto_golden
