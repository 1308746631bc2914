// MKL's vector math functions, which ATen's exp, log, sqrt, tanh, erf, sin... call for
// float and double tensors, settle their code path at their first call in the process, and
// that first call is not safe to make from several threads at once: when a device's threads
// made theirs together, one of them computed exp to ~1e-4 of its value for that call (the
// softmax sample was off by up to 5e-5 in one tile of its first dispatch, in about one run in
// twenty). Calling each once on one thread, before anything runs them in parallel, settles it.
#pragma once

namespace pypto_golden::sim {

// Once per process (later calls return at once; concurrent ones wait for the first).
void warm_up_vector_math();

// Whether it has run in this process (the extension module runs it on import).
bool vector_math_warmed_up();

}  // namespace pypto_golden::sim
