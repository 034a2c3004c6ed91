// What limits a point: the resource its time breakdown (model/run/breakdown.hpp) says the
// representative GPU waits for most, or the GPU itself when it hardly waits.
#pragma once
#include <string>

#include "model/run/result.hpp"

namespace possim {

struct Binding {
  std::string resource;  // "GPU compute", "NIC rx", "server shard CPU (apply)", ...
  TimeShare share = TimeShare::compute;
  double fraction = 0;   // of the iteration
};

// The largest share other than compute, named by resource (a network share by the NIC
// direction that carries the busiest node's bytes, with a hot spot said when the busiest
// node moves well over the mean); "GPU compute" when every other share is under 2% of the
// iteration.
Binding binding_resource(const Result& r);

}  // namespace possim
