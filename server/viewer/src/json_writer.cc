#include "json_writer.h"

#include <cmath>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace atl::viewer {
namespace {

void AppendEscaped(std::string_view text, std::string* out) {
  out->push_back('"');
  for (const char ch : text) {
    switch (ch) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20) {
          absl::StrAppendFormat(out, "\\u%04x", static_cast<int>(ch));
        } else {
          out->push_back(ch);
        }
    }
  }
  out->push_back('"');
}

}  // namespace

void JsonWriter::Raw(std::string_view json) {
  Separate();
  out_.append(json);
}

void JsonWriter::Separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_value_.empty()) {
    if (has_value_.back()) out_.push_back(',');
    has_value_.back() = true;
  }
}

void JsonWriter::BeginObject() {
  Separate();
  out_.push_back('{');
  has_value_.push_back(false);
}

void JsonWriter::EndObject() {
  out_.push_back('}');
  has_value_.pop_back();
}

void JsonWriter::BeginArray() {
  Separate();
  out_.push_back('[');
  has_value_.push_back(false);
}

void JsonWriter::EndArray() {
  out_.push_back(']');
  has_value_.pop_back();
}

void JsonWriter::Key(std::string_view key) {
  Separate();
  AppendEscaped(key, &out_);
  out_.push_back(':');
  after_key_ = true;
}

void JsonWriter::String(std::string_view value) {
  Separate();
  AppendEscaped(value, &out_);
}

void JsonWriter::Int(int64_t value) {
  Separate();
  absl::StrAppend(&out_, value);
}

void JsonWriter::Uint(uint64_t value) {
  Separate();
  absl::StrAppend(&out_, value);
}

void JsonWriter::Bool(bool value) {
  Separate();
  out_.append(value ? "true" : "false");
}

void JsonWriter::Number(double value, int decimals) {
  Separate();
  if (!AppendNumber(value, decimals, &out_)) out_.append("null");
}

void JsonWriter::Hex64(uint64_t value) {
  Separate();
  absl::StrAppendFormat(&out_, "\"%016x\"", value);
}

bool AppendNumber(double value, int decimals, std::string* out) {
  if (!std::isfinite(value)) return false;
  char buf[64];
  int n = std::snprintf(buf, sizeof(buf), "%.*f", decimals, value);
  if (n <= 0 || n >= static_cast<int>(sizeof(buf))) return false;
  // Trim "1.500" to "1.5" and "2.000" to "2"; "-0" to "0".
  if (decimals > 0) {
    while (n > 0 && buf[n - 1] == '0') --n;
    if (n > 0 && buf[n - 1] == '.') --n;
  }
  std::string_view text(buf, static_cast<size_t>(n));
  if (text == "-0") text = "0";
  out->append(text);
  return true;
}

std::string JsonQuote(std::string_view text) {
  std::string out;
  AppendEscaped(text, &out);
  return out;
}

}  // namespace atl::viewer
