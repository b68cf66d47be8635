// Fuzzing support: hand-made starting inputs for client_messages_fuzzer.

#ifndef ATOLL_TESTS_FUZZ_COMMAND_SEEDS_H_
#define ATOLL_TESTS_FUZZ_COMMAND_SEEDS_H_

#include <string>
#include <utility>
#include <vector>

namespace atl::fuzz {

/// (name, tick stream) pairs for the command world: every command kind
/// (each with and without its optional point), commands on spawned bodies
/// and joints, every joint change on each joint type that takes it, joint
/// destruction and breaking, and refusals of each kind.
std::vector<std::pair<std::string, std::string>> CommandSeeds();

}  // namespace atl::fuzz

#endif  // ATOLL_TESTS_FUZZ_COMMAND_SEEDS_H_
