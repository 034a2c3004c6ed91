// How workers wait for each other, as a scenario's strategy options name it: bulk
// synchronous (a barrier per iteration) or stale synchronous (a worker may run `staleness`
// iterations ahead of a layer's last sync). Plans carry it; the scenario holds it.
#pragma once

namespace possim {

enum class Consistency { bsp, ssp };

}  // namespace possim
