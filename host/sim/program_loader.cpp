#include "sim/program_loader.h"

#include "artifact/sidecar_file.h"
#include "sim/ir_slots.h"
#include "sim/param_writes.h"
#include "sim/region_outputs.h"

#include <sys/stat.h>

#include "sim/expressions.h"
#include "sim/kernel_error.h"
#include "sim/ops/op_table.h"
#include "sim/statements.h"
#include "sim/temp_inlining.h"
#include "tensor/dtype_names.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <unordered_map>

namespace pypto_golden::sim {
namespace {

using nlohmann::json;

class Loader {
 public:
  Loader(std::string origin) : origin_(std::move(origin)) {}

  std::unique_ptr<Program> program(const json& doc) {
    if (!doc.is_object()) fail("the file must hold a JSON object");
    if (doc.value("format", std::string()) != "pypto-golden-sim")
      fail("not a pypto-golden simulator program (\"format\" is not \"pypto-golden-sim\")");
    const json& version = need(doc, "version");
    if (!version.is_number_integer() || version.get<int64_t>() != kProgramVersion)
      fail("program version " + version.dump() + " is not supported (this simulator runs version " +
           std::to_string(kProgramVersion) + ")");
    auto prog = std::make_unique<Program>();
    prog->source_file = str(need(doc, "source_file"), "source_file");
    const json& fns = need(doc, "functions");
    if (!fns.is_array() || fns.empty()) fail("\"functions\" must be a non-empty list");
    for (const auto& f : fns) prog->functions.push_back(function(f, prog->source_file));
    if (doc.contains("devices")) {
      const json& devices = doc["devices"];
      if (!devices.is_array() || devices.empty()) fail("\"devices\" must be a non-empty list of device ids");
      for (const auto& d : devices) prog->devices.push_back(integer(d, "devices[]"));
    }
    if (prog->entry().host != !prog->devices.empty())
      fail("a host program (\"level\": \"host\") needs \"devices\", and only a host program has them");
    prog->launches = std::move(launches_);
    return prog;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw ProgramError(origin_ + ": " + what + "; rebuild the kernel with this pypto-golden");
  }

  // Every variable slot a node and its children (blocks included) read: in expressions, and
  // the tensors statements write into (`y[...] = v`) or name (a region's dumps, no_dep).
  // Slots out of range are left out (the statements refuse them when built), and so is
  // what nests too deep (block() refuses it).
  void collect_reads(const json& node, std::set<int>& read) const {
    struct Reads {
      std::set<int>& out;
      size_t count;
      void insert(const json& slot) {
        if (const int64_t k = slot_index(slot, count); k >= 0) out.insert(static_cast<int>(k));
      }
      void read(const json& slot) { insert(slot); }
      void assign(const json&) {}
      void named(const json& owner, const char* key, const json& n) {
        const std::string k = key;
        if (k == "dumps" || k == "no_dep" || (k == "target" && owner.value("s", std::string()) == "write")) insert(n);
      }
    } reads{read, static_cast<size_t>(num_slots_)};
    visit_slot_names(node, 4 * kMaxDepth, reads);
  }

  const json& need(const json& obj, const char* key) const {
    auto it = obj.find(key);
    if (it == obj.end()) fail(where_ + "missing field '" + key + "'");
    return *it;
  }

  std::string str(const json& v, const char* what) const {
    if (!v.is_string()) fail(where_ + "'" + what + "' must be a string");
    return v.get<std::string>();
  }

  int integer(const json& v, const char* what) const {
    if (!v.is_number_integer()) fail(where_ + "'" + what + "' must be an integer");
    if (v.is_number_unsigned() ? v.get<uint64_t>() > INT32_MAX : v.get<int64_t>() < INT32_MIN || v.get<int64_t>() > INT32_MAX)
      fail(where_ + "'" + what + "' is out of range: " + v.dump());
    return v.get<int>();
  }

  int line(const json& node) const {
    auto it = node.find("line");
    return it == node.end() ? 0 : integer(*it, "line");
  }

  int64_t integer64(const json& v, const char* what) const {
    if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<uint64_t>() > INT64_MAX))
      fail(where_ + "'" + what + "' must be a 64-bit integer, got " + v.dump());
    return v.get<int64_t>();
  }

  // Statements and expressions nest by recursion here and when they run: a limit far above
  // what any kernel writes keeps a hostile file from overflowing the stack (500 levels fit
  // in the 8 MiB main stack even under AddressSanitizer, whose frames are several KiB).
  static constexpr int kMaxDepth = 500;
  struct Nesting {
    Nesting(Loader& l) : loader(l) {
      if (++loader.depth_ > kMaxDepth)
        loader.fail(loader.where_ + "statements and expressions nest deeper than " + std::to_string(kMaxDepth) +
                    " levels");
    }
    ~Nesting() { --loader.depth_; }
    Loader& loader;
  };

  // A submitted task's fields (IR.md): "tid", the slot its id is bound to; "deps", the
  // deps= expressions; "manual", whether a pl.manual_scope holds it.
  template <typename Task>
  void task_fields(const json& s, Task& task) {
    std::vector<ExprPtr> deps;
    if (s.contains("deps")) {
      if (!s["deps"].is_array()) fail(where_ + "'deps' must be a list of expressions");
      for (const auto& d : s["deps"]) deps.push_back(expr(d));
    }
    task.set_task(s.contains("tid") ? slot(s["tid"]) : -1, std::move(deps), s.value("manual", false));
  }

  int slot(const json& v) const {
    int s = integer(v, "slot");
    if (s < 0 || s >= num_slots_) fail(where_ + "slot " + std::to_string(s) + " is out of range");
    return s;
  }

  // A region's task name, as PyPTO's outliner names the InCore function it becomes (and as
  // pypto.ir.Program lists it): its name_hint, else <function>_incore_<n> counting the
  // function's regions in program order; a name taken already gets _1, _2, ...
  std::string outlined_name(const std::string& hint) {
    std::string name = hint.empty() ? function_name_ + "_incore_" + std::to_string(regions_) : hint;
    ++regions_;
    if (taken_.count(name)) {
      int n = 1;
      while (taken_.count(name + "_" + std::to_string(n))) ++n;
      name += "_" + std::to_string(n);
    }
    taken_.insert(name);
    return name;
  }

  std::unique_ptr<Function> function(const json& f, const std::string& source_file) {
    auto fn = std::make_unique<Function>();
    fn->source_file = source_file;
    fn->name = str(need(f, "name"), "name");
    function_name_ = fn->name;
    regions_ = 0;
    last_region_name_.clear();
    taken_ = {fn->name};
    fn->line = line(f);
    fn->host = f.value("level", std::string()) == "host";
    where_ = "function '" + fn->name + "': ";
    for (const auto& n : need(f, "slots")) fn->slot_names.push_back(str(n, "slots[]"));
    num_slots_ = static_cast<int>(fn->slot_names.size());
    slot_names_ = fn->slot_names;
    for (const auto& p : need(f, "params")) {
      ParamInfo info;
      info.name = str(need(p, "name"), "name");
      info.is_tensor = str(need(p, "kind"), "kind") == "tensor";
      info.direction = p.value("direction", std::string("In"));
      info.dtype = str(need(p, "dtype"), "dtype");
      if (!scalar_type_from_pypto(info.dtype)) fail(where_ + "unknown dtype '" + info.dtype + "'");
      if (info.is_tensor)
        for (const auto& d : need(p, "shape")) info.shape.push_back(integer64(d, "shape[]"));
      info.runtime_scalar = p.value("runtime", false);
      if (const auto v = p.find("value"); !info.is_tensor && v != p.end() && (v->is_number() || v->is_boolean())) {
        info.specialised_value = v->is_boolean() ? (v->get<bool>() ? 1.0 : 0.0) : v->get<double>();
        info.specialised_text = v->is_boolean() ? (v->get<bool>() ? "True" : "False") : v->dump();
      }
      fn->params.push_back(std::move(info));
    }
    if (static_cast<int>(fn->params.size()) > num_slots_) fail(where_ + "fewer slots than parameters");
    regions_made_.clear();
    launches_made_.clear();
    // JSON levels: a statement or expression takes one or two (its object, a list in it).
    num_params_ = static_cast<int>(fn->params.size());
    temps_ = single_use_slots(f, num_params_, 4 * kMaxDepth);
    fn->body = block(need(f, "body"));
    // The analyses walk the function's JSON once the statements have checked it.
    const auto outputs = region_outputs(f);
    for (const auto& [json_at, at] : regions_made_)
      if (auto it = outputs.find(json_at); it != outputs.end()) at->set_outputs(it->second);
    const ParamUses uses = param_uses(f, fn->host);
    for (size_t k = 0; k < fn->params.size(); ++k) {
      fn->params[k].may_be_written = uses.written[k];
      fn->params[k].write_only = uses.write_only[k];
      if (fn->host) fn->params[k].read_on_host = uses.read_on_host[k];
    }
    for (const auto& [json_at, launch] : launches_made_)
      if (auto it = uses.launch_writes.find(json_at); it != uses.launch_writes.end())
        launch->set_params_written(it->second);
    return fn;
  }

  Block block(const json& stmts) {
    Nesting nesting(*this);
    if (!stmts.is_array()) fail(where_ + "a statement block must be a list");
    Block out;
    for (size_t k = 0; k < stmts.size(); ++k) {
      const std::optional<FoldPlan> plan = plan_fold(stmts, k, temps_);
      if (plan) {
        // The statement that reads this one's variable, with this one's call for it; the
        // scalar assignments between them first (they make no region or launch, so the
        // order they are built in names nothing differently).
        fold_ = Fold{&stmts[k], plan->into, nullptr};
        StmtPtr use = stmt(stmts[plan->use]);
        if (auto* write = dynamic_cast<WriteStmt*>(use.get())) write->set_folded(fold_.built);
        const Expr* folded = fold_.built;
        fold_ = Fold{};
        for (size_t b = k + 1; b < plan->use; ++b) {
          StmtPtr between = stmt(stmts[b]);
          static_cast<AssignStmt&>(*between).set_folded(folded);
          out.push_back(std::move(between));
        }
        out.push_back(std::move(use));
        k = plan->use;
        continue;
      }
      out.push_back(stmt(stmts[k]));
    }
    return out;
  }

  StmtPtr stmt(const json& s) {
    if (!s.is_object()) fail(where_ + "a statement must be an object");
    const std::string kind = str(need(s, "s"), "s");
    const int line = this->line(s);
    if (kind == "for") {
      static const std::unordered_map<std::string, LoopKind> kinds = {
          {"range", LoopKind::Range}, {"parallel", LoopKind::Parallel}, {"unroll", LoopKind::Unroll},
          {"pipeline", LoopKind::Pipeline}, {"spmd", LoopKind::Spmd}};
      auto k = kinds.find(str(need(s, "kind"), "kind"));
      if (k == kinds.end()) fail(where_ + "line " + std::to_string(line) + ": unknown loop kind");
      // "ordered": a parallel loop whose iterations are linked through an array (one reads
      // what another writes, e.g. a TASK_ID array feeding deps=): they run one after another.
      const bool ordered = s.value("ordered", false);
      auto loop = std::make_unique<ForStmt>(line, k->second, slot(need(s, "var")), expr(need(s, "start")),
                                            expr(need(s, "stop")), expr(need(s, "step")), block(need(s, "body")),
                                            ordered);
      task_fields(s, *loop);
      if (s.contains("joins")) {
        std::vector<std::pair<int, int64_t>> joins;
        for (const auto& j : s["joins"]) {
          if (!j.is_array() || j.size() != 2) fail(where_ + "'joins' must be a list of [slot, task id] pairs");
          joins.emplace_back(slot(j[0]), integer64(j[1], "joins[][1]"));
        }
        loop->set_joins(std::move(joins));
      }
      if (k->second == LoopKind::Parallel || k->second == LoopKind::Spmd) {
        // The parameters too: what a launch in the body may write is known by them.
        std::set<int> live;
        for (int p = 0; p < num_params_; ++p) live.insert(p);
        collect_reads(need(s, "body"), live);
        if (s.contains("joins"))
          for (const auto& j : s["joins"]) live.insert(slot(j[0]));
        loop->set_live_in(std::vector<int>(live.begin(), live.end()));
      }
      return loop;
    }
    if (kind == "at") {
      const json& name = s.contains("name") ? s["name"] : json();
      // A later part of a task split at barriers (a pl.spmd body) is named as its first.
      const bool later_part = s.contains("part") && integer(s["part"], "part") > 0;
      if (later_part && last_region_name_.empty())
        fail(where_ + "line " + std::to_string(line) + ": a region's later part comes first");
      std::string named =
          later_part ? last_region_name_ : outlined_name(name.is_string() ? name.get<std::string>() : "");
      last_region_name_ = named;
      std::vector<int> dumps;
      if (s.contains("dumps")) {
        if (!s["dumps"].is_array()) fail(where_ + "'dumps' must be a list of slots");
        for (const auto& v : s["dumps"]) dumps.push_back(slot(v));
      }
      auto at = std::make_unique<AtStmt>(line, std::move(named), block(need(s, "body")), std::move(dumps));
      task_fields(s, *at);
      if (s.contains("no_dep")) {
        if (!s["no_dep"].is_array()) fail(where_ + "'no_dep' must be a list of slots");
        std::vector<int> slots;
        for (const auto& v : s["no_dep"]) slots.push_back(slot(v));
        at->set_no_dep(std::move(slots));
      }
      regions_made_.push_back({&s, at.get()});
      return at;
    }
    if (kind == "assign") return std::make_unique<AssignStmt>(line, slot(need(s, "slot")), expr(need(s, "value")));
    if (kind == "unpack") {
      std::vector<int> slots;
      for (const auto& v : need(s, "slots")) slots.push_back(slot(v));
      return std::make_unique<UnpackStmt>(line, std::move(slots), expr(need(s, "value")));
    }
    if (kind == "write") {
      int target = slot(need(s, "target"));
      std::string text = s.contains("text") && s["text"].is_string() ? s["text"].get<std::string>()
                                                                      : slot_names_[static_cast<size_t>(target)] + "[...]";
      return std::make_unique<WriteStmt>(line, target, index(need(s, "index")), std::move(text),
                                         expr(need(s, "value")));
    }
    if (kind == "expr") return std::make_unique<ExprStmt>(line, expr(need(s, "value")));
    if (kind == "barrier") return std::make_unique<BarrierStmt>(line);
    if (kind == "launch") {
      // What the chip program reads of the host's variables: all a rank in another process
      // is sent (a superset: the body's own variables are still unset at the launch), with
      // or without its leading assignments of views (its tensor arguments bound to its
      // parameters, rows[r]).
      const json& body = need(s, "body");
      size_t bindings = 0;
      while (body.is_array() && bindings < body.size() && is_view_binding(body[bindings])) ++bindings;
      std::set<int> bound_read;
      for (size_t i = bindings; body.is_array() && i < body.size(); ++i) collect_reads(body[i], bound_read);
      std::set<int> read = bound_read;
      for (size_t i = 0; i < bindings; ++i) collect_reads(body[i], read);
      auto launch = std::make_unique<LaunchStmt>(line, expr(need(s, "rank")), str(need(s, "name"), "name"),
                                                 block(body), static_cast<int>(launches_.size()), bindings,
                                                 std::vector<int>(read.begin(), read.end()),
                                                 std::vector<int>(bound_read.begin(), bound_read.end()));
      launches_.push_back(launch.get());
      launches_made_.emplace_back(&s, launch.get());
      return launch;
    }
    if (kind == "join") return std::make_unique<JoinStmt>(line);
    if (kind == "if")
      return std::make_unique<IfStmt>(line, expr(need(s, "cond")), block(need(s, "then")),
                                      s.contains("else") ? block(s["else"]) : Block{});
    if (kind == "return") {
      std::vector<ExprPtr> values;
      for (const auto& v : need(s, "values")) values.push_back(expr(v));
      return std::make_unique<ReturnStmt>(line, std::move(values));
    }
    fail(where_ + "line " + std::to_string(line) + ": unknown statement kind '" + kind + "'");
  }

  std::vector<IndexItem> index(const json& items) {
    if (!items.is_array()) fail(where_ + "an index must be a list");
    std::vector<IndexItem> out;
    for (const auto& it : items) {
      IndexItem item;
      std::string k = str(need(it, "k"), "k");
      if (k == "slice") {
        item.is_slice = true;
        if (it.contains("lo") && !it["lo"].is_null()) item.lo = expr(it["lo"]);
        if (it.contains("hi") && !it["hi"].is_null()) item.hi = expr(it["hi"]);
      } else if (k == "index") {
        item.is_slice = false;
        item.index = expr(need(it, "v"));
      } else {
        fail(where_ + "unknown index kind '" + k + "'");
      }
      out.push_back(std::move(item));
    }
    return out;
  }

  Value constant(const json& e) {
    const std::string dtype = str(need(e, "dtype"), "dtype");
    const json& v = need(e, "v");
    if (dtype == "str") return Value::from_string(str(v, "v"));
    if (dtype == "none") return Value::none();
    if (dtype == "dtype") {
      if (!Value::dtype_named(str(v, "v"))) fail(where_ + "unknown dtype '" + v.get<std::string>() + "'");
      return Value::from_dtype_name(v.get<std::string>());  // keeps uint32 apart from int64
    }
    if (dtype == "bool") return Value::from_bool(v.get<bool>());
    // A task id (pl.TASK_ID): an int64, -1 for "no task" (None, pl.system.task_invalid()).
    if (dtype == "task_id") return Value::from_int(integer64(v, "v"), c10::kLong);
    auto t = scalar_type_from_pypto(dtype);
    if (!t) fail(where_ + "unknown constant dtype '" + dtype + "'");
    if (at::isFloatingType(*t)) {
      if (!v.is_number()) fail(where_ + "a " + dtype + " constant must be a number, got " + v.dump());
      return Value::from_float(v.get<double>(), *t);
    }
    return Value::from_int(integer64(v, "v"), *t);
  }

  ExprPtr expr(const json& e) {
    Nesting nesting(*this);
    if (!e.is_object()) fail(where_ + "an expression must be an object");
    const std::string kind = str(need(e, "e"), "e");
    if (kind == "const") return std::make_unique<ConstExpr>(constant(e));
    if (kind == "var") return std::make_unique<VarExpr>(slot(need(e, "slot")));
    if (kind == "binop") {
      static const std::unordered_map<std::string, std::pair<BinOp, const char*>> ops = {
          {"add", {BinOp::Add, "+"}}, {"sub", {BinOp::Sub, "-"}}, {"mul", {BinOp::Mul, "*"}},
          {"truediv", {BinOp::TrueDiv, "/"}}, {"floordiv", {BinOp::FloorDiv, "//"}},
          {"mod", {BinOp::Mod, "%"}}, {"eq", {BinOp::Eq, "=="}}, {"ne", {BinOp::Ne, "!="}},
          {"lt", {BinOp::Lt, "<"}}, {"le", {BinOp::Le, "<="}}, {"gt", {BinOp::Gt, ">"}},
          {"ge", {BinOp::Ge, ">="}}, {"and", {BinOp::And, "and"}}, {"or", {BinOp::Or, "or"}}};
      static const std::unordered_map<std::string, std::string> tensor_ops = {
          {"add", "add"}, {"sub", "sub"}, {"mul", "mul"}, {"truediv", "div"}};
      std::string name = str(need(e, "op"), "op");
      auto op = ops.find(name);
      if (op == ops.end()) fail(where_ + "unknown operator '" + name + "'");
      auto t = tensor_ops.find(name);
      const OpDef* tensor_op = t == tensor_ops.end() ? nullptr : op_table().find(t->second);
      return std::make_unique<BinOpExpr>(op->second.first, op->second.second, expr(need(e, "lhs")),
                                         expr(need(e, "rhs")), tensor_op);
    }
    if (kind == "unary") {
      std::string op = str(need(e, "op"), "op");
      if (op != "neg" && op != "not") fail(where_ + "unknown unary operator '" + op + "'");
      return std::make_unique<UnaryExpr>(op == "not", expr(need(e, "operand")));
    }
    if (kind == "subscript") {
      std::string text = e.contains("text") && e["text"].is_string() ? e["text"].get<std::string>() : "subscript";
      return std::make_unique<SubscriptExpr>(expr(need(e, "base")), index(need(e, "index")), std::move(text));
    }
    if (kind == "call") {
      std::string name = str(need(e, "op"), "op");
      const OpDef* op = op_table().find(name);
      if (!op) fail(where_ + "the op '" + name + "' is not provided by this simulator");
      std::vector<ExprPtr> args;
      for (const auto& a : need(e, "args")) {
        if (&e == fold_.into && args.empty()) {
          const json* def = fold_.def;
          fold_.into = nullptr;  // the folded call's own arguments build as usual
          ExprPtr folded = expr(need(*def, "value"));
          static_cast<CallExpr&>(*folded).set_line(line(*def));
          fold_.built = folded.get();
          args.push_back(std::move(folded));
          continue;
        }
        args.push_back(expr(a));
      }
      if (static_cast<int>(args.size()) < op->min_args || static_cast<int>(args.size()) > op->max_args)
        fail(where_ + "op '" + name + "' takes " + std::to_string(op->min_args) + ".." +
             std::to_string(op->max_args) + " arguments, got " + std::to_string(args.size()));
      std::vector<std::pair<std::string, ExprPtr>> kwargs;
      if (e.contains("kwargs"))
        for (const auto& kv : e["kwargs"].items()) {
          bool known = false;
          for (const auto& k : op->keywords) known = known || k == kv.key();
          if (!known) fail(where_ + "op '" + name + "' has no keyword '" + kv.key() + "'");
          kwargs.emplace_back(kv.key(), expr(kv.value()));
        }
      return std::make_unique<CallExpr>(op, std::move(args), std::move(kwargs));
    }
    if (kind == "tuple" || kind == "list") {
      std::vector<ExprPtr> items;
      for (const auto& it : need(e, "items")) items.push_back(expr(it));
      return std::make_unique<SequenceExpr>(kind == "tuple", std::move(items));
    }
    fail(where_ + "unknown expression kind '" + kind + "'");
  }

  std::string origin_;
  std::string where_;
  std::set<int> temps_;                  // the function's single_use_slots
  int num_params_ = 0;                   // the function's parameters: slots 0 .. num_params_ - 1
  // While a statement is built with an earlier one folded into its call (plan_fold in
  // sim/temp_inlining.h: the statement that reads it, past scalar assignments).
  struct Fold {
    const json* def = nullptr;   // the assignment folded
    const json* into = nullptr;  // the call of the reading statement whose first operand it becomes
    const Expr* built = nullptr; // the call built of the assignment's value
  } fold_;
  std::vector<const LaunchStmt*> launches_;
  std::vector<std::pair<const json*, LaunchStmt*>> launches_made_;  // the function's, by their JSON
  int depth_ = 0;
  int num_slots_ = 0;
  std::vector<std::string> slot_names_;
  std::string function_name_;  // of the function being read
  int regions_ = 0;            // its pl.at regions so far
  std::set<std::string> taken_;
  std::string last_region_name_;  // of the function's last region
  std::vector<std::pair<const json*, AtStmt*>> regions_made_;  // the function's regions, by their JSON
};

}  // namespace

std::unique_ptr<Program> parse_program(const std::string& text, const std::string& origin) {
  json doc;
  try {
    doc = parse_sidecar_json(text);
  } catch (const SidecarFileError& e) {
    throw ProgramError(origin + ": " + e.what() + "; rebuild the kernel with this pypto-golden");
  }
  try {
    std::unique_ptr<Program> program = Loader(origin).program(doc);
    program->text = text;
    return program;
  } catch (const json::exception& e) {
    // A field of the wrong JSON type deep inside a node.
    throw ProgramError(origin + ": malformed program (" + json_error_text(e) +
                       "); rebuild the kernel with this pypto-golden");
  }
}

std::unique_ptr<Program> load_program(const std::filesystem::path& build_dir) {
  auto path = build_dir / kProgramFile;
  std::optional<std::string> text;
  try {
    text = read_sidecar_text(path);
  } catch (const SidecarFileError& e) {
    throw ProgramError(e.what() + std::string("; rebuild the kernel with this pypto-golden"));
  }
  if (!text)
    throw ProgramError(path.string() + " not found: the build has no simulator program; rebuild it "
                       "with -p a2a3sim (or a5sim)");
  return parse_program(*text, path.string());
}

std::shared_ptr<const Program> load_program_cached(const std::filesystem::path& build_dir) {
  struct Entry {
    struct timespec mtime {};
    off_t size = 0;
    std::shared_ptr<const Program> program;
  };
  static std::mutex mu;
  static std::map<std::string, Entry> cache;
  // One stat per lookup (every dispatch of a compiled program makes one): a rebuilt
  // program changes its file's time or size. The key is the path as given: another
  // spelling of it only costs a second entry.
  const std::string key = (build_dir / kProgramFile).string();
  struct stat st {};
  if (::stat(key.c_str(), &st) != 0) return load_program(build_dir);  // reports the missing file
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(key);
    if (it != cache.end() && it->second.mtime.tv_sec == st.st_mtim.tv_sec &&
        it->second.mtime.tv_nsec == st.st_mtim.tv_nsec && it->second.size == st.st_size)
      return it->second.program;
  }
  std::shared_ptr<const Program> program = load_program(build_dir);
  std::lock_guard<std::mutex> lock(mu);
  cache[key] = Entry{st.st_mtim, st.st_size, program};
  return program;
}

}  // namespace pypto_golden::sim
