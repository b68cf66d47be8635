// atoll::viewer — a small streaming JSON writer for draw frames and the
// world list: no DOM, no allocation per value beyond the output string.

#ifndef ATOLL_VIEWER_JSON_WRITER_H_
#define ATOLL_VIEWER_JSON_WRITER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace atl::viewer {

/// Appends JSON to a string; commas between values are placed by the
/// writer. The caller nests Begin/End calls correctly (not checked).
class JsonWriter {
 public:
  void BeginObject();
  void EndObject();
  void BeginArray();
  void EndArray();
  /// An object member's key; the next call writes its value.
  void Key(std::string_view key);
  /// A string value, escaped.
  void String(std::string_view value);
  void Int(int64_t value);
  void Uint(uint64_t value);
  void Bool(bool value);
  /// A number with at most `decimals` digits after the point, trailing zeros
  /// dropped; null when not finite (JSON has no NaN).
  void Number(double value, int decimals = 3);
  /// A 64-bit value as 16 lowercase hex digits in a string (JavaScript
  /// numbers hold 53 bits).
  void Hex64(uint64_t value);
  /// A value that is already JSON (e.g. a draw frame), written as is.
  void Raw(std::string_view json);

  const std::string& str() const { return out_; }
  std::string Take() { return std::move(out_); }

 private:
  void Separate();

  std::string out_;
  // One entry per open object/array: whether it has a value yet.
  std::vector<bool> has_value_;
  bool after_key_ = false;
};

/// Appends `value` as JsonWriter::Number writes it ("1.5", "2", "0"); false
/// and nothing appended when it is not finite.
bool AppendNumber(double value, int decimals, std::string* out);

/// `text` as a JSON string literal, quotes included.
std::string JsonQuote(std::string_view text);

}  // namespace atl::viewer

#endif  // ATOLL_VIEWER_JSON_WRITER_H_
