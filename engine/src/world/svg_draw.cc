#include "atoll/svg_draw.h"

#include <cstdio>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace atl {
namespace {

std::string Rgb(Color c) {
  auto channel = [](float v) { return static_cast<int>(Clamp(v, 0.0f, 1.0f) * 255.0f + 0.5f); };
  return absl::StrFormat("rgb(%d,%d,%d)", channel(c.r), channel(c.g), channel(c.b));
}

std::string Paint(Color fill, Color outline) {
  return absl::StrFormat(" fill=\"%s\" fill-opacity=\"%.2f\" stroke=\"%s\" stroke-opacity=\"%.2f\"",
                         Rgb(fill), fill.a, Rgb(outline), outline.a);
}

std::string Escape(std::string_view text) {
  std::string out;
  for (char ch : text) {
    switch (ch) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      default: out += ch;
    }
  }
  return out;
}

}  // namespace

SvgDebugDraw::SvgDebugDraw(const AABB& view, int width) : view_(view), width_(width) {
  const float w = Max(view.upper.x - view.lower.x, 1e-3f);
  const float h = Max(view.upper.y - view.lower.y, 1e-3f);
  scale_ = static_cast<float>(width) / w;
  height_ = static_cast<int>(h * scale_ + 0.5f);
}

float SvgDebugDraw::X(float x) const { return (x - view_.lower.x) * scale_; }
float SvgDebugDraw::Y(float y) const { return (view_.upper.y - y) * scale_; }

void SvgDebugDraw::DrawPolygon(std::span<const Vec2> vertices, float radius, Color fill,
                               Color outline) {
  std::string points;
  for (Vec2 v : vertices) absl::StrAppendFormat(&points, "%.2f,%.2f ", X(v.x), Y(v.y));
  // A rounded polygon is drawn as its core stroked with the rounding width.
  const float stroke = radius > 0.0f ? 2.0f * radius * scale_ : 1.0f;
  absl::StrAppendFormat(&body_,
                        "<polygon points=\"%s\"%s stroke-width=\"%.2f\" stroke-linejoin=\"round\"/>\n",
                        points, Paint(fill, radius > 0.0f ? fill : outline), stroke);
}

void SvgDebugDraw::DrawCircle(Vec2 center, float radius, Vec2 axis, Color fill, Color outline) {
  absl::StrAppendFormat(&body_, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%.2f\"%s/>\n", X(center.x),
                        Y(center.y), radius * scale_, Paint(fill, outline));
  const Vec2 tip = MulAdd(center, radius, axis);
  DrawSegment(center, tip, outline);
}

void SvgDebugDraw::DrawCapsule(Vec2 p1, Vec2 p2, float radius, Color fill, Color outline) {
  absl::StrAppendFormat(
      &body_,
      "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" stroke-opacity=\"%.2f\" "
      "stroke-width=\"%.2f\" stroke-linecap=\"round\"/>\n",
      X(p1.x), Y(p1.y), X(p2.x), Y(p2.y), Rgb(fill), fill.a, 2.0f * radius * scale_);
  DrawSegment(p1, p2, outline);
}

void SvgDebugDraw::DrawSegment(Vec2 p1, Vec2 p2, Color color) {
  absl::StrAppendFormat(&body_,
                        "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" "
                        "stroke-opacity=\"%.2f\" stroke-width=\"1\"/>\n",
                        X(p1.x), Y(p1.y), X(p2.x), Y(p2.y), Rgb(color), color.a);
}

void SvgDebugDraw::DrawPoint(Vec2 p, float size, Color color) {
  absl::StrAppendFormat(&body_, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%.2f\" fill=\"%s\"/>\n",
                        X(p.x), Y(p.y), 0.5f * size, Rgb(color));
}

void SvgDebugDraw::DrawString(Vec2 p, std::string_view text, Color color) {
  absl::StrAppendFormat(&body_,
                        "<text x=\"%.2f\" y=\"%.2f\" font-family=\"monospace\" font-size=\"12\" "
                        "fill=\"%s\">%s</text>\n",
                        X(p.x), Y(p.y), Rgb(color), Escape(text));
}

std::string SvgDebugDraw::Finish() const {
  std::string out = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
      "viewBox=\"0 0 %d %d\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"rgb(24,26,31)\"/>\n",
      width_, height_, width_, height_);
  out += body_;
  if (!title_.empty()) {
    absl::StrAppendFormat(&out,
                          "<text x=\"8\" y=\"18\" font-family=\"monospace\" font-size=\"14\" "
                          "fill=\"rgb(230,230,230)\">%s</text>\n",
                          Escape(title_));
  }
  out += "</svg>\n";
  return out;
}

absl::Status SvgDebugDraw::WriteFile(const std::string& path) const {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) return absl::InternalError(absl::StrCat("cannot open ", path, " for writing"));
  file << Finish();
  if (!file.good()) return absl::InternalError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

}  // namespace atl
