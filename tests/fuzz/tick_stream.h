// Fuzzing support: the input format of client_messages_fuzzer, a stream of
// ticks as a recording stores them.
//
// Each record is a 2-byte little-endian length followed by that many bytes
// of a binary v1::RecordedTick; a record cut short by the end of the data
// takes what is left. Only RecordedTick.inputs matters: the commands of
// every slot applied in one step.

#ifndef ATOLL_TESTS_FUZZ_TICK_STREAM_H_
#define ATOLL_TESTS_FUZZ_TICK_STREAM_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "atoll/v1/recording.pb.h"

namespace atl::fuzz {

/// The ticks of `data`, at most `max_ticks` of them (the rest is ignored).
/// A record that does not parse is an empty tick: the world still steps.
std::vector<v1::RecordedTick> DecodeTicks(const uint8_t* data, size_t size, size_t max_ticks);

/// The bytes DecodeTicks turns back into `ticks`.
std::string EncodeTicks(const std::vector<v1::RecordedTick>& ticks);

}  // namespace atl::fuzz

#endif  // ATOLL_TESTS_FUZZ_TICK_STREAM_H_
