// A thread_local read on every task (the recorder's lane cache, the open task scope, region
// nesting). In the Python module, a shared library, the default TLS model makes each read a
// call of __tls_get_addr (~0.5 % of a recording dispatch's instructions); initial-exec reads
// it at a fixed offset, using a few of the bytes of static TLS that glibc keeps for dlopened
// libraries. The executable gets the same model from the linker anyway.
#pragma once

#define PYPTO_HOT_THREAD_LOCAL thread_local __attribute__((tls_model("initial-exec")))
