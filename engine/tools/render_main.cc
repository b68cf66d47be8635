// atoll-render: steps a built-in scene and draws one frame.
//
//   atoll-render SCENE [--size=N] [--steps=N] [--out=frame.svg]
//                [--width=PX] [--aabbs] [--contacts]
//
// Writes an SVG; when rsvg-convert is on the PATH, also a PNG beside it
// (frame.svg -> frame.png).

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "atoll/debug_draw.h"
#include "atoll/scene.h"
#include "atoll/svg_draw.h"

ABSL_FLAG(int32_t, size, 0, "scene size parameter (0 = the scene's default)");
ABSL_FLAG(int32_t, steps, 0, "steps to simulate before drawing");
ABSL_FLAG(std::string, out, "frame.svg", "output SVG path");
ABSL_FLAG(int32_t, width, 1200, "image width in pixels");
ABSL_FLAG(bool, aabbs, false, "draw broad-phase boxes");
ABSL_FLAG(bool, contacts, false, "draw contact points and normals");

namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "atoll-render: %s\n", message.c_str());
  return 1;
}

// The view: every shape's bounds with a margin, clamped to the scene's
// plausibility box so one runaway body does not shrink the picture to dots.
atl::AABB ViewOf(const atl::World& world, float limit) {
  atl::AABB view = world.GetBounds();
  view = atl::Inflate(view, 0.05f * atl::Max(view.upper.x - view.lower.x,
                                             view.upper.y - view.lower.y) + 0.5f);
  view.lower = atl::Max(view.lower, {-limit, -limit});
  view.upper = atl::Min(view.upper, {limit, limit});
  return view;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Steps a built-in scene and draws a frame as SVG (and PNG with rsvg-convert).\n"
      "usage: atoll-render SCENE [--size=N] [--steps=N] [--out=frame.svg]");
  std::vector<char*> args = absl::ParseCommandLine(argc, argv);
  if (args.size() != 2) {
    std::string names;
    for (const atl::SceneInfo& s : atl::ListScenes()) absl::StrAppend(&names, " ", std::string(s.name));
    return Fail(absl::StrCat("name one scene:", names));
  }
  atl::SceneParams params;
  params.size = absl::GetFlag(FLAGS_size);
  auto desc = atl::MakeScene(args[1], params);
  if (!desc.ok()) return Fail(std::string(desc.status().message()));
  auto world = atl::BuildWorld(*desc);
  if (!world.ok()) return Fail(std::string(world.status().message()));
  const int32_t steps = absl::GetFlag(FLAGS_steps);
  for (int32_t i = 0; i < steps; ++i) {
    if (auto s = (*world)->Step(desc->time_step); !s.ok()) return Fail(std::string(s.message()));
  }

  atl::SvgDebugDraw svg(ViewOf(**world, desc->bounds), absl::GetFlag(FLAGS_width));
  const atl::WorldCounters counters = (*world)->GetCounters();
  svg.SetTitle(absl::StrCat(desc->name, "  step ", steps, "  bodies ", counters.bodies,
                            "  awake ", counters.awake_bodies, "  islands ", counters.islands,
                            "  contacts ", counters.touching_contacts));
  atl::DebugDrawOptions options;
  options.aabbs = absl::GetFlag(FLAGS_aabbs);
  options.contacts = options.contact_normals = absl::GetFlag(FLAGS_contacts);
  (*world)->Draw(&svg, options);
  const std::string out = absl::GetFlag(FLAGS_out);
  if (auto s = svg.WriteFile(out); !s.ok()) return Fail(std::string(s.message()));
  std::printf("wrote %s\n", out.c_str());

  if (std::system("command -v rsvg-convert >/dev/null 2>&1") == 0) {
    std::string png = out;
    const size_t dot = png.rfind('.');
    png = (dot == std::string::npos ? png : png.substr(0, dot)) + ".png";
    const std::string command = absl::StrCat("rsvg-convert -o '", png, "' '", out, "'");
    if (std::system(command.c_str()) != 0) return Fail("rsvg-convert failed");
    std::printf("wrote %s\n", png.c_str());
  }
  return 0;
}
