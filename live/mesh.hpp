// One node's TCP connections to every other node of a live run: to each peer a data and a
// control connection in each direction, so that small frames (landed, pull, done) never
// wait behind a flow's bytes in the sender's queue (they may still wait in the shaped
// link's queue, as on a real NIC). Sends are queued and never block the caller; one
// thread per outgoing connection writes its queue, one per incoming connection reads
// frames and hands each to the node once its payload has arrived.
//
// Frames queued together on one data connection share it: the writer takes them in turn,
// one piece of at most kPiece bytes each (every piece with its own header), as flows on
// connections of their own would share the link. A frame's owner sees it once, whole, when
// its last piece arrives.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "live/frames.hpp"
#include "net/wire.hpp"

namespace possim::live {

class Mesh {
 public:
  using OnFrame = std::function<void(int from_node, const Frame&)>;
  using OnError = std::function<void(const std::string&)>;

  // Listens on `address` (port chosen by the kernel: port()). With `values`, frames carry
  // their payloads (Frame::payload) and go whole, not in pieces: the arithmetic compute,
  // where what arrives matters and when does not.
  Mesh(int me, int nodes, const std::string& address, bool values = false);
  ~Mesh();
  Mesh(const Mesh&) = delete;
  Mesh& operator=(const Mesh&) = delete;

  std::uint16_t port() const { return port_; }
  // Connects to every peer and accepts every peer's connections (timeout_s for all).
  void connect(const std::vector<std::string>& addresses, const std::vector<std::uint16_t>& ports,
               double timeout_s);
  // Starts the threads. Frames and errors are handed over from the receiving thread.
  void start(OnFrame on_frame, OnError on_error);
  // Queues a frame to `node` on a channel; a data or coll frame is followed by
  // f.bytes of payload (f.payload's, or zeros).
  void send(int node, int channel, const Frame& f);
  // Closes every connection and joins the threads; errors from here on are not reported.
  void close();

  // Payload bytes written and read so far, by frame iteration (grown as needed).
  std::vector<double> sent_by_iteration() const;
  std::vector<double> received_by_iteration() const;

 private:
  static constexpr std::uint64_t kPiece = 64 * 1024;
  struct Out {
    net::Fd fd;
    std::mutex mu;
    std::condition_variable cv;
    std::deque<Frame> queue;  // frames in turn; a data frame's bytes are what is left of it
    std::thread thread;
  };
  void write_loop(int node, Out* out);
  void read_loop(int node, int fd);
  void count(std::vector<double>& v, int t, double bytes);
  void fail(const std::string& what);

  int me_, nodes_;
  bool values_ = false;
  net::Fd listener_;
  std::uint16_t port_ = 0;
  // [node * 2 + channel]; this node's own entries stay empty.
  std::vector<std::unique_ptr<Out>> out_;
  std::vector<net::Fd> in_;
  std::vector<int> in_node_;
  std::vector<std::thread> readers_;
  OnFrame on_frame_;
  OnError on_error_;
  std::atomic<bool> closing_{false};
  mutable std::mutex count_mu_;
  std::vector<double> sent_, received_;
};

}  // namespace possim::live
