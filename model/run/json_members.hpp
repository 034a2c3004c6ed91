// One list of an object's members, two ways to write it: into nlohmann::json (DomObject), or
// straight into the text nlohmann's dump(2) would print for that object (TextObject), with
// no DOM built, copied or freed. results.json holds a few hundred kilobytes for a sweep of
// tens of points; building, dumping and freeing its DOM was a third of an analytic
// `possim run` (bench/results/growth.md, time to answer). A writer fills either through
// the same calls (model/run/result_io.cpp), so the two cannot drift apart.
#pragma once
#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace possim {

class DomObject {
 public:
  explicit DomObject(nlohmann::json& j) : j_(j) {}
  template <class T>
  void value(const char* key, T&& v) {
    j_[key] = std::forward<T>(v);
  }
  template <class Fill>
  void object(const char* key, const Fill& fill) {
    nlohmann::json o = nlohmann::json::object();
    DomObject sub(o);
    fill(sub);
    j_[key] = std::move(o);
  }
  // An array of objects, one per item.
  template <class Items, class Fill>
  void objects(const char* key, const Items& items, const Fill& fill) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& item : items) {
      nlohmann::json o = nlohmann::json::object();
      DomObject sub(o);
      fill(sub, item);
      a.push_back(std::move(o));
    }
    j_[key] = std::move(a);
  }

 private:
  nlohmann::json& j_;
};

// The object written straight into `out` at `depth` (0: the document), byte for byte as
// nlohmann::json's dump(2) prints the object DomObject builds from the same calls. dump
// sorts members by key (its std::map's order); here they are written as they come, so a
// writer gives them in that order, and a member out of order is a logic_error. Values go
// through nlohmann's own serializer, so numbers and strings print as dump prints them.
class TextObject {
 public:
  TextObject(std::string& out, int depth) : TextObject(out, depth, nullptr) {}
  TextObject(const TextObject&) = delete;
  TextObject& operator=(const TextObject&) = delete;
  // The closing brace.
  ~TextObject() {
    if (members_ > 0) newline(depth_);
    out_ += '}';
  }
  // A scalar, or anything nlohmann converts (a vector of numbers, a json value).
  template <class T>
  void value(const char* key, const T& v) {
    member(key);
    writer_->dump(nlohmann::json(v), true, false, 2, unsigned(2 * (depth_ + 1)));
  }
  template <class Fill>
  void object(const char* key, const Fill& fill) {
    member(key);
    TextObject sub(out_, depth_ + 1, writer_);
    fill(sub);
  }
  // An array of objects, one per item.
  template <class Items, class Fill>
  void objects(const char* key, const Items& items, const Fill& fill) {
    member(key);
    std::size_t n = 0;
    out_ += '[';
    for (const auto& item : items) {
      out_ += n++ == 0 ? "" : ",";
      newline(depth_ + 2);
      TextObject sub(out_, depth_ + 2, writer_);
      fill(sub, item);
    }
    if (n > 0) newline(depth_ + 1);
    out_ += ']';
  }

 private:
  using Writer = nlohmann::detail::serializer<nlohmann::json>;
  // A member object shares its document's serializer: making one reads the locale and
  // allocates its output adapter, per object that was a tenth of writing results.json.
  TextObject(std::string& out, int depth, Writer* shared) : out_(out), depth_(depth) {
    if (shared == nullptr) shared = &own_.emplace(nlohmann::detail::output_adapter<char, std::string>(out), ' ');
    writer_ = shared;
    out_ += '{';
  }
  void newline(int depth) {
    out_ += '\n';
    out_.append(std::size_t(2 * depth), ' ');
  }
  void member(const char* key) {
    const std::size_t len = std::strlen(key);
    if (len >= last_.size()) throw std::logic_error(std::string("json text: member name \"") + key + "\" is too long");
    if (members_ > 0 && !(std::strcmp(last_.data(), key) < 0))
      throw std::logic_error(std::string("json text: member \"") + key + "\" after \"" + last_.data() +
                             "\" (dump sorts them)");
    std::memcpy(last_.data(), key, len + 1);
    // [","] "\n" indent '"' key '": ', grown once (a results file has tens of thousands).
    const std::size_t comma = members_++ == 0 ? 0 : 1, indent = std::size_t(2 * (depth_ + 1));
    const std::size_t at = out_.size();
    out_.resize(at + comma + 1 + indent + 1 + len + 3);
    char* w = &out_[at];
    if (comma) *w++ = ',';
    *w++ = '\n';
    w = std::fill_n(w, indent, ' ');
    *w++ = '"';
    w = std::copy_n(key, len, w);  // keys are identifiers: nothing to escape
    std::memcpy(w, "\": ", 3);
  }

  std::string& out_;
  int depth_;
  std::optional<Writer> own_;  // the document's serializer, in the outermost object
  Writer* writer_ = nullptr;
  std::size_t members_ = 0;
  std::array<char, 64> last_{};  // the last member's name (keys are short identifiers)
};

}  // namespace possim
