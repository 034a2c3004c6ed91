#include "model/run/provenance.hpp"

#include "model/run/version.hpp"

namespace possim {

nlohmann::json provenance_json(const Scenario& s, const std::string& engine) {
  using nlohmann::json;
  // A zoo model is compiled into possim: its version names it.
  const json model_hash = s.network.file_sha256.empty() ? json(nullptr) : json(s.network.file_sha256);
  return {{"hash", "sha256"},
          {"possim_version", possim_version()},
          {"engine", engine},
          {"seed", s.seed},
          {"scenario", {{"path", s.path}, {"sha256", s.sha256}}},
          {"model", {{"name", s.network.name}, {"ref", s.model_ref}, {"sha256", model_hash}}},
          {"profile", {{"name", s.profile.name}, {"path", s.profile.path}, {"sha256", s.profile.sha256}}}};
}

}  // namespace possim
