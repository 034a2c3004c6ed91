// An instance's index where one is stored per instance (a run's timings: 6.8 million at
// 4,096 nodes), 32 bits: InstanceGraph refuses a plan with more instances than it holds.
#pragma once
#include <cstdint>

namespace possim {

using InstanceRef = std::int32_t;

}  // namespace possim
