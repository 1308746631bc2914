// BLAS threading while the simulator's workers run iterations side by side. Debian's torch
// calls OpenBLAS, which keeps its own thread pool: two workers each asking it for a
// multi-threaded GEMM queue behind each other (matmul-heavy kernels ran at half speed in
// about half of all processes). While a scope is open, OpenBLAS runs each call in the
// calling worker; the previous thread count (the golden's) is restored when the last
// scope closes. Without OpenBLAS (another BLAS, or none) this does nothing.
#pragma once

namespace pypto_golden::sim {

class SerialBlasScope {
 public:
  SerialBlasScope();
  ~SerialBlasScope();
  SerialBlasScope(const SerialBlasScope&) = delete;
  SerialBlasScope& operator=(const SerialBlasScope&) = delete;
};

// OpenBLAS's current thread count, or -1 when the BLAS in use is not OpenBLAS.
int blas_thread_count();

}  // namespace pypto_golden::sim
