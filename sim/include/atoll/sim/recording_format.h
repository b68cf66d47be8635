// atoll::sim — the world recording file format (docs/recording.md), shared
// by the server that appends recordings and the clients that read and
// write them: an 8-byte "ATOLLREC" magic and a u32 version, then records of
// [u32 payload length][u8 type][u64 FNV-1a of type and payload][payload, a
// serialized proto], all little-endian.

#ifndef ATOLL_SIM_RECORDING_FORMAT_H_
#define ATOLL_SIM_RECORDING_FORMAT_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "atoll/v1/recording.pb.h"

namespace atl::sim {

enum class RecordType : uint8_t { kHeader = 1, kCheckpoint = 2, kTick = 3 };

/// The 12 bytes every recording file starts with.
std::string RecordingFileHeader();

/// One framed record holding `payload`.
std::string EncodeRecord(RecordType type, const std::string& payload);

/// A recording read back, and how many leading bytes were whole records (a
/// crash can tear the last one: everything past valid_bytes).
struct ParsedRecording {
  v1::Recording recording;
  uint64_t valid_bytes = 0;
};

/// Parses recording file bytes, stopping at the first incomplete or corrupt
/// record. DataLoss when the magic or version is wrong, or when no header
/// and initial checkpoint precede the first bad record.
absl::StatusOr<ParsedRecording> ParseRecording(const std::string& bytes);

/// Reads and parses the file at `path`. NotFound naming the path when it
/// cannot be opened; ParseRecording's errors prefixed with the path.
absl::StatusOr<ParsedRecording> ReadRecording(const std::string& path);

/// The file bytes of a whole recording: header record, then checkpoints and
/// ticks in tick order (a checkpoint after the tick record of its tick), as
/// the server appends them.
std::string EncodeRecording(const v1::Recording& recording);

}  // namespace atl::sim

#endif  // ATOLL_SIM_RECORDING_FORMAT_H_
