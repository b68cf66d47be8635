// Atoll — library version.

#ifndef ATOLL_VERSION_H_
#define ATOLL_VERSION_H_

namespace atl {
/// The engine's version string, "MAJOR.MINOR.PATCH".
const char* EngineVersion();
}  // namespace atl

#endif  // ATOLL_VERSION_H_
