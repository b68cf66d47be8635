#include "atoll/version.h"

namespace atl {

const char* EngineVersion() { return ATOLL_VERSION_STRING; }

}  // namespace atl
