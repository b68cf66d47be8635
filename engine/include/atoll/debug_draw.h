// Atoll — debug drawing: how physics gets debugged (seed 004).
//
// World::Draw walks the world and calls a DebugDraw for what the options
// ask for. Implement the interface for your renderer, or use SvgDebugDraw
// (atoll/svg_draw.h) to write a frame to a file.

#ifndef ATOLL_DEBUG_DRAW_H_
#define ATOLL_DEBUG_DRAW_H_

#include <cstdint>
#include <span>
#include <string_view>

#include "atoll/math.h"

namespace atl {

/// An sRGB colour with alpha, each channel 0..1.
struct Color {
  float r = 0.0f, g = 0.0f, b = 0.0f, a = 1.0f;
};

/// Receives primitives from World::Draw, in world coordinates (meters, y up).
class DebugDraw {
 public:
  virtual ~DebugDraw() = default;
  /// A closed convex polygon (counter-clockwise), grown by `radius` when it
  /// is rounded.
  virtual void DrawPolygon(std::span<const Vec2> vertices, float radius, Color fill,
                           Color outline) = 0;
  /// A circle; `axis` is a unit vector marking the body's rotation.
  virtual void DrawCircle(Vec2 center, float radius, Vec2 axis, Color fill, Color outline) = 0;
  virtual void DrawCapsule(Vec2 p1, Vec2 p2, float radius, Color fill, Color outline) = 0;
  virtual void DrawSegment(Vec2 p1, Vec2 p2, Color color) = 0;
  /// A dot of `size` pixels, whatever the zoom.
  virtual void DrawPoint(Vec2 p, float size, Color color) = 0;
  /// Text anchored at a world point.
  virtual void DrawString(Vec2 p, std::string_view text, Color color) = 0;
};

/// What World::Draw draws.
struct DebugDrawOptions {
  bool shapes = true;
  bool joints = true;
  /// Contact points (and normals with contact_normals).
  bool contacts = false;
  bool contact_normals = false;
  /// The broad-phase boxes (tight bounds plus the speculative margin).
  bool aabbs = false;
  /// Colour dynamic bodies by island, so island structure is visible;
  /// otherwise one colour for all dynamic bodies.
  bool color_islands = true;
  /// Centers of mass.
  bool mass_centers = false;
};

}  // namespace atl

#endif  // ATOLL_DEBUG_DRAW_H_
