#include "model/input/engine_sections.hpp"

#include <map>
#include <mutex>

namespace possim {

namespace {
std::mutex& lock() {
  static std::mutex m;
  return m;
}
std::map<std::string, EngineSectionCheck>& sections() {
  static std::map<std::string, EngineSectionCheck> s;
  return s;
}
}  // namespace

void declare_engine_section(const std::string& key, EngineSectionCheck check) {
  const std::lock_guard<std::mutex> g(lock());
  sections()[key] = check;
}

void forget_engine_section(const std::string& key) {
  const std::lock_guard<std::mutex> g(lock());
  sections().erase(key);
}

EngineSectionCheck engine_section_check(const std::string& key) {
  const std::lock_guard<std::mutex> g(lock());
  const auto it = sections().find(key);
  return it == sections().end() ? nullptr : it->second;
}

std::vector<std::string> engine_section_keys() {
  const std::lock_guard<std::mutex> g(lock());
  std::vector<std::string> keys;
  for (const auto& [k, _] : sections()) keys.push_back(k);
  return keys;
}

}  // namespace possim
