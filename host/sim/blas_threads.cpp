#include "sim/blas_threads.h"

#include <dlfcn.h>

#include <mutex>

namespace pypto_golden::sim {
namespace {

struct OpenBlas {
  void (*set)(int) = nullptr;
  int (*get)() = nullptr;
  bool present() const { return set && get; }
};

// Looked up at run time in the BLAS libtorch already loaded: which one that is, is the
// system's choice (Debian's alternatives), not ours. Python loads extension modules with
// RTLD_LOCAL, so the global scope (RTLD_DEFAULT) does not see it; RTLD_NOLOAD finds the
// loaded library without ever loading one.
const OpenBlas& openblas() {
  static const OpenBlas o = [] {
    OpenBlas b;
    for (const char* name : {"libblas.so.3", "libopenblas.so.0"}) {
      void* handle = dlopen(name, RTLD_NOW | RTLD_NOLOAD);
      if (!handle) continue;
      b.set = reinterpret_cast<void (*)(int)>(dlsym(handle, "openblas_set_num_threads"));
      b.get = reinterpret_cast<int (*)()>(dlsym(handle, "openblas_get_num_threads"));
      dlclose(handle);  // drops only our reference; the library stays loaded by libtorch
      if (b.present()) break;
      b = OpenBlas{};
    }
    return b;
  }();
  return o;
}

std::mutex g_mu;
int g_open = 0;   // scopes open (several devices / dispatching threads may overlap)
int g_saved = 0;  // the thread count to restore

}  // namespace

SerialBlasScope::SerialBlasScope() {
  const OpenBlas& b = openblas();
  if (!b.present()) return;
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_open++ == 0) {
    g_saved = b.get();
    if (g_saved != 1) b.set(1);
  }
}

SerialBlasScope::~SerialBlasScope() {
  const OpenBlas& b = openblas();
  if (!b.present()) return;
  std::lock_guard<std::mutex> lock(g_mu);
  if (--g_open == 0 && g_saved != 1) b.set(g_saved);
}

int blas_thread_count() {
  const OpenBlas& b = openblas();
  return b.present() ? b.get() : -1;
}

}  // namespace pypto_golden::sim
