#include "live/mesh.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace possim::live {

namespace {
constexpr std::size_t kChunk = 1 << 20;  // payload is written and read in pieces this big
const std::vector<unsigned char>& zeros() {
  static const std::vector<unsigned char> z(kChunk, 0);
  return z;
}
bool has_payload(Kind k) { return k == Kind::data || k == Kind::coll; }
constexpr std::uint64_t kMaxValues = 1ULL << 30;  // a frame of values is held whole in memory
}  // namespace

Mesh::Mesh(int me, int nodes, const std::string& address, bool values) : me_(me), nodes_(nodes), values_(values) {
  listener_ = net::listen_tcp(address, port_);
  out_.resize(std::size_t(nodes) * 2);
}

Mesh::~Mesh() { close(); }

void Mesh::connect(const std::vector<std::string>& addresses, const std::vector<std::uint16_t>& ports,
                   double timeout_s) {
  for (int n = 0; n < nodes_; ++n) {
    if (n == me_) continue;
    for (int ch = 0; ch < 2; ++ch) {
      auto out = std::make_unique<Out>();
      out->fd = net::connect_tcp(addresses[std::size_t(n)], ports[std::size_t(n)], timeout_s);
      net::tune_socket(out->fd.get(), 0);
      unsigned char b[kFrameBytes];
      encode(Frame{Kind::hello, 0, 0, me_, ch, 0, 0, nullptr}, b);
      net::send_all(out->fd.get(), b, sizeof b);
      out_[std::size_t(n) * 2 + std::size_t(ch)] = std::move(out);
    }
  }
  // Every peer connects twice; a peer that never does is named by the timeout.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (int(in_.size()) < 2 * (nodes_ - 1)) {
    pollfd p{listener_.get(), POLLIN, 0};
    const int left_ms = int(std::chrono::duration_cast<std::chrono::milliseconds>(
                                deadline - std::chrono::steady_clock::now()).count());
    if (left_ms <= 0 || ::poll(&p, 1, left_ms) <= 0)
      throw std::runtime_error("peers did not all connect within " + std::to_string(timeout_s) + " s (" +
                               std::to_string(in_.size()) + " of " + std::to_string(2 * (nodes_ - 1)) +
                               " connections)");
    net::Fd c = net::accept_tcp(listener_.get());
    net::set_timeouts(c.get(), timeout_s);
    unsigned char b[kFrameBytes];
    net::recv_all(c.get(), b, sizeof b);
    net::set_timeouts(c.get(), 0);
    const Frame h = decode(b);
    if (h.kind != Kind::hello || h.who < 0 || h.who >= nodes_ || h.who == me_)
      throw std::runtime_error("a connection did not introduce itself as a peer node");
    net::tune_socket(c.get(), 0);
    in_node_.push_back(h.who);
    in_.push_back(std::move(c));
  }
}

void Mesh::start(OnFrame on_frame, OnError on_error) {
  on_frame_ = std::move(on_frame);
  on_error_ = std::move(on_error);
  for (int n = 0; n < nodes_; ++n)
    for (int ch = 0; ch < 2; ++ch)
      if (Out* o = out_[std::size_t(n) * 2 + std::size_t(ch)].get()) o->thread = std::thread([this, n, o] { write_loop(n, o); });
  for (std::size_t i = 0; i < in_.size(); ++i)
    readers_.emplace_back([this, i] { read_loop(in_node_[i], in_[i].get()); });
}

void Mesh::send(int node, int channel, const Frame& f) {
  Out* o = out_.at(std::size_t(node) * 2 + std::size_t(channel)).get();
  if (o == nullptr) throw std::logic_error("live mesh: no connection to node " + std::to_string(node));
  if (f.payload && f.payload->size() != f.bytes) throw std::logic_error("live mesh: a payload of the wrong size");
  {
    std::lock_guard<std::mutex> lock(o->mu);
    o->queue.push_back(f);
  }
  o->cv.notify_one();
}

void Mesh::count(std::vector<double>& v, int t, double bytes) {
  std::lock_guard<std::mutex> lock(count_mu_);
  if (t < 0) return;
  if (v.size() <= std::size_t(t)) v.resize(std::size_t(t) + 1, 0);
  v[std::size_t(t)] += bytes;
}

std::vector<double> Mesh::sent_by_iteration() const {
  std::lock_guard<std::mutex> lock(count_mu_);
  return sent_;
}
std::vector<double> Mesh::received_by_iteration() const {
  std::lock_guard<std::mutex> lock(count_mu_);
  return received_;
}

void Mesh::fail(const std::string& what) {
  if (closing_) return;
  if (on_error_) on_error_(what);
}

void Mesh::write_loop(int node, Out* o) {
  try {
    for (;;) {
      Frame f;
      {
        std::unique_lock<std::mutex> lock(o->mu);
        o->cv.wait(lock, [&] { return closing_ || !o->queue.empty(); });
        if (closing_) return;
        f = o->queue.front();
        o->queue.pop_front();
        // One piece of a frame with payload; the rest goes to the back of the queue.
        if (has_payload(f.kind) && f.bytes > kPiece && !values_) {
          Frame rest = f;
          rest.bytes -= kPiece;
          o->queue.push_back(rest);
          f.bytes = kPiece;
          f.flags = kPieceOnly;
        }
      }
      unsigned char b[kFrameBytes];
      encode(f, b);
      net::send_all(o->fd.get(), b, sizeof b);
      if (has_payload(f.kind)) {
        for (std::uint64_t left = f.bytes; left > 0;) {
          const std::size_t k = std::size_t(std::min<std::uint64_t>(left, kChunk));
          net::send_all(o->fd.get(), f.payload ? f.payload->data() + (f.bytes - left) : zeros().data(), k);
          left -= k;
        }
        count(sent_, f.t, double(f.bytes));
      }
    }
  } catch (const std::exception& e) {
    fail("sending to node " + std::to_string(node) + ": " + e.what());
  }
}

void Mesh::read_loop(int node, int fd) {
  std::vector<unsigned char> scratch(kChunk);
  try {
    for (;;) {
      unsigned char b[kFrameBytes];
      net::recv_all(fd, b, sizeof b);
      Frame f = decode(b);
      if (has_payload(f.kind) && values_) {
        if (f.bytes > kMaxValues) throw std::runtime_error("a frame of " + std::to_string(f.bytes) + " bytes of values");
        auto v = std::make_shared<std::vector<unsigned char>>(std::size_t(f.bytes));
        net::recv_all(fd, v->data(), v->size());
        f.payload = std::move(v);
        count(received_, f.t, double(f.bytes));
      } else if (has_payload(f.kind)) {
        for (std::uint64_t left = f.bytes; left > 0;) {
          const std::size_t k = std::size_t(std::min<std::uint64_t>(left, kChunk));
          net::recv_all(fd, scratch.data(), k);
          left -= k;
        }
        count(received_, f.t, double(f.bytes));
        if (f.flags & kPieceOnly) continue;  // the frame's last piece comes later
      }
      on_frame_(node, f);
    }
  } catch (const std::exception& e) {
    fail("node " + std::to_string(node) + ": " + e.what());
  }
}

void Mesh::close() {
  if (closing_.exchange(true)) return;
  for (auto& o : out_)
    if (o) {
      { std::lock_guard<std::mutex> lock(o->mu); }
      o->cv.notify_all();
      ::shutdown(o->fd.get(), SHUT_RDWR);
    }
  for (auto& fd : in_) ::shutdown(fd.get(), SHUT_RDWR);
  for (auto& o : out_)
    if (o && o->thread.joinable()) o->thread.join();
  for (auto& t : readers_)
    if (t.joinable()) t.join();
}

}  // namespace possim::live
