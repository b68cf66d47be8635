// The draw frame's layers: polygons, circles, segments and points batched
// by colour as SVG path text, the rest one by one, and the primitive limit
// counted in primitives, not batches.

#include "atoll/viewer/draw_frame.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "atoll/server/simulation.h"
#include "server/service_test_util.h"
#include "support/viewer_client.h"

namespace atl::testing {
namespace {

using google::protobuf::ListValue;
using google::protobuf::Struct;

int Count(const std::string& path, char c) {
  return static_cast<int>(std::count(path.begin(), path.end(), c));
}

// Primitives in a layer: one per subpath of a batch, one per other entry.
int Primitives(const ListValue& layer) {
  int n = 0;
  for (const auto& v : layer.values()) {
    const auto& e = v.list_value().values();
    const std::string kind = e[0].string_value();
    if (kind == "P" || kind == "S") {
      n += Count(e[kind == "P" ? 3 : 2].string_value(), 'M');
    } else if (kind == "D") {
      n += Count(e[3].string_value(), 'M');
    } else {
      ++n;
    }
  }
  return n;
}

v1::WorldConfig DuelConfig() {
  v1::WorldConfig config;
  config.set_player_slots(2);
  return server::NormalizeWorldConfig(config, 1000).value();
}

Struct Frame(const sim::Simulation& sim, size_t max_primitives) {
  viewer::DrawFrameOptions options;
  options.max_primitives = max_primitives;
  viewer::DrawFrameInfo info;
  info.world_id = "duel";
  auto frame = ParseJson(viewer::DrawFrameJson(sim, info, options));
  EXPECT_TRUE(frame.ok()) << frame.status();
  return frame.ok() ? *frame : Struct();
}

TEST(DrawFrameTest, ShapesAreBatchedByColourAsPathText) {
  // The duel: a static ground box, a box, a triangle, a circle and a
  // kinematic capsule; 60 steps put the box and the circle on the ground.
  auto sim = server::Simulation::Create(DuelScene(), DuelConfig());
  ASSERT_TRUE(sim.ok()) << sim.status();
  for (int i = 0; i < 60; ++i) ASSERT_TRUE((*sim)->Step({}, nullptr).ok());
  const Struct frame = Frame(**sim, 1000);
  EXPECT_FALSE(frame.fields().at("truncated").bool_value());

  const ListValue& shapes = frame.fields().at("shapes").list_value();
  int polygons_and_circles = 0, marks = 0, arcs = 0, capsules = 0;
  for (const auto& v : shapes.values()) {
    const auto& e = v.list_value().values();
    if (e[0].string_value() == "k") {
      ++capsules;
      continue;
    }
    ASSERT_EQ(e[0].string_value(), "P");
    ASSERT_EQ(e.size(), 5);
    EXPECT_EQ(e[1].string_value().size(), 9u) << "#rrggbbaa";
    EXPECT_EQ(e[2].string_value()[0], '#');
    const std::string& path = e[3].string_value();
    EXPECT_EQ(Count(path, 'M'), Count(path, 'Z')) << path;
    polygons_and_circles += Count(path, 'M');
    arcs += Count(path, 'A');
    marks += Count(e[4].string_value(), 'M');
  }
  EXPECT_EQ(polygons_and_circles, 4);  // ground, box, triangle, circle
  EXPECT_EQ(arcs, 2);                  // the circle: two half arcs
  EXPECT_EQ(marks, 1);                 // and its rotation mark
  EXPECT_EQ(capsules, 1);

  // Contact points and normals of the two resting bodies.
  const ListValue& contacts = frame.fields().at("contacts").list_value();
  int points = 0, normals = 0;
  for (const auto& v : contacts.values()) {
    const auto& e = v.list_value().values();
    if (e[0].string_value() == "D") {
      EXPECT_GT(e[2].number_value(), 0.0) << "point size in pixels";
      points += Count(e[3].string_value(), 'M');
    } else if (e[0].string_value() == "S") {
      normals += Count(e[2].string_value(), 'M');
    }
  }
  EXPECT_GE(points, 2);
  EXPECT_EQ(points, normals);
}

TEST(DrawFrameTest, TheLimitCountsPrimitivesNotBatches) {
  auto sim = server::Simulation::Create(DuelScene(), DuelConfig());
  ASSERT_TRUE(sim.ok()) << sim.status();
  const Struct frame = Frame(**sim, 3);
  EXPECT_TRUE(frame.fields().at("truncated").bool_value());
  EXPECT_EQ(Primitives(frame.fields().at("shapes").list_value()), 3);
}

}  // namespace
}  // namespace atl::testing
