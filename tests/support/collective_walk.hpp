// The collectives' loads as possim first computed them: every worker's schedule written
// out and its critical path walked round by round. model/plan/collective.cpp computes the
// same in closed form; tests hold the two together on grids of small cases.
#pragma once

#include "model/plan/collective.hpp"

namespace possim::test {

CollectiveLoad collective_load_walked(CollectiveKind kind, int workers, double bytes, int chunks,
                                      double latency_s, double per_message_s, double bytes_per_s);

}  // namespace possim::test
