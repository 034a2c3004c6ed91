#include "live/frames.hpp"

#include <arpa/inet.h>

#include <cstring>

namespace possim::live {

namespace {
void put32(unsigned char* p, std::uint32_t v) {
  v = htonl(v);
  std::memcpy(p, &v, 4);
}
std::uint32_t get32(const unsigned char* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return ntohl(v);
}
}  // namespace

void encode(const Frame& f, unsigned char out[kFrameBytes]) {
  put32(out, std::uint32_t(f.kind));
  put32(out + 4, f.task);
  put32(out + 8, std::uint32_t(f.t));
  put32(out + 12, std::uint32_t(f.who));
  put32(out + 16, std::uint32_t(f.part));
  put32(out + 20, f.flags);
  put32(out + 24, std::uint32_t(f.bytes >> 32));
  put32(out + 28, std::uint32_t(f.bytes));
}

Frame decode(const unsigned char in[kFrameBytes]) {
  Frame f;
  f.kind = Kind(get32(in));
  f.task = get32(in + 4);
  f.t = std::int32_t(get32(in + 8));
  f.who = std::int32_t(get32(in + 12));
  f.part = std::int32_t(get32(in + 16));
  f.flags = get32(in + 20);
  f.bytes = (std::uint64_t(get32(in + 24)) << 32) | get32(in + 28);
  return f;
}

}  // namespace possim::live
