// Deriving a profile for another GPU from its published figures ("device sheets") by
// scaling each layer kind of a measured base profile through a roofline. What is derived,
// and how, is written into the new profile's `sources`, one entry per field.
#pragma once
#include <optional>
#include <string>

#include "model/input/profile.hpp"

namespace possim {

// One published figure and where it was published.
struct DeviceFigure {
  double value = 0;
  std::string source;  // the document (datasheet, whitepaper, spec page) and what it says
  std::string date;    // when the document was published, e.g. "2017-06"
};

// A device sheet ("possim-device-1"): the vendor's figures for one GPU as a program sees it
// (one die: a dual-GPU board such as the Tesla K80 is two devices).
struct DeviceSheet {
  std::string name;               // short name; the derived profile's default name
  std::string device;             // what it is, in words (model, memory, form factor)
  std::string path;               // file it was read from
  DeviceFigure fp32_flops_per_s;  // fp32 peak on the CUDA cores (not tensor cores)
  // Dense tensor-core peaks, where the device has the math: a scenario's precision uses them.
  std::optional<DeviceFigure> tf32_flops_per_s;
  std::optional<DeviceFigure> fp16_flops_per_s;
  std::optional<DeviceFigure> bf16_flops_per_s;
  DeviceFigure memory_bytes_per_s;  // DRAM bandwidth, as published
  DeviceFigure memory_gb;           // DRAM size, as published (GB as the datasheet writes it)
  int pcie_generation = 0;          // 1..5
  int pcie_lanes = 0;               // 1, 2, 4, 8 or 16
  std::string pcie_source, pcie_date;
  std::optional<DeviceFigure> nvlink_bytes_per_s;  // all links of one GPU, one direction
  std::string board_note;  // GPUs per board, shared links, clocks: how the figures apply
  // Compute/communication interference (Profile::interference_*): factors of time, >= 1,
  // where measured (or stated as carried from another GPU in their source).
  std::optional<DeviceFigure> interference_kernel_slowdown;
  std::optional<DeviceFigure> interference_comm_slowdown;
};

DeviceSheet parse_device_sheet(const std::string& json_text, const std::string& where);
// A path, or the name of a shipped sheet (profiles/devices/NAME.json).
DeviceSheet load_device_sheet(const std::string& name_or_path, const std::string& base_dir = ".");

// Raw PCIe rate of one direction: lanes x per-lane rate after line coding
// (gen1 2.5 GT/s and gen2 5 GT/s with 8b/10b; gen3 8, gen4 16, gen5 32 GT/s with 128b/130b):
// x16 is 4.0, 8.0, 15.75, 31.5, 63.0 GB/s. Throws std::invalid_argument off that range.
double pcie_raw_bytes_per_s(int generation, int lanes);

// The fraction of published DRAM bandwidth a streaming kernel achieves, used only to state
// each kind's arithmetic intensity in FLOP per byte actually moved (it cancels out of every
// derived rate): ~235 GB/s of the Titan X's 336.5 (the titanx_maxwell profile's
// kind_efficiency source). Assumed the same on both GPUs.
constexpr double kAchievedMemoryFraction = 0.7;

// Efficiency that profile.cpp gives a memory-bound kind a profile leaves out; a kind the
// base leaves out is derived from this value (tests hold the two to the same number).
constexpr double kDefaultMemoryBoundEfficiency = 0.005;

// The base profile `base`, measured on the GPU described by `base_sheet`, carried to the GPU
// of `target`. See profile_derive.cpp for the rule of each field; every field gets a source.
Profile derive_profile(const Profile& base, const DeviceSheet& base_sheet,
                       const DeviceSheet& target, const std::string& name);

// The base profile `p` was derived from, as derive_profile marks it in p.device; "" for a
// profile not derived (measured, fitted or written by hand).
std::string derived_from(const Profile& p);

}  // namespace possim
