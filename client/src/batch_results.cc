#include "atoll/client/batch_results.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "atoll/client/batch_sweep.h"

namespace atl::client {
namespace {

// Plot geometry, pixels.
constexpr double kWidth = 820;
constexpr double kHeight = 480;
constexpr double kLeft = 70;
constexpr double kRight = 200;  // room for the legend
constexpr double kTop = 40;
constexpr double kBottom = 50;
constexpr int kLegendRows = 20;

constexpr const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                   "#9467bd", "#8c564b", "#e377c2", "#17becf"};

std::string Escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// A round step (1, 2 or 5 times a power of ten) giving about five ticks
// over `span`.
double TickStep(double span) {
  const double raw = span / 5;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0}) {
    if (raw <= m * power) return m * power;
  }
  return 10 * power;
}

// The series label of a run: every parameter but the size.
std::string SeriesLabel(const v1::BatchRunParams& params) {
  v1::BatchRunParams rest = params;
  rest.set_size(0);
  return DescribeRunParams(rest);
}

}  // namespace

std::string ResultsCsvHeader() {
  return "run,size,seed,substep_count,gravity_y,steps,tick_rate_hz,bodies,contacts,"
         "touching_contacts,awake_bodies,initial_hash,final_hash,chain_digest,build_ms,wall_ms,"
         "ms_per_step";
}

std::string ResultsCsv(const std::vector<v1::BatchRunRecord>& records) {
  std::string out = ResultsCsvHeader() + "\n";
  for (const v1::BatchRunRecord& r : records) {
    const v1::BatchRunParams& p = r.params();
    absl::StrAppend(
        &out, r.run_index(), ",", p.size(), ",", p.seed(), ",", p.substep_count(), ",",
        p.has_gravity_y() ? absl::StrCat(p.gravity_y()) : "", ",", r.steps(), ",", r.tick_rate_hz(),
        ",", r.bodies(), ",", r.contacts(), ",", r.touching_contacts(), ",", r.awake_bodies(), ",",
        r.initial_hash(), ",", r.final_hash(), ",", r.chain_digest(), ",",
        absl::StrFormat("%.3f,%.3f,%.6f", r.build_ms(), r.wall_ms(), r.ms_per_step()), "\n");
  }
  return out;
}

std::string ResultsSvg(const std::string& title, const std::vector<v1::BatchRunRecord>& records) {
  std::map<std::string, std::vector<std::pair<double, double>>> series;
  double x_min = 0, x_max = 1, y_max = 0;
  bool first = true;
  for (const v1::BatchRunRecord& r : records) {
    const double x = r.params().size();
    const double y = r.ms_per_step();
    series[SeriesLabel(r.params())].emplace_back(x, y);
    x_min = first ? x : std::min(x_min, x);
    x_max = first ? x : std::max(x_max, x);
    y_max = std::max(y_max, y);
    first = false;
  }
  if (x_max <= x_min) {
    x_min -= 1;
    x_max += 1;
  }
  if (y_max <= 0) y_max = 1;
  const double x_step = TickStep(x_max - x_min);
  const double y_step = TickStep(y_max);
  x_min = std::floor(x_min / x_step) * x_step;
  x_max = std::ceil(x_max / x_step) * x_step;
  y_max = std::ceil(y_max / y_step) * y_step;
  const double plot_w = kWidth - kLeft - kRight;
  const double plot_h = kHeight - kTop - kBottom;
  auto px = [&](double x) { return kLeft + (x - x_min) / (x_max - x_min) * plot_w; };
  auto py = [&](double y) { return kTop + plot_h - y / y_max * plot_h; };

  std::string out = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
      "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
      "<text x=\"%.0f\" y=\"24\" font-size=\"15\">%s</text>\n",
      kWidth, kHeight, kWidth, kHeight, kLeft, Escape(title));
  // Grid and tick labels.
  for (double x = x_min; x <= x_max + x_step / 2; x += x_step) {
    absl::StrAppendFormat(&out,
                          "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                          "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n",
                          px(x), kTop, px(x), kTop + plot_h, px(x), kTop + plot_h + 16, x);
  }
  for (double y = 0; y <= y_max + y_step / 2; y += y_step) {
    absl::StrAppendFormat(&out,
                          "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                          "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
                          kLeft, py(y), kLeft + plot_w, py(y), kLeft - 6, py(y) + 4, y);
  }
  absl::StrAppendFormat(&out,
                        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
                        "stroke=\"black\"/>\n"
                        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">size</text>\n"
                        "<text x=\"16\" y=\"%.1f\" text-anchor=\"middle\" "
                        "transform=\"rotate(-90 16 %.1f)\">ms per step</text>\n",
                        kLeft, kTop, plot_w, plot_h, kLeft + plot_w / 2, kHeight - 12,
                        kTop + plot_h / 2, kTop + plot_h / 2);
  int color = 0;
  for (auto& [label, points] : series) {
    std::sort(points.begin(), points.end());
    const char* stroke = kColors[color % std::size(kColors)];
    std::vector<std::string> coords;
    for (const auto& [x, y] : points) coords.push_back(absl::StrFormat("%.1f,%.1f", px(x), py(y)));
    absl::StrAppendFormat(&out,
                          "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" "
                          "points=\"%s\"/>\n",
                          stroke, absl::StrJoin(coords, " "));
    for (const auto& [x, y] : points) {
      absl::StrAppendFormat(&out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", px(x),
                            py(y), stroke);
    }
    // The legend lists the first kLegendRows series (the lines stay).
    const double legend_y = kTop + 10 + 18 * color;
    if (color == kLegendRows) {
      absl::StrAppendFormat(&out, "<text x=\"%.1f\" y=\"%.1f\">...</text>\n", kWidth - kRight + 14,
                            legend_y + 4);
    }
    if (color >= kLegendRows) {
      ++color;
      continue;
    }
    absl::StrAppendFormat(&out,
                          "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                          "stroke-width=\"2\"/><text x=\"%.1f\" y=\"%.1f\">%s</text>\n",
                          kWidth - kRight + 14, legend_y, kWidth - kRight + 34, legend_y, stroke,
                          kWidth - kRight + 40, legend_y + 4, Escape(label));
    ++color;
  }
  out += "</svg>\n";
  return out;
}

}  // namespace atl::client
