// Atoll — internal shape record.

#ifndef ATOLL_DYNAMICS_SHAPE_H_
#define ATOLL_DYNAMICS_SHAPE_H_

#include <cstdint>

#include "atoll/filter.h"
#include "atoll/geometry.h"
#include "atoll/math.h"
#include "dynamics/body.h"

namespace atl {

/// A shape as the world stores it; its broad-phase proxy id is its index.
struct Shape {
  int32_t body = kNullIndex;
  ShapeGeometry geometry;
  float density = 0.0f;
  float friction = 0.0f;
  float restitution = 0.0f;
  Filter filter;
  bool is_sensor = false;
  bool enable_sensor_events = true;
  bool enable_contact_events = true;
  bool enable_hit_events = false;
  /// True while the shape has a broad-phase proxy (its body is enabled).
  bool has_proxy = false;
  /// Tight bounds plus kSpeculativeDistance, as given to the broad phase.
  AABB aabb;
  uint64_t user_data = 0;
};

}  // namespace atl

#endif  // ATOLL_DYNAMICS_SHAPE_H_
