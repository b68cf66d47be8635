// atoll-server — the Prometheus text exposition format, version 0.0.4.
//
// Debian has no Prometheus client library, and the format is small: per
// family one "# HELP name text" and one "# TYPE name type" line, then the
// family's samples "name{label="value",...} number", each family in one
// block. A histogram is written as cumulative "_bucket" samples with an
// inclusive upper bound "le" (the last one "+Inf"), then "_sum" and
// "_count". Names are the server's own constants and are checked
// (ATOLL_ASSERT); label values and help texts are escaped.

#ifndef ATOLL_SERVER_METRICS_TEXT_H_
#define ATOLL_SERVER_METRICS_TEXT_H_

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace atl::server {

/// The Content-Type of a scrape in this format.
inline constexpr char kMetricsContentType[] = "text/plain; version=0.0.4; charset=utf-8";

enum class MetricType { kCounter, kGauge, kHistogram };

/// Label name and value pairs, in the order written.
using MetricLabels = std::vector<std::pair<std::string, std::string>>;

/// A histogram's state: counts[i] observations in (upper_bounds[i-1],
/// upper_bounds[i]], counts.back() those above the last bound (so
/// counts.size() == upper_bounds.size() + 1); not cumulative.
struct HistogramData {
  std::vector<double> upper_bounds;  // ascending, finite
  std::vector<uint64_t> counts;
  double sum = 0;
};

/// Whether `name` is a valid metric name: [a-zA-Z_:][a-zA-Z0-9_:]*.
bool IsValidMetricName(absl::string_view name);
/// Whether `name` is a valid label name: [a-zA-Z_][a-zA-Z0-9_]*.
bool IsValidLabelName(absl::string_view name);
/// A label value with backslash, double quote and newline escaped.
std::string EscapeLabelValue(absl::string_view value);
/// A HELP text with backslash and newline escaped.
std::string EscapeHelp(absl::string_view help);
/// A sample value: the shortest text that reads back as `value` ("42",
/// "0.25", "1e+21"), or "+Inf", "-Inf", "NaN".
std::string FormatMetricValue(double value);

/// Builds one exposition. Call Family() once per family, then its samples
/// (Sample for counters and gauges, Histogram for histograms) before the
/// next Family(). Broken calling contracts (an invalid or repeated name, a
/// counter whose name does not end in "_total", a sample of another type)
/// are programming errors and fail an ATOLL_ASSERT.
class MetricsTextWriter {
 public:
  /// Starts family `name`: writes its "# HELP" and "# TYPE" lines.
  void Family(absl::string_view name, absl::string_view help, MetricType type);
  /// A sample of the current counter or gauge family.
  void Sample(const MetricLabels& labels, double value);
  /// A histogram of the current histogram family: its buckets, sum and
  /// count.
  void Histogram(const MetricLabels& labels, const HistogramData& data);

  /// The text written so far.
  const std::string& text() const { return out_; }

 private:
  void WriteSample(absl::string_view suffix, const MetricLabels& labels,
                   const std::pair<std::string, std::string>* extra, double value);

  std::string out_;
  std::string family_;
  MetricType type_ = MetricType::kGauge;
  std::set<std::string, std::less<>> written_;
};

}  // namespace atl::server

#endif  // ATOLL_SERVER_METRICS_TEXT_H_
