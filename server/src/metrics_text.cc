#include "metrics_text.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "atoll/assert.h"

namespace atl::server {
namespace {

bool IsNameStart(char c, bool colon) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon && c == ':');
}

bool IsName(absl::string_view name, bool colon) {
  if (name.empty() || !IsNameStart(name[0], colon)) return false;
  for (char c : name) {
    if (!IsNameStart(c, colon) && !(c >= '0' && c <= '9')) return false;
  }
  return true;
}

absl::string_view TypeName(MetricType type) {
  switch (type) {
    case MetricType::kCounter:
      return "counter";
    case MetricType::kGauge:
      return "gauge";
    case MetricType::kHistogram:
      return "histogram";
  }
  return "untyped";
}

}  // namespace

bool IsValidMetricName(absl::string_view name) { return IsName(name, true); }

bool IsValidLabelName(absl::string_view name) { return IsName(name, false); }

std::string EscapeLabelValue(absl::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string EscapeHelp(absl::string_view help) {
  std::string out;
  out.reserve(help.size());
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string FormatMetricValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  // Whole numbers (counts) as integers; others as the shortest text that
  // reads back as the value, in plain notation for exponents -4..20 (the
  // bounds read "0.0005", not "5e-04") and in scientific outside.
  if (value == std::trunc(value) && std::fabs(value) < 0x1p53) {
    return std::to_string(static_cast<int64_t>(value));
  }
  char buf[400];
  std::to_chars_result r =
      std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::scientific);
  const std::string scientific(buf, r.ptr);
  const int exponent = std::atoi(scientific.c_str() + scientific.find('e') + 1);
  if (exponent < -4 || exponent > 20) return scientific;
  r = std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::fixed);
  return std::string(buf, r.ptr);
}

void MetricsTextWriter::Family(absl::string_view name, absl::string_view help, MetricType type) {
  ATOLL_ASSERT(IsValidMetricName(name));
  ATOLL_ASSERT(type != MetricType::kCounter || absl::EndsWith(name, "_total"));
  // One block per family: a family written twice would be two.
  ATOLL_ASSERT(written_.insert(std::string(name)).second);
  family_ = std::string(name);
  type_ = type;
  absl::StrAppend(&out_, "# HELP ", name, " ", EscapeHelp(help), "\n");
  absl::StrAppend(&out_, "# TYPE ", name, " ", TypeName(type), "\n");
}

void MetricsTextWriter::Sample(const MetricLabels& labels, double value) {
  ATOLL_ASSERT(!family_.empty() && type_ != MetricType::kHistogram);
  WriteSample("", labels, nullptr, value);
}

void MetricsTextWriter::Histogram(const MetricLabels& labels, const HistogramData& data) {
  ATOLL_ASSERT(!family_.empty() && type_ == MetricType::kHistogram);
  ATOLL_ASSERT(data.counts.size() == data.upper_bounds.size() + 1);
  uint64_t cumulative = 0;
  for (size_t i = 0; i <= data.upper_bounds.size(); ++i) {
    cumulative += data.counts[i];
    const std::pair<std::string, std::string> le = {
        "le", i < data.upper_bounds.size() ? FormatMetricValue(data.upper_bounds[i])
                                           : std::string("+Inf")};
    WriteSample("_bucket", labels, &le, static_cast<double>(cumulative));
  }
  WriteSample("_sum", labels, nullptr, data.sum);
  // The count is the +Inf bucket by definition, even if the counts were
  // read while they changed.
  WriteSample("_count", labels, nullptr, static_cast<double>(cumulative));
}

void MetricsTextWriter::WriteSample(absl::string_view suffix, const MetricLabels& labels,
                                    const std::pair<std::string, std::string>* extra,
                                    double value) {
  absl::StrAppend(&out_, family_, suffix);
  if (!labels.empty() || extra != nullptr) {
    out_ += '{';
    bool first = true;
    auto add = [&](const std::pair<std::string, std::string>& label) {
      ATOLL_ASSERT(IsValidLabelName(label.first));
      if (!first) out_ += ',';
      first = false;
      absl::StrAppend(&out_, label.first, "=\"", EscapeLabelValue(label.second), "\"");
    };
    for (const auto& label : labels) add(label);
    if (extra != nullptr) add(*extra);
    out_ += '}';
  }
  absl::StrAppend(&out_, " ", FormatMetricValue(value), "\n");
}

}  // namespace atl::server
