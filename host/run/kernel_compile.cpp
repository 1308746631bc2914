#include "run/kernel_compile.h"

#include "run/run_errors.h"
#include "sim/kernel_error.h"
#include "sim/program_loader.h"
#include "tensor/dtype_names.h"
#include "tensor/python_repr.h"

#include <ATen/ATen.h>
#include <algorithm>
#include <torch/csrc/utils/pybind.h>

namespace py = pybind11;

namespace pypto_golden {
namespace {

std::string name_list(const std::vector<std::string>& names) {
  std::string out = "[";
  for (size_t k = 0; k < names.size(); ++k) out += (k ? ", " : "") + names[k];
  return out + "]";
}

std::vector<std::string> spec_names(const std::vector<NativeSpec>& specs) {
  std::vector<std::string> names;
  for (const auto& s : specs) names.push_back(s.name);
  return names;
}

// Same names in the same order, or a SpecError that shows both lists.
void check_names(const std::vector<std::string>& params, const std::vector<NativeSpec>& specs,
                 const std::string& kernel) {
  std::vector<std::string> given = spec_names(specs);
  if (given == params) return;
  std::string why;
  if (given.size() != params.size()) {
    why = "the kernel takes " + std::to_string(params.size()) + " parameters, the specs give " +
          std::to_string(given.size());
  } else {
    for (size_t k = 0; k < params.size(); ++k)
      if (params[k] != given[k]) {
        why = "position " + std::to_string(k) + " is the parameter '" + params[k] + "' but the spec is '" +
              given[k] + "'";
        break;
      }
  }
  throw SpecError("specs do not match the parameters of kernel '" + kernel + "': " + why +
                  " (kernel " + name_list(params) + ", specs " + name_list(given) +
                  "); list the specs in the kernel's parameter order");
}

// An L3 program's arguments are matched by name, as the public harness does: specs holding
// exactly the parameters' names are put in the parameter order (otherwise check_names says
// what differs).
void order_by_name(const std::vector<std::string>& params, std::vector<NativeSpec>& specs) {
  if (params.size() != specs.size()) return;
  std::vector<NativeSpec> ordered;
  ordered.reserve(specs.size());
  for (const auto& name : params) {
    auto it = std::find_if(specs.begin(), specs.end(), [&](const NativeSpec& s) { return s.name == name; });
    if (it == specs.end()) return;
    ordered.push_back(*it);
  }
  specs = std::move(ordered);
}

bool is_jit_function(const py::handle& fn) {
  return py::hasattr(fn, "compile") && py::hasattr(fn, "param_names");
}

}  // namespace

void stamp_directions(std::vector<NativeSpec>& specs, const CompiledMeta& meta, const std::string& kernel,
                      const StageLog& log, bool by_name) {
  std::vector<std::string> params;
  for (const auto& p : meta.params) params.push_back(p.name);
  if (by_name) order_by_name(params, specs);
  check_names(params, specs, kernel);
  for (size_t k = 0; k < specs.size(); ++k) {
    NativeSpec& s = specs[k];
    const ParamMeta& p = meta.params[k];
    const std::string who = std::string(s.is_tensor ? "TensorSpec '" : "ScalarSpec '") + s.name +
                            "' does not match parameter '" + p.name + "' of kernel '" + kernel + "': ";
    if (s.is_tensor == p.is_scalar)
      throw SpecError(who + "the spec is a " + (s.is_tensor ? "tensor" : "scalar") + " but the parameter is a " +
                      (p.is_scalar ? "scalar" : "tensor"));
    auto meta_type = scalar_type_from_pypto(p.dtype);
    if (!meta_type || *meta_type != s.dtype)
      throw SpecError(who + "dtype " + torch_dtype_repr(s.dtype) + " vs the kernel's " + p.dtype);
    if (s.is_tensor) {
      bool same = s.shape.size() == p.shape.size();
      for (size_t d = 0; same && d < s.shape.size(); ++d) same = p.shape[d] < 0 || p.shape[d] == s.shape[d];
      if (!same)
        throw SpecError(who + "shape " + python_shape_repr(s.shape) + " vs the kernel's " +
                        python_shape_repr(p.shape));
    }
    s.direction = s.is_tensor ? p.direction : Direction::In;
    if (s.is_tensor && !s.declared_shape.empty())
      log.line("[RUN]   warning: TensorSpec '" + s.name + "': its init_value tensor has shape " +
               python_shape_repr(s.shape) + " but the spec says " + python_shape_repr(s.declared_shape) +
               "; the run uses the tensor's shape, as the public harness does");
    if (s.is_tensor && s.is_output && !s.is_output.is_none()) {
      bool says_output = py::bool_(s.is_output);
      bool is_output = s.direction != Direction::In;
      if (says_output != is_output)
        log.line(std::string("[RUN]   warning: TensorSpec '") + s.name + "' has is_output=" +
                 (says_output ? "True" : "False") + " but the kernel declares it " + direction_name(s.direction) +
                 "; using the kernel's direction");
      else if (says_output && s.direction == Direction::Out && s.init_value && !s.init_value.is_none())
        // In the older harness is_output=True with an init_value uploaded it (an InOut).
        log.line("[RUN]   warning: TensorSpec '" + s.name +
                 "' has is_output=True and an init_value, which the older harness uploaded to the kernel; the "
                 "kernel declares it Out, so the init_value reaches only the golden (declare it pl.InOut for the "
                 "kernel to start from it)");
    }
  }
}

CompiledKernel compile_kernel(const py::handle& fn, std::vector<NativeSpec>& specs, const py::handle& config,
                              const StageLog& log) {
  if (!is_jit_function(fn))
    throw py::type_error("run(fn=...) expects a @pl.jit kernel, got " + std::string(py::repr(fn)));
  CompiledKernel out;
  out.name = py::str(py::getattr(fn, "__name__", py::str("kernel")));
  std::vector<std::string> params;
  for (const py::handle p : fn.attr("param_names")) params.push_back(py::str(p));
  const bool l3 = py::str(py::getattr(fn, "_func_type", py::none())).cast<std::string>() == "host";
  if (l3) order_by_name(params, specs);
  check_names(params, specs, out.name);

  bool signature_mode = false;
  for (const auto& s : specs) signature_mode = signature_mode || (!s.is_tensor && s.compile_runtime);

  py::object compiled;
  if (signature_mode) {
    // Runtime scalars: compile from the annotations, marked scalars stay parameters.
    py::object runtime_marker = py::module_::import("pypto.language").attr("RUNTIME");
    py::dict kwargs;
    for (const auto& s : specs)
      if (!s.is_tensor) kwargs[py::str(s.name)] = s.compile_runtime ? runtime_marker : py::cast(s.value).attr("item")();
    kwargs["config"] = config;
    compiled = fn.attr("compile")(**kwargs);
  } else {
    py::list args;
    for (const auto& s : specs) {
      // The JIT reads only shapes and dtypes: meta tensors, so that compiling a kernel whose
      // tensors do not fit in memory allocates nothing (the memory check speaks after it).
      if (s.is_tensor) args.append(py::cast(at::empty(s.shape, at::TensorOptions().dtype(s.dtype).device(at::kMeta))));
      else args.append(py::cast(s.value).attr("item")());
    }
    compiled = fn.attr("compile")(*args, py::arg("config") = config);
  }
  out.work_dir = std::filesystem::path(py::str(compiled.attr("output_dir")).cast<std::string>());
  out.meta = read_compiled_meta(out.work_dir);
  stamp_directions(specs, out.meta, out.name, log, l3);
  return out;
}

CompiledKernel open_build(const std::filesystem::path& dir, std::vector<NativeSpec>& specs,
                          const std::string& kernel_name, const StageLog& log) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) throw RunFailure("runtime_dir does not exist: " + dir.string());
  log.line("[RUN] runtime_only: skipping compile, using " + dir.string());
  CompiledKernel out;
  out.work_dir = dir;
  out.name = kernel_name;
  try {
    out.meta = read_compiled_meta(dir);
    sim::load_program_cached(dir);  // a build whose program cannot run fails here, not mid-run
  } catch (const ArtifactError& e) {
    throw RunFailure(std::string("runtime_dir is not a usable build: ") + e.what());
  } catch (const sim::ProgramError& e) {
    throw RunFailure(std::string("runtime_dir is not a usable build: ") + e.what());
  }
  stamp_directions(specs, out.meta, out.name, log, std::filesystem::exists(dir / "distributed_meta.json", ec));
  return out;
}

}  // namespace pypto_golden
