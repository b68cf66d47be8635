// Atoll — shapes attached to bodies: materials, filtering, sensor and
// event flags.

#ifndef ATOLL_SHAPE_H_
#define ATOLL_SHAPE_H_

#include <cstdint>

#include "absl/status/status.h"
#include "atoll/filter.h"

namespace atl {

/// Material and behaviour of a shape; the geometry is passed separately.
struct ShapeDef {
  /// kg/m². Must be finite and >= 0; a dynamic body whose shapes all have
  /// zero density gets a mass of 1 kg so it can still move.
  float density = 1.0f;
  /// Coulomb friction coefficient, >= 0. Two shapes in contact use
  /// sqrt(friction_a * friction_b) (so ice on anything stays slippery).
  float friction = 0.6f;
  /// Coefficient of restitution, 0 (no bounce) .. 1 (elastic). Two shapes in
  /// contact use max(restitution_a, restitution_b) (a ball bounces on any
  /// floor).
  float restitution = 0.0f;
  /// Which shapes this one may collide with.
  Filter filter;
  /// A sensor detects overlap (sensor events) but makes no contact forces.
  bool is_sensor = false;
  /// Report sensor begin/end events for this sensor (or as a visitor).
  bool enable_sensor_events = true;
  /// Report contact begin/end events for contacts involving this shape.
  bool enable_contact_events = true;
  /// Report hit events (fast impacts) for this shape.
  bool enable_hit_events = false;
  /// Opaque value for the application; part of the snapshot.
  uint64_t user_data = 0;
};

/// Checks every field; InvalidArgument naming the first bad one, or OK.
absl::Status ValidateShapeDef(const ShapeDef& def);

}  // namespace atl

#endif  // ATOLL_SHAPE_H_
