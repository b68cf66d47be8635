// atoll-server — the deterministic core now lives in atoll::sim
// (sim/include/atoll/sim/simulation.h), shared with the client so that a
// predicting client makes exactly the server's engine calls. These
// declarations keep the server's code and tests naming it as before.

#ifndef ATOLL_SERVER_SIMULATION_H_
#define ATOLL_SERVER_SIMULATION_H_

#include "atoll/sim/simulation.h"

namespace atl::server {

using sim::BuildScene;
using sim::BuiltScene;
using sim::CommandFailure;
using sim::kMaxTicksAhead;
using sim::NormalizeWorldConfig;
using sim::Simulation;
using sim::ToBodyId;
using sim::ToBodyRef;

}  // namespace atl::server

#endif  // ATOLL_SERVER_SIMULATION_H_
