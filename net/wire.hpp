// TCP plumbing shared by the live exchange (calibrate/exchange/) and the live engine (live/):
// owned file descriptors, whole-buffer send/receive, 16-byte frame headers (big-endian on
// the wire), JSON control messages.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace possim::net {

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd(Fd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  Fd& operator=(Fd&& o) noexcept;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

// Frame kinds on data connections (worker -> target) and control channels.
enum class Op : std::uint32_t {
  push = 1,  // payload of `bytes` to a shard; the shard applies it, then acks
  pull = 2,  // ask for `bytes`; the target answers with a data frame
  sf = 3,    // sufficient factors of `bytes` to a peer; acked
  ack = 4,
  data = 5,
  burst = 6,  // `aux` tiny frames follow; one ack after the last
  tiny = 7,
  ctrl = 8,  // JSON control message of `bytes`
  bye = 9,
};

struct Header {
  Op op = Op::ack;
  std::uint32_t aux = 0;
  std::uint64_t bytes = 0;
};

// Throw std::runtime_error on error, timeout or a closed peer.
void send_all(int fd, const void* buf, std::size_t n);
void recv_all(int fd, void* buf, std::size_t n);
void send_header(int fd, const Header& h);
Header recv_header(int fd);
// Header and payload in one writev.
void send_frame(int fd, const Header& h, const void* payload);

void send_json(int fd, const nlohmann::json& j);
nlohmann::json recv_json(int fd);

// Listening socket on addr (port 0: any); returns the fd and sets `port`. buffer_bytes > 0
// sets the send/receive buffers first (accepted sockets inherit them, and the TCP window
// scale is chosen from them).
Fd listen_tcp(const std::string& addr, std::uint16_t& port, int buffer_bytes = 0);
Fd accept_tcp(int listen_fd);
// Retries until timeout_s (the listener may not be up yet).
Fd connect_tcp(const std::string& addr, std::uint16_t port, double timeout_s, int buffer_bytes = 0);
// Send and receive buffers of `bytes` (beyond net.core.*mem_max where the process may).
void set_buffers(int fd, int bytes);
// TCP_NODELAY; receive/send timeouts of timeout_s (0: none).
void tune_socket(int fd, double timeout_s);
void set_timeouts(int fd, double timeout_s);
// Address this end of a connected socket uses (IPv4 dotted quad).
std::string local_address(int fd);

}  // namespace possim::net
