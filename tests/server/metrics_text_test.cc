// The Prometheus exposition writer (metrics_text.h) on its own: escaping of
// label values and help texts, number formatting, the HELP/TYPE header of
// each family and the cumulative histogram lines; and the lock-free
// histogram the server counts into (server_metrics.h).

#include "metrics_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "server_metrics.h"

namespace atl::server {
namespace {

TEST(MetricsTextTest, EscapesBackslashQuoteAndNewlineInLabelValues) {
  EXPECT_EQ(EscapeLabelValue("plain"), "plain");
  EXPECT_EQ(EscapeLabelValue(R"(a\b)"), R"(a\\b)");
  EXPECT_EQ(EscapeLabelValue(R"(say "hi")"), R"(say \"hi\")");
  EXPECT_EQ(EscapeLabelValue("two\nlines"), R"(two\nlines)");
  EXPECT_EQ(EscapeLabelValue("\\\"\n"), R"(\\\"\n)");
  // Anything else, UTF-8 included, passes as it is.
  EXPECT_EQ(EscapeLabelValue("tab\tπ{}=,"), "tab\tπ{}=,");
}

TEST(MetricsTextTest, EscapesBackslashAndNewlineButNotQuotesInHelp) {
  EXPECT_EQ(EscapeHelp(R"(a\b "quoted")"), R"(a\\b "quoted")");
  EXPECT_EQ(EscapeHelp("line one\nline two"), R"(line one\nline two)");
}

TEST(MetricsTextTest, FormatsValuesSoTheyReadBack) {
  EXPECT_EQ(FormatMetricValue(0), "0");
  EXPECT_EQ(FormatMetricValue(42), "42");
  EXPECT_EQ(FormatMetricValue(-3), "-3");
  EXPECT_EQ(FormatMetricValue(0.25), "0.25");
  EXPECT_EQ(FormatMetricValue(0.0005), "0.0005");
  EXPECT_EQ(FormatMetricValue(0.00005), "5e-05");
  EXPECT_EQ(FormatMetricValue(1e300), "1e+300");
  EXPECT_EQ(FormatMetricValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(FormatMetricValue(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(FormatMetricValue(std::nan("")), "NaN");
  for (double v : {0.1, 1.0 / 3, 123456.789, 2.5e-7, 9007199254740993.0}) {
    EXPECT_EQ(std::stod(FormatMetricValue(v)), v) << FormatMetricValue(v);
  }
}

TEST(MetricsTextTest, ChecksMetricAndLabelNames) {
  EXPECT_TRUE(IsValidMetricName("atoll_ticks_total"));
  EXPECT_TRUE(IsValidMetricName("ns:sub_name"));
  EXPECT_FALSE(IsValidMetricName(""));
  EXPECT_FALSE(IsValidMetricName("9lives"));
  EXPECT_FALSE(IsValidMetricName("with-dash"));
  EXPECT_TRUE(IsValidLabelName("tick_rate_hz"));
  EXPECT_FALSE(IsValidLabelName("has:colon"));
  EXPECT_FALSE(IsValidLabelName("1st"));
}

TEST(MetricsTextTest, WritesHelpAndTypeOncePerFamilyThenItsSamples) {
  MetricsTextWriter out;
  out.Family("atoll_things_total", "Things.\nCounted \\ here.", MetricType::kCounter);
  out.Sample({{"code", "NOT_FOUND"}}, 3);
  out.Sample({{"code", "say \"x\"\n"}, {"other", "a\\b"}}, 1);
  out.Family("atoll_level", "A level.", MetricType::kGauge);
  out.Sample({}, 0.5);
  EXPECT_EQ(out.text(),
            "# HELP atoll_things_total Things.\\nCounted \\\\ here.\n"
            "# TYPE atoll_things_total counter\n"
            "atoll_things_total{code=\"NOT_FOUND\"} 3\n"
            "atoll_things_total{code=\"say \\\"x\\\"\\n\",other=\"a\\\\b\"} 1\n"
            "# HELP atoll_level A level.\n"
            "# TYPE atoll_level gauge\n"
            "atoll_level 0.5\n");
}

TEST(MetricsTextTest, WritesCumulativeHistogramBucketsSumAndCount) {
  MetricsTextWriter out;
  out.Family("atoll_wait_seconds", "Waits.", MetricType::kHistogram);
  HistogramData data;
  data.upper_bounds = {0.001, 0.01};
  data.counts = {2, 0, 3};
  data.sum = 0.75;
  out.Histogram({{"tick_rate_hz", "60"}}, data);
  EXPECT_EQ(out.text(),
            "# HELP atoll_wait_seconds Waits.\n"
            "# TYPE atoll_wait_seconds histogram\n"
            "atoll_wait_seconds_bucket{tick_rate_hz=\"60\",le=\"0.001\"} 2\n"
            "atoll_wait_seconds_bucket{tick_rate_hz=\"60\",le=\"0.01\"} 2\n"
            "atoll_wait_seconds_bucket{tick_rate_hz=\"60\",le=\"+Inf\"} 5\n"
            "atoll_wait_seconds_sum{tick_rate_hz=\"60\"} 0.75\n"
            "atoll_wait_seconds_count{tick_rate_hz=\"60\"} 5\n");
}

TEST(MetricsTextDeathTest, RefusesACounterNotEndingInTotal) {
  MetricsTextWriter out;
  EXPECT_DEATH(out.Family("atoll_things", "Things.", MetricType::kCounter), "_total");
}

TEST(MetricsTextDeathTest, RefusesAFamilyWrittenTwice) {
  MetricsTextWriter out;
  out.Family("atoll_level", "A level.", MetricType::kGauge);
  EXPECT_DEATH(out.Family("atoll_level", "Again.", MetricType::kGauge), "written_");
}

TEST(AtomicHistogramTest, PutsAValueOnABoundInThatBucket) {
  AtomicHistogram histogram({0.001, 0.01});
  histogram.Observe(absl::Microseconds(1000));  // le="0.001" is inclusive
  histogram.Observe(absl::Microseconds(1001));
  histogram.Observe(absl::Seconds(2));
  const HistogramData data = histogram.Read();
  EXPECT_EQ(data.counts, (std::vector<uint64_t>{1, 1, 1}));
  EXPECT_DOUBLE_EQ(data.sum, 2.002001);
}

}  // namespace
}  // namespace atl::server
