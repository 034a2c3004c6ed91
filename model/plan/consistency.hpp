// How workers wait for each other: bulk synchronous (a barrier per iteration) or stale
// synchronous (a worker may run `staleness` iterations ahead of a layer's last sync).
#pragma once

namespace possim {

enum class Consistency { bsp, ssp };

}  // namespace possim
