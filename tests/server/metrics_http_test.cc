// The Prometheus endpoint of atoll-server (--metrics_listen) through the
// real binary: a scrape parsed line by line by a strict parser of the text
// format 0.0.4 (below, written from the format's description, not from the
// server's writer), its figures checked against what the test did (worlds
// at 60 Hz and 30 Hz, a player session, a refused input), the answers to
// other methods and paths (the server ticks on), and bad flag values
// refused by name.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "server/service_test_util.h"
#include "support/server_process.h"
#include "support/session_client.h"
#include "support/viewer_client.h"

namespace atl::testing {
namespace {

using ::testing::HasSubstr;

// ---------------------------------------------------------------------------
// A strict parser of the Prometheus text exposition format 0.0.4.

using Labels = std::map<std::string, std::string>;

struct Sample {
  std::string name;
  Labels labels;
  double value = 0;
};

struct Family {
  std::string type;  // counter, gauge, histogram
  std::string help;  // unescaped
  std::vector<Sample> samples;
};

struct Exposition {
  std::map<std::string, Family> families;

  // The value of the sample `name` with exactly `labels`; nullopt if none.
  std::optional<double> Value(const std::string& name, const Labels& labels = {}) const {
    for (const auto& [family_name, family] : families) {
      for (const Sample& s : family.samples) {
        if (s.name == name && s.labels == labels) return s.value;
      }
    }
    return std::nullopt;
  }
};

bool IsMetricNameStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}
bool IsMetricNameChar(char c) { return IsMetricNameStart(c) || (c >= '0' && c <= '9'); }
bool IsLabelNameStart(char c) { return IsMetricNameStart(c) && c != ':'; }
bool IsLabelNameChar(char c) { return IsLabelNameStart(c) || (c >= '0' && c <= '9'); }

// Reads a name at *pos; empty when there is none.
std::string ReadName(const std::string& line, size_t* pos, bool label) {
  const size_t start = *pos;
  if (*pos >= line.size() ||
      !(label ? IsLabelNameStart(line[*pos]) : IsMetricNameStart(line[*pos]))) {
    return "";
  }
  while (*pos < line.size() &&
         (label ? IsLabelNameChar(line[*pos]) : IsMetricNameChar(line[*pos]))) {
    ++*pos;
  }
  return line.substr(start, *pos - start);
}

// A sample value: a Go ParseFloat number or +Inf, -Inf, NaN.
bool ParseValue(const std::string& text, double* value) {
  if (text == "+Inf" || text == "Inf") {
    *value = HUGE_VAL;
    return true;
  }
  if (text == "-Inf") {
    *value = -HUGE_VAL;
    return true;
  }
  if (text == "NaN") {
    *value = std::nan("");
    return true;
  }
  if (text.empty() || text.find_first_not_of("0123456789+-.eE") != std::string::npos) return false;
  char* end = nullptr;
  errno = 0;
  *value = std::strtod(text.c_str(), &end);
  return errno == 0 && end == text.c_str() + text.size();
}

// Unescapes a HELP text: only \\ and \n are escapes.
bool UnescapeHelp(const std::string& text, std::string* out) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      *out += text[i];
      continue;
    }
    if (i + 1 == text.size()) return false;
    const char next = text[++i];
    if (next == '\\') {
      *out += '\\';
    } else if (next == 'n') {
      *out += '\n';
    } else {
      return false;
    }
  }
  return true;
}

// Parses `name{label="value",...} value`; labels unescaped.
::testing::AssertionResult ParseSampleLine(const std::string& line, Sample* sample) {
  size_t pos = 0;
  sample->name = ReadName(line, &pos, /*label=*/false);
  if (sample->name.empty()) return ::testing::AssertionFailure() << "no metric name";
  if (pos < line.size() && line[pos] == '{') {
    ++pos;
    while (true) {
      if (pos < line.size() && line[pos] == '}') {
        ++pos;
        break;
      }
      const std::string label = ReadName(line, &pos, /*label=*/true);
      if (label.empty()) return ::testing::AssertionFailure() << "bad label name at " << pos;
      if (label.rfind("__", 0) == 0) return ::testing::AssertionFailure() << "reserved label";
      if (pos + 1 >= line.size() || line[pos] != '=' || line[pos + 1] != '"') {
        return ::testing::AssertionFailure() << "want =\" after label " << label;
      }
      pos += 2;
      std::string value;
      bool closed = false;
      while (pos < line.size()) {
        const char c = line[pos++];
        if (c == '"') {
          closed = true;
          break;
        }
        if (c == '\\') {
          if (pos >= line.size()) break;
          const char e = line[pos++];
          if (e == '\\') {
            value += '\\';
          } else if (e == '"') {
            value += '"';
          } else if (e == 'n') {
            value += '\n';
          } else {
            return ::testing::AssertionFailure() << "bad escape \\" << e << " in " << label;
          }
          continue;
        }
        value += c;
      }
      if (!closed) return ::testing::AssertionFailure() << "unterminated value of " << label;
      if (!sample->labels.emplace(label, value).second) {
        return ::testing::AssertionFailure() << "label " << label << " twice";
      }
      if (pos < line.size() && line[pos] == ',') {
        ++pos;
      } else if (pos >= line.size() || line[pos] != '}') {
        return ::testing::AssertionFailure() << "want , or } after " << label;
      }
    }
  }
  if (pos >= line.size() || line[pos] != ' ') {
    return ::testing::AssertionFailure() << "want one space before the value";
  }
  const std::string value = line.substr(pos + 1);
  // This server writes no timestamps: exactly one value.
  if (!ParseValue(value, &sample->value)) {
    return ::testing::AssertionFailure() << "bad value '" << value << "'";
  }
  return ::testing::AssertionSuccess();
}

// The family a sample belongs to: its own name, or for a histogram's
// _bucket/_sum/_count the histogram.
bool BelongsTo(const std::string& sample, const std::string& family, const std::string& type) {
  if (type != "histogram") return sample == family;
  return sample == family + "_bucket" || sample == family + "_sum" || sample == family + "_count";
}

// Checks one histogram family: per label set (without le), buckets in
// ascending le ending with +Inf, cumulative counts never decreasing, +Inf
// equal to _count, and one _sum.
::testing::AssertionResult CheckHistogram(const std::string& name, const Family& family) {
  struct Series {
    std::vector<std::pair<double, double>> buckets;  // le, count
    std::optional<double> sum, count;
  };
  std::map<Labels, Series> series;
  for (const Sample& s : family.samples) {
    Labels labels = s.labels;
    if (s.name == name + "_bucket") {
      auto le = labels.find("le");
      if (le == labels.end()) return ::testing::AssertionFailure() << name << ": bucket without le";
      double bound = 0;
      if (!ParseValue(le->second, &bound)) {
        return ::testing::AssertionFailure() << name << ": bad le " << le->second;
      }
      labels.erase(le);
      series[labels].buckets.emplace_back(bound, s.value);
      continue;
    }
    if (labels.count("le") != 0)
      return ::testing::AssertionFailure() << name << ": le on " << s.name;
    std::optional<double>& slot =
        s.name == name + "_sum" ? series[labels].sum : series[labels].count;
    if (slot.has_value()) return ::testing::AssertionFailure() << s.name << " twice";
    slot = s.value;
  }
  for (const auto& [labels, s] : series) {
    if (s.buckets.empty() || !s.sum.has_value() || !s.count.has_value()) {
      return ::testing::AssertionFailure() << name << ": a series lacks buckets, _sum or _count";
    }
    for (size_t i = 1; i < s.buckets.size(); ++i) {
      if (!(s.buckets[i].first > s.buckets[i - 1].first)) {
        return ::testing::AssertionFailure() << name << ": le not ascending";
      }
      if (s.buckets[i].second < s.buckets[i - 1].second) {
        return ::testing::AssertionFailure() << name << ": buckets not cumulative";
      }
    }
    if (!std::isinf(s.buckets.back().first) || s.buckets.back().second != *s.count) {
      return ::testing::AssertionFailure() << name << ": the last bucket must be +Inf == _count";
    }
    if (*s.sum < 0) return ::testing::AssertionFailure() << name << ": negative _sum";
  }
  return ::testing::AssertionSuccess();
}

// Parses a whole exposition, strictly: every line is "# HELP name text",
// "# TYPE name type" or a sample; HELP and TYPE once per family and before
// its samples, each family one contiguous block, counters named *_total and
// never negative, no sample twice.
::testing::AssertionResult ParseExposition(const std::string& text, Exposition* out) {
  if (text.empty() || text.back() != '\n') {
    return ::testing::AssertionFailure() << "the text must end with a newline";
  }
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  lines.pop_back();     // after the final newline
  std::string current;  // the family whose block is open
  std::set<std::string> closed;
  std::set<std::string> seen_samples;
  for (size_t n = 0; n < lines.size(); ++n) {
    const std::string& line = lines[n];
    auto fail = [&]() {
      return ::testing::AssertionFailure() << "line " << n + 1 << " '" << line << "': ";
    };
    if (line.empty()) return fail() << "empty line";
    if (line[0] == '#') {
      std::vector<std::string> parts = absl::StrSplit(line, absl::MaxSplits(' ', 3));
      if (parts.size() < 3 || parts[0] != "#" || (parts[1] != "HELP" && parts[1] != "TYPE")) {
        return fail() << "a comment must be '# HELP name text' or '# TYPE name type'";
      }
      const std::string& name = parts[2];
      size_t pos = 0;
      if (ReadName(name, &pos, false) != name) return fail() << "bad metric name";
      if (name != current) {
        if (closed.count(name) != 0 || out->families.count(name) != 0) {
          return fail() << "family " << name << " appears in two blocks";
        }
        if (!current.empty()) closed.insert(current);
        current = name;
      }
      Family& family = out->families[name];
      if (parts[1] == "HELP") {
        if (parts.size() != 4) return fail() << "HELP without text";
        if (!family.help.empty() || !family.type.empty() || !family.samples.empty()) {
          return fail() << "HELP must come once, first";
        }
        if (!UnescapeHelp(parts[3], &family.help)) return fail() << "bad escape in HELP";
      } else {
        if (parts.size() != 4) return fail() << "TYPE without type";
        if (!family.type.empty()) return fail() << "TYPE twice";
        if (!family.samples.empty()) return fail() << "TYPE after samples";
        if (parts[3] != "counter" && parts[3] != "gauge" && parts[3] != "histogram") {
          return fail() << "type must be counter, gauge or histogram";
        }
        if (parts[3] == "counter" && !absl::EndsWith(name, "_total")) {
          return fail() << "a counter's name ends in _total";
        }
        family.type = parts[3];
      }
      continue;
    }
    Sample sample;
    if (::testing::AssertionResult r = ParseSampleLine(line, &sample); !r)
      return fail() << r.message();
    if (current.empty() || out->families[current].type.empty()) {
      return fail() << "a sample before its family's TYPE";
    }
    Family& family = out->families[current];
    if (!BelongsTo(sample.name, current, family.type)) {
      return fail() << "sample outside its family's block (open: " << current << ")";
    }
    if (family.type == "counter" && !(sample.value >= 0)) return fail() << "negative counter";
    std::string key = sample.name;
    for (const auto& [k, v] : sample.labels) absl::StrAppend(&key, "\x01", k, "\x02", v);
    if (!seen_samples.insert(key).second) return fail() << "the same sample twice";
    family.samples.push_back(std::move(sample));
  }
  for (const auto& [name, family] : out->families) {
    if (family.help.empty() || family.type.empty()) {
      return ::testing::AssertionFailure() << name << " lacks HELP or TYPE";
    }
    if (family.type == "histogram") {
      if (::testing::AssertionResult r = CheckHistogram(name, family); !r) return r;
    }
  }
  return ::testing::AssertionSuccess();
}

TEST(PrometheusParserTest, RefusesWhatTheFormatForbids) {
  Exposition e;
  EXPECT_TRUE(
      ParseExposition("# HELP a_total A.\n# TYPE a_total counter\na_total{x=\"q\\\"\"} 1\n", &e));
  const char* bad[] = {
      "# TYPE a gauge\na 1",                            // no final newline
      "a 1\n",                                          // no TYPE
      "# HELP a A.\n# TYPE a gauge\na{x=\"\\t\"} 1\n",  // bad escape
      "# HELP a A.\n# TYPE a gauge\na 1 2 3\n",         // junk after the value
      "# HELP a A.\n# TYPE a counter\na 1\n",           // counter without _total
      "# HELP a A.\n# TYPE a gauge\n# HELP b B.\n# TYPE b gauge\n# HELP a A.\n",  // two blocks
      "# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\n"
      "h_sum 0\nh_count 1\n",  // not cumulative
      "# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\nh_sum 0\nh_count 1\n",
      "# HELP a A.\n# TYPE a gauge\n1a 1\n",           // bad name
      "# HELP a A.\n# TYPE a gauge\na{1x=\"v\"} 1\n",  // bad label name
  };
  for (const char* text : bad) {
    Exposition refused;
    EXPECT_FALSE(ParseExposition(text, &refused)) << text;
  }
}

// ---------------------------------------------------------------------------
// The endpoint.

class MetricsHttpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = ServerProcess::Start({"--metrics_listen=127.0.0.1:0"});
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    auto url = server_->WaitForLine("atoll-server metrics at ");
    ASSERT_TRUE(url.ok()) << url.status();
    url_ = *url;
    ASSERT_TRUE(absl::StartsWith(url_, "http://127.0.0.1:")) << url_;
    ASSERT_TRUE(absl::EndsWith(url_, "/metrics")) << url_;
    base_ = url_.substr(0, url_.size() - std::string("/metrics").size());
  }

  v1::CreateWorldResponse CreateDuel(const std::string& id, uint32_t tick_rate_hz) {
    v1::CreateWorldRequest request;
    request.set_world_id(id);
    *request.mutable_scene() = DuelScene();
    request.mutable_config()->set_tick_rate_hz(tick_rate_hz);
    request.mutable_config()->set_player_slots(2);
    return CreateWorld(server_->address(), request);
  }

  // Waits (polling, with a generous limit that asserts nothing about speed)
  // until the world has passed `tick`.
  bool WaitForWorldTick(const std::string& id, uint64_t tick) {
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    while (absl::Now() < deadline) {
      if (GetWorld(server_->address(), id).tick() > tick) return true;
      absl::SleepFor(absl::Milliseconds(20));
    }
    return false;
  }

  // GETs /metrics, checks the answer's status and type and parses it.
  ::testing::AssertionResult Scrape(Exposition* out) {
    httplib::Client client(base_);
    client.set_read_timeout(10, 0);
    httplib::Result result = client.Get("/metrics");
    if (!result) return ::testing::AssertionFailure() << httplib::to_string(result.error());
    if (result->status != 200) return ::testing::AssertionFailure() << "status " << result->status;
    if (result->get_header_value("Content-Type") != "text/plain; version=0.0.4; charset=utf-8") {
      return ::testing::AssertionFailure()
             << "Content-Type " << result->get_header_value("Content-Type");
    }
    last_text_ = result->body;
    return ParseExposition(result->body, out);
  }

  std::unique_ptr<ServerProcess> server_;
  std::string url_;
  std::string base_;
  std::string last_text_;
};

TEST_F(MetricsHttpTest, ScrapeParsesStrictlyAndCountsWorldsTicksAndSessions) {
  const v1::CreateWorldResponse fast = CreateDuel("fast", 60);
  CreateDuel("slow", 30);
  auto player = SessionClient::Connect(server_->address(), JoinFor(fast, 1));
  ASSERT_TRUE(player->WaitForTick(3, absl::Seconds(30)));
  // An input whose sequence is not above the last one (0) is refused.
  ASSERT_TRUE(player->Send(InputMessage(0, 0, {Impulse(Body(1), 1, 0)})));
  ASSERT_TRUE(player->WaitFor(
      [](const std::vector<v1::ServerMessage>& messages) {
        for (const v1::ServerMessage& m : messages) {
          if (m.has_error()) return true;
        }
        return false;
      },
      absl::Seconds(30)));
  ASSERT_TRUE(WaitForWorldTick("slow", 3));

  Exposition e;
  ASSERT_TRUE(Scrape(&e)) << last_text_;
  for (const char* family :
       {"atoll_worlds", "atoll_bodies", "atoll_awake_bodies", "atoll_sessions", "atoll_ticks_total",
        "atoll_late_ticks_total", "atoll_skipped_ticks_total", "atoll_reduced_send_ticks_total",
        "atoll_tick_lateness_seconds",
        "atoll_step_duration_seconds", "atoll_outbox_collapses_total",
        "atoll_session_sent_messages_total", "atoll_session_sent_bytes_total",
        "atoll_refused_inputs_total", "atoll_recording_sync_latency_seconds",
        "atoll_batch_jobs_running", "atoll_batch_jobs_finished_total"}) {
    EXPECT_EQ(e.families.count(family), 1u) << family;
  }
  EXPECT_EQ(e.Value("atoll_worlds"), 2.0);
  // Each duel has 5 bodies, published when the world is made.
  EXPECT_EQ(e.Value("atoll_bodies"), 10.0);
  EXPECT_EQ(e.Value("atoll_sessions", {{"kind", "player"}}), 1.0);
  EXPECT_EQ(e.Value("atoll_sessions", {{"kind", "spectator"}}), 0.0);
  for (const char* hz : {"60", "30"}) {
    const Labels rate = {{"tick_rate_hz", hz}};
    ASSERT_TRUE(e.Value("atoll_ticks_total", rate).has_value()) << hz;
    EXPECT_GT(*e.Value("atoll_ticks_total", rate), 0) << hz;
    EXPECT_TRUE(e.Value("atoll_late_ticks_total", rate).has_value()) << hz;
    Labels inf = rate;
    inf["le"] = "+Inf";
    ASSERT_TRUE(e.Value("atoll_tick_lateness_seconds_bucket", inf).has_value()) << hz;
    EXPECT_GT(*e.Value("atoll_tick_lateness_seconds_count", rate), 0) << hz;
    EXPECT_GT(*e.Value("atoll_step_duration_seconds_count", rate), 0) << hz;
  }
  EXPECT_GT(*e.Value("atoll_session_sent_bytes_total"), 0);
  EXPECT_GT(*e.Value("atoll_session_sent_messages_total"), 0);
  EXPECT_EQ(e.Value("atoll_refused_inputs_total", {{"code", "INVALID_ARGUMENT"}}), 1.0);
  EXPECT_EQ(e.Value("atoll_batch_jobs_running"), 0.0);

  // Counters only grow: a second scrape after more ticks.
  ASSERT_TRUE(WaitForWorldTick("slow", GetWorld(server_->address(), "slow").tick() + 1));
  Exposition later;
  ASSERT_TRUE(Scrape(&later)) << last_text_;
  for (const char* hz : {"60", "30"}) {
    const Labels rate = {{"tick_rate_hz", hz}};
    EXPECT_GE(*later.Value("atoll_ticks_total", rate), *e.Value("atoll_ticks_total", rate));
  }
  EXPECT_GE(*later.Value("atoll_session_sent_bytes_total"),
            *e.Value("atoll_session_sent_bytes_total"));
  player->Close();
}

TEST_F(MetricsHttpTest, OnlyGetMetricsIsServedAndTheServerTicksOn) {
  CreateDuel("world", 60);
  ASSERT_TRUE(WaitForWorldTick("world", 1));
  auto post = HttpRequest(base_, "POST", "/metrics");
  ASSERT_TRUE(post.ok()) << post.status();
  EXPECT_EQ(post->status, 405);
  auto put = HttpRequest(base_, "PUT", "/metrics");
  ASSERT_TRUE(put.ok()) << put.status();
  EXPECT_EQ(put->status, 405);
  for (const char* path : {"/other", "/", "/metrics/", "/metrics.txt", "/api/worlds"}) {
    auto other = HttpRequest(base_, "GET", path);
    ASSERT_TRUE(other.ok()) << other.status();
    EXPECT_EQ(other->status, 404) << path;
  }
  const uint64_t before = GetWorld(server_->address(), "world").tick();
  EXPECT_TRUE(WaitForWorldTick("world", before)) << "the world stopped ticking";
  Exposition e;
  EXPECT_TRUE(Scrape(&e)) << last_text_;
}

TEST_F(MetricsHttpTest, WithoutWorldsOrDataDirEveryFamilyIsThereAndEmpty) {
  // Checkpoints are synced off the tick thread with --data_dir; this
  // server has none, so the family is there with no observations.
  Exposition e;
  ASSERT_TRUE(Scrape(&e)) << last_text_;
  EXPECT_EQ(e.Value("atoll_recording_sync_latency_seconds_count"), 0.0);
  EXPECT_EQ(e.Value("atoll_worlds"), 0.0);
}

TEST(MetricsHttpDataDirTest, CountsRecordingSyncs) {
  const std::string dir = MakeTempDir();
  auto server = ServerProcess::Start({"--metrics_listen=127.0.0.1:0", "--data_dir=" + dir});
  ASSERT_TRUE(server.ok()) << server.status();
  auto url = (*server)->WaitForLine("atoll-server metrics at ");
  ASSERT_TRUE(url.ok()) << url.status();
  v1::CreateWorldRequest request;
  request.set_world_id("recorded");
  *request.mutable_scene() = DuelScene();
  request.mutable_config()->set_player_slots(2);
  request.mutable_config()->set_checkpoint_every_ticks(2);
  CreateWorld((*server)->address(), request);
  const std::string base = url->substr(0, url->size() - std::string("/metrics").size());
  // Polls until a sync has been counted (the limit asserts nothing about
  // speed: it only ends a hung test).
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  Exposition e;
  while (absl::Now() < deadline) {
    auto reply = HttpRequest(base, "GET", "/metrics");
    ASSERT_TRUE(reply.ok()) << reply.status();
    e = Exposition();
    ASSERT_TRUE(ParseExposition(reply->body, &e)) << reply->body;
    if (e.Value("atoll_recording_sync_latency_seconds_count").value_or(0) > 0) break;
    absl::SleepFor(absl::Milliseconds(50));
  }
  EXPECT_GT(e.Value("atoll_recording_sync_latency_seconds_count").value_or(0), 0);
}

TEST(MetricsHttpFlagTest, BadMetricsListenExitsNamingTheFlag) {
  for (const std::string bad : {"nonsense", "127.0.0.1:99999", "127.0.0.1:http"}) {
    std::string output;
    const int code = RunCommand(
        {BinaryPath("atoll-server"), "--listen=127.0.0.1:0", "--metrics_listen=" + bad}, &output);
    EXPECT_NE(code, 0) << bad << ": " << output;
    EXPECT_THAT(output, HasSubstr("--metrics_listen")) << output;
    EXPECT_THAT(output, HasSubstr(bad.substr(bad.find(':') + 1))) << output;
  }
}

TEST(MetricsHttpFlagTest, APortInUseExitsNamingTheFlag) {
  auto first = ServerProcess::Start({"--metrics_listen=127.0.0.1:0"});
  ASSERT_TRUE(first.ok()) << first.status();
  auto url = (*first)->WaitForLine("atoll-server metrics at http://");
  ASSERT_TRUE(url.ok()) << url.status();
  const std::string taken = url->substr(0, url->find('/'));  // 127.0.0.1:PORT
  std::string output;
  const int code = RunCommand(
      {BinaryPath("atoll-server"), "--listen=127.0.0.1:0", "--metrics_listen=" + taken}, &output);
  EXPECT_NE(code, 0) << output;
  EXPECT_THAT(output, HasSubstr("metrics_listen")) << output;
}

TEST(MetricsHttpFlagTest, OffByDefault) {
  auto server = ServerProcess::Start();
  ASSERT_TRUE(server.ok()) << server.status();
  absl::SleepFor(absl::Milliseconds(200));
  EXPECT_THAT(server->get()->Output(), ::testing::Not(HasSubstr("metrics at")));
}

}  // namespace
}  // namespace atl::testing
