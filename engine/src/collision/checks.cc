#include "collision/checks.h"

#include "absl/strings/str_cat.h"
#include "atoll/constants.h"

namespace atl::internal {

absl::Status CheckPoint(absl::string_view what, Vec2 p) {
  if (!IsValid(p)) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " (", p.x, ", ", p.y, ") is not finite"));
  }
  if (Abs(p.x) > kWorldBound || Abs(p.y) > kWorldBound) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " (", p.x, ", ", p.y,
                     ") is beyond the world bound of +/-", kWorldBound, " m"));
  }
  return absl::OkStatus();
}

absl::Status CheckLength(absl::string_view what, float length,
                         bool allow_zero) {
  if (!IsFinite(length)) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " ", length, " is not finite"));
  }
  if (length < 0.0f || (!allow_zero && length == 0.0f)) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " ", length, allow_zero ? " is negative" : " is not positive"));
  }
  if (length > kWorldBound) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " ", length, " exceeds the world bound of ", kWorldBound, " m"));
  }
  return absl::OkStatus();
}

}  // namespace atl::internal
