// The live engine's frames between node processes: a 32-byte header (network byte order),
// then `bytes` of payload for data frames. Every frame names the task instance it is
// about (iteration, template task, who) and a part of it (a flow's index in
// expand_flows() order, or a collective's stream).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

namespace possim::live {

enum class Kind : std::uint32_t {
  hello = 1,        // first frame on a connection: who = the connecting node, part = channel
  data = 2,         // a message of a flow; flags & kLast on its flow's last message
  landed = 3,       // a flow's last byte arrived (to the sender, whose instance completes)
  pull = 4,         // a worker asks a shard's node for one flow of a pull
  done = 5,         // an instance completed (to the nodes running what waits for it)
  coll = 6,         // a collective's send: who = sending worker, part = stream
};

constexpr std::uint32_t kLast = 1;       // the last message of its flow
constexpr std::uint32_t kPieceOnly = 2;  // a piece of a frame whose last piece comes later
                                         // (live/mesh.hpp); the receiver only counts it
constexpr int kDataChannel = 0, kControlChannel = 1;

struct Frame {
  Kind kind = Kind::data;
  std::uint32_t task = 0;
  std::int32_t t = 0;
  std::int32_t who = 0;
  std::int32_t part = 0;
  std::uint32_t flags = 0;
  std::uint64_t bytes = 0;
  // The payload's values (arithmetic compute), bytes long; null: zeros (emulated compute).
  // Not part of the header: it follows it on the wire.
  std::shared_ptr<const std::vector<unsigned char>> payload;
};

constexpr std::size_t kFrameBytes = 32;
void encode(const Frame& f, unsigned char out[kFrameBytes]);
Frame decode(const unsigned char in[kFrameBytes]);

}  // namespace possim::live
