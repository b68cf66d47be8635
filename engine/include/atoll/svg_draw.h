// Atoll — a DebugDraw that writes SVG.

#ifndef ATOLL_SVG_DRAW_H_
#define ATOLL_SVG_DRAW_H_

#include <string>

#include "absl/status/status.h"
#include "atoll/debug_draw.h"

namespace atl {

/// Collects primitives into an SVG document showing the world rectangle
/// `view` scaled to `width` pixels (height follows the aspect ratio).
class SvgDebugDraw final : public DebugDraw {
 public:
  SvgDebugDraw(const AABB& view, int width);

  void DrawPolygon(std::span<const Vec2> vertices, float radius, Color fill,
                   Color outline) override;
  void DrawCircle(Vec2 center, float radius, Vec2 axis, Color fill, Color outline) override;
  void DrawCapsule(Vec2 p1, Vec2 p2, float radius, Color fill, Color outline) override;
  void DrawSegment(Vec2 p1, Vec2 p2, Color color) override;
  void DrawPoint(Vec2 p, float size, Color color) override;
  void DrawString(Vec2 p, std::string_view text, Color color) override;

  /// A caption line in the top-left corner (e.g. "pyramid, step 120").
  void SetTitle(std::string_view title) { title_ = std::string(title); }

  /// The complete document.
  std::string Finish() const;

  /// Writes Finish() to `path`. Internal error naming the path on failure.
  absl::Status WriteFile(const std::string& path) const;

 private:
  // World -> pixel coordinates (y flipped).
  float X(float x) const;
  float Y(float y) const;

  AABB view_;
  float scale_;
  int width_;
  int height_;
  std::string title_;
  std::string body_;
};

}  // namespace atl

#endif  // ATOLL_SVG_DRAW_H_
