#include "net/wire.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace possim::net {

namespace {

std::runtime_error sys_error(const std::string& what) {
  return std::runtime_error(what + ": " + std::strerror(errno));
}

std::uint64_t to_be64(std::uint64_t v) {
  std::uint64_t r = 0;
  for (int i = 0; i < 8; ++i)
    reinterpret_cast<unsigned char*>(&r)[i] = static_cast<unsigned char>(v >> (56 - 8 * i));
  return r;
}
std::uint64_t from_be64(std::uint64_t v) {
  std::uint64_t r = 0;
  for (int i = 0; i < 8; ++i) r = (r << 8) | reinterpret_cast<const unsigned char*>(&v)[i];
  return r;
}

void encode(const Header& h, unsigned char out[16]) {
  const std::uint32_t op = htonl(std::uint32_t(h.op)), aux = htonl(h.aux);
  const std::uint64_t bytes = to_be64(h.bytes);
  std::memcpy(out, &op, 4);
  std::memcpy(out + 4, &aux, 4);
  std::memcpy(out + 8, &bytes, 8);
}

sockaddr_in make_addr(const std::string& addr, std::uint16_t port) {
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(port);
  if (inet_pton(AF_INET, addr.c_str(), &sa.sin_addr) != 1)
    throw std::runtime_error("not an IPv4 address: '" + addr + "'");
  return sa;
}

}  // namespace

Fd& Fd::operator=(Fd&& o) noexcept {
  if (this != &o) {
    reset(o.fd_);
    o.fd_ = -1;
  }
  return *this;
}

void Fd::reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

void send_all(int fd, const void* buf, std::size_t n) {
  const char* p = static_cast<const char*>(buf);
  while (n > 0) {
    const ssize_t k = ::send(fd, p, n, MSG_NOSIGNAL);
    if (k < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) throw std::runtime_error("send timed out");
      throw sys_error("send");
    }
    p += k;
    n -= std::size_t(k);
  }
}

void recv_all(int fd, void* buf, std::size_t n) {
  char* p = static_cast<char*>(buf);
  while (n > 0) {
    const ssize_t k = ::recv(fd, p, n, 0);
    if (k == 0) throw std::runtime_error("connection closed by peer");
    if (k < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) throw std::runtime_error("receive timed out");
      throw sys_error("recv");
    }
    p += k;
    n -= std::size_t(k);
  }
}

void send_header(int fd, const Header& h) {
  unsigned char b[16];
  encode(h, b);
  send_all(fd, b, sizeof b);
}

void send_frame(int fd, const Header& h, const void* payload) {
  unsigned char b[16];
  encode(h, b);
  iovec iov[2] = {{b, sizeof b}, {const_cast<void*>(payload), std::size_t(h.bytes)}};
  std::size_t total = sizeof b + std::size_t(h.bytes);
  int first = 0;
  while (total > 0) {
    msghdr msg{};
    msg.msg_iov = iov + first;
    msg.msg_iovlen = std::size_t(2 - first);
    const ssize_t k = ::sendmsg(fd, &msg, MSG_NOSIGNAL);
    if (k < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) throw std::runtime_error("send timed out");
      throw sys_error("sendmsg");
    }
    total -= std::size_t(k);
    std::size_t done = std::size_t(k);
    while (first < 2 && done >= iov[first].iov_len) {
      done -= iov[first].iov_len;
      ++first;
    }
    if (first < 2) {
      iov[first].iov_base = static_cast<char*>(iov[first].iov_base) + done;
      iov[first].iov_len -= done;
    }
  }
}

Header recv_header(int fd) {
  unsigned char b[16];
  recv_all(fd, b, sizeof b);
  std::uint32_t op, aux;
  std::uint64_t bytes;
  std::memcpy(&op, b, 4);
  std::memcpy(&aux, b + 4, 4);
  std::memcpy(&bytes, b + 8, 8);
  return Header{Op(ntohl(op)), ntohl(aux), from_be64(bytes)};
}

void send_json(int fd, const nlohmann::json& j) {
  const std::string s = j.dump();
  send_frame(fd, Header{Op::ctrl, 0, s.size()}, s.data());
}

nlohmann::json recv_json(int fd) {
  const Header h = recv_header(fd);
  if (h.op != Op::ctrl)
    throw std::runtime_error("expected a control message, got frame kind " +
                             std::to_string(int(h.op)));
  if (h.bytes > (64u << 20)) throw std::runtime_error("control message too large");
  std::string s(std::size_t(h.bytes), '\0');
  recv_all(fd, s.data(), s.size());
  return nlohmann::json::parse(s);
}

void set_buffers(int fd, int bytes) {
  if (bytes <= 0) return;
  if (::setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &bytes, sizeof bytes) < 0)
    ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes);
  if (::setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof bytes) < 0)
    ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes);
}

Fd listen_tcp(const std::string& addr, std::uint16_t& port, int buffer_bytes) {
  Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) throw sys_error("socket");
  const int one = 1;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  set_buffers(fd.get(), buffer_bytes);
  sockaddr_in sa = make_addr(addr, port);
  // A fixed port can be held for an instant by a client that connected to itself (below):
  // it lets go at once, so a bind that finds it in use tries again for a second.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (::bind(fd.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa) < 0) {
    if (errno != EADDRINUSE || port == 0 || std::chrono::steady_clock::now() > deadline)
      throw sys_error("bind " + addr + ":" + std::to_string(port));
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (::listen(fd.get(), 64) < 0) throw sys_error("listen");
  socklen_t len = sizeof sa;
  ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&sa), &len);
  port = ntohs(sa.sin_port);
  return fd;
}

Fd accept_tcp(int listen_fd) {
  for (;;) {
    const int c = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (c >= 0) return Fd(c);
    if (errno == EINTR) continue;
    throw sys_error("accept");
  }
}

Fd connect_tcp(const std::string& addr, std::uint16_t port, double timeout_s, int buffer_bytes) {
  const sockaddr_in sa = make_addr(addr, port);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!fd) throw sys_error("socket");
    set_buffers(fd.get(), buffer_bytes);
    if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&sa), sizeof sa) == 0) {
      // TCP's simultaneous open: with nobody listening on a loopback port, a client whose
      // ephemeral port happens to be that port connects to itself (and holds the port the
      // server is about to bind). Not a connection: let go and try again.
      sockaddr_in local{};
      socklen_t len = sizeof local;
      if (::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&local), &len) < 0 || local.sin_port != sa.sin_port ||
          local.sin_addr.s_addr != sa.sin_addr.s_addr)
        return fd;
    }
    if (std::chrono::steady_clock::now() > deadline)
      throw sys_error("connect to " + addr + ":" + std::to_string(port));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

void set_timeouts(int fd, double timeout_s) {
  timeval tv{};
  tv.tv_sec = time_t(timeout_s);
  tv.tv_usec = suseconds_t((timeout_s - double(tv.tv_sec)) * 1e6);
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

void tune_socket(int fd, double timeout_s) {
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (timeout_s > 0) set_timeouts(fd, timeout_s);
}

std::string local_address(int fd) {
  sockaddr_in sa{};
  socklen_t len = sizeof sa;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len) < 0) throw sys_error("getsockname");
  char buf[INET_ADDRSTRLEN];
  ::inet_ntop(AF_INET, &sa.sin_addr, buf, sizeof buf);
  return buf;
}

}  // namespace possim::net
