// A module that names possim's SimGrid entry points but was built from other sources: the
// loader (engines/simgrid_module.cpp) must refuse it by name and never call into it.
// Built as its own shared object (tests/CMakeLists.txt), outside possim_tests.
#include <cstdint>
#include <cstdlib>

extern "C" void* possim_simgrid_make(const void*) { std::abort(); }
extern "C" std::uint64_t possim_simgrid_types() { return 0; }
