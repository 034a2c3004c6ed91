#include "calibrate/exchange/node.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "net/wire.hpp"

namespace possim::calibrate::exchange {
using namespace possim::net;  // the transport (net/)

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

// Data sockets hold a whole message or more: once a message is in the kernel, the wire
// paces it even while a process waits for a CPU on a busy machine.
constexpr int kSocketBufferBytes = 16 << 20;

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The shard's update thread: pushed KV-pair payloads are applied here (p -= lr * g), off
// the connection threads, so a pull that follows a push is not held up by the update.
class Applier {
 public:
  explicit Applier(const std::vector<int>& hosted) {
    for (int s : hosted) params_[s];
    thread_ = std::thread([this] { loop(); });
  }
  ~Applier() { stop(); }

  bool hosts(int shard) const { return params_.count(shard) > 0; }

  std::vector<char> take_buffer(std::size_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<char> b;
    if (!pool_.empty()) {
      b = std::move(pool_.back());
      pool_.pop_back();
    }
    if (b.size() < bytes) b.resize(bytes);
    return b;
  }

  void submit(int shard, std::vector<char> buf, std::size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      jobs_.push_back(Job{shard, std::move(buf), bytes});
    }
    cv_.notify_one();
  }

  // Drain the queue and stop the thread.
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    cv_.notify_one();
    if (thread_.joinable()) thread_.join();
  }

  json stats() {
    std::lock_guard<std::mutex> lock(mu_);
    return {{"apply_bytes", bytes_}, {"apply_s", seconds_}, {"applies", count_}};
  }

 private:
  struct Job {
    int shard;
    std::vector<char> buf;
    std::size_t bytes;
  };

  void loop() {
    for (;;) {
      Job job;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
        if (jobs_.empty()) return;
        job = std::move(jobs_.front());
        jobs_.pop_front();
      }
      std::vector<float>& p = params_.at(job.shard);
      const std::size_t n = job.bytes / sizeof(float);
      const auto t0 = Clock::now();
      if (p.size() < n) p.resize(n, 0.0f);
      const float* g = reinterpret_cast<const float*>(job.buf.data());
      for (std::size_t i = 0; i < n; ++i) p[i] -= 0.01f * g[i];
      const double s = since(t0);
      std::lock_guard<std::mutex> lock(mu_);
      bytes_ += double(n * sizeof(float));
      seconds_ += s;
      ++count_;
      pool_.push_back(std::move(job.buf));
    }
  }

  std::map<int, std::vector<float>> params_;  // touched by the update thread only
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> jobs_;
  std::vector<std::vector<char>> pool_;
  bool stopping_ = false;
  double bytes_ = 0, seconds_ = 0;
  long count_ = 0;
  std::thread thread_;
};

// The serving side of one data connection.
class Handler {
 public:
  Handler(Fd fd, Applier* applier) : fd_(std::move(fd)), applier_(applier) {}

  void run() {
    try {
      for (;;) {
        const Header h = recv_header(fd_.get());
        switch (h.op) {
          case Op::push: {
            // Ack on receipt; the update runs on the shard's update thread.
            if (applier_->hosts(int(h.aux))) {
              std::vector<char> b = applier_->take_buffer(std::size_t(h.bytes));
              recv_all(fd_.get(), b.data(), std::size_t(h.bytes));
              send_header(fd_.get(), Header{Op::ack, h.aux, 0});
              applier_->submit(int(h.aux), std::move(b), std::size_t(h.bytes));
            } else {
              receive(h.bytes);
              send_header(fd_.get(), Header{Op::ack, h.aux, 0});
            }
            break;
          }
          case Op::sf:
            receive(h.bytes);
            send_header(fd_.get(), Header{Op::ack, 0, 0});
            break;
          case Op::pull:
            if (buf_.size() < h.bytes) buf_.resize(std::size_t(h.bytes));
            send_frame(fd_.get(), Header{Op::data, h.aux, h.bytes}, buf_.data());
            break;
          case Op::burst: {
            for (std::uint32_t k = 0; k < h.aux; ++k) {
              const Header t = recv_header(fd_.get());
              receive(t.bytes);
            }
            send_header(fd_.get(), Header{Op::ack, h.aux, 0});
            break;
          }
          case Op::bye:
            return;
          default:
            throw std::runtime_error("unexpected frame kind " + std::to_string(int(h.op)));
        }
      }
    } catch (const std::exception& e) {
      const std::string what = e.what();
      if (what != "connection closed by peer")
        std::fprintf(stderr, "possim exchange node: data connection: %s\n", what.c_str());
    }
  }

 private:
  void receive(std::uint64_t bytes) {
    if (buf_.size() < bytes) buf_.resize(std::size_t(bytes));
    recv_all(fd_.get(), buf_.data(), std::size_t(bytes));
  }

  Fd fd_;
  std::vector<char> buf_;
  Applier* applier_;
};

struct Conn {
  int node = -1;
  Fd fd;
};

class Worker {
 public:
  Worker(int me, std::vector<Conn>* conns, const json& setup)
      : me_(me), conns_(conns), setup_(setup) {}

  json run() {
    const json& plan = setup_["plan"];
    const std::vector<double> kv = plan["kv_sizes"], sf = plan["sf_sizes"];
    const int repeats = plan["repeats"], warmup = plan["warmup"], burst_count = plan["burst_count"];
    const double burst_bytes = plan["burst_bytes"];
    const std::vector<int> shard_node = setup_["shard_node"];
    const std::vector<int> workers = setup_["workers"];
    double biggest = 0;
    for (double b : kv) biggest = std::max(biggest, b);
    for (double b : sf) biggest = std::max(biggest, b);
    buf_.assign(std::size_t(std::max(biggest, burst_bytes)) + 16, 0);

    json samples = json::array();
    // Warm-up: open each connection's congestion window, untimed.
    for (int w = 0; w < warmup; ++w)
      for (auto& c : *conns_) timed_sf(c, biggest);

    for (int r = 0; r < repeats; ++r) {
      for (std::size_t i = 0; i < kv.size(); ++i) {
        const double bytes = kv[(i + std::size_t(r)) % kv.size()];  // rotate the order each round
        for (std::size_t s = 0; s < shard_node.size(); ++s) {
          if (shard_node[s] == me_) continue;  // the local shard is not a network path
          Conn& c = conn(shard_node[s]);
          samples.push_back(sample("push", c.node, bytes, timed_push(c, int(s), bytes)));
          samples.push_back(sample("pull", c.node, bytes, timed_pull(c, int(s), bytes)));
        }
      }
      for (std::size_t i = 0; i < sf.size(); ++i) {
        const double bytes = sf[(i + std::size_t(r)) % sf.size()];
        for (int w : workers) {
          if (w == me_) continue;
          Conn& c = conn(w);
          samples.push_back(sample("sf", c.node, bytes, timed_sf(c, bytes)));
        }
      }
      // Per-message cost: one small message with its ack, then a burst of them.
      for (auto& c : *conns_) {
        json one = sample("ping", c.node, burst_bytes, timed_burst(c, 1, burst_bytes));
        one["count"] = 1;
        samples.push_back(one);
        json many = sample("burst", c.node, burst_bytes, timed_burst(c, burst_count, burst_bytes));
        many["count"] = burst_count;
        samples.push_back(many);
      }
    }
    return samples;
  }

 private:
  Conn& conn(int node) {
    for (auto& c : *conns_)
      if (c.node == node) return c;
    throw std::runtime_error("no connection to node " + std::to_string(node));
  }
  json sample(const char* path, int dst, double bytes, double seconds) const {
    return {{"path", path}, {"src", me_}, {"dst", dst}, {"bytes", bytes}, {"seconds", seconds}};
  }
  double timed_push(Conn& c, int shard, double bytes) {
    const auto t0 = Clock::now();
    send_frame(c.fd.get(), Header{Op::push, std::uint32_t(shard), std::uint64_t(bytes)},
               buf_.data());
    expect(c, Op::ack);
    return since(t0);
  }
  double timed_pull(Conn& c, int shard, double bytes) {
    const auto t0 = Clock::now();
    send_header(c.fd.get(), Header{Op::pull, std::uint32_t(shard), std::uint64_t(bytes)});
    const Header h = recv_header(c.fd.get());
    if (h.op != Op::data || h.bytes != std::uint64_t(bytes))
      throw std::runtime_error("bad pull reply");
    recv_all(c.fd.get(), buf_.data(), std::size_t(h.bytes));
    return since(t0);
  }
  double timed_sf(Conn& c, double bytes) {
    const auto t0 = Clock::now();
    send_frame(c.fd.get(), Header{Op::sf, 0, std::uint64_t(bytes)}, buf_.data());
    expect(c, Op::ack);
    return since(t0);
  }
  double timed_burst(Conn& c, int count, double bytes) {
    const auto t0 = Clock::now();
    send_header(c.fd.get(), Header{Op::burst, std::uint32_t(count), 0});
    for (int k = 0; k < count; ++k)
      send_frame(c.fd.get(), Header{Op::tiny, 0, std::uint64_t(bytes)}, buf_.data());
    expect(c, Op::ack);
    return since(t0);
  }
  void expect(Conn& c, Op op) {
    const Header h = recv_header(c.fd.get());
    if (h.op != op)
      throw std::runtime_error("unexpected reply from node " + std::to_string(c.node));
  }

  int me_;
  std::vector<Conn>* conns_;
  json setup_;
  std::vector<char> buf_;
};

}  // namespace

int run_node(int ctrl_fd, const std::string& bind_address, double timeout_s) {
  std::unique_ptr<Applier> applier;
  std::vector<std::unique_ptr<Handler>> handlers;
  std::vector<std::thread> threads;
  std::mutex threads_mu;
  std::thread acceptor;
  Fd listener;
  std::vector<Conn> conns;
  int status = 0;
  try {
    set_timeouts(ctrl_fd, timeout_s);
    std::uint16_t port = 0;
    // Best effort (root): measure the network, not the scheduler of a busy machine. Set
    // before any thread starts, so that they all inherit it.
    ::setpriority(PRIO_PROCESS, 0, -10);
    listener = listen_tcp(bind_address, port, kSocketBufferBytes);
    send_json(ctrl_fd, {{"type", "hello"}, {"address", bind_address}, {"port", port}});
    const json setup = recv_json(ctrl_fd);
    if (setup.value("type", "") != "setup")
      throw std::runtime_error("expected setup from the coordinator");
    const int me = setup["id"];
    applier = std::make_unique<Applier>(setup["hosted_shards"].get<std::vector<int>>());
    Applier* app = applier.get();

    const int lfd = listener.get();
    acceptor = std::thread([&, lfd, app] {
      for (;;) {
        Fd c;
        try {
          c = accept_tcp(lfd);
        } catch (const std::exception&) {
          return;  // listener shut down
        }
        tune_socket(c.get(), timeout_s);
        auto h = std::make_unique<Handler>(std::move(c), app);
        Handler* raw = h.get();
        std::lock_guard<std::mutex> lock(threads_mu);
        handlers.push_back(std::move(h));
        threads.emplace_back([raw] { raw->run(); });
      }
    });

    if (setup["worker"].get<bool>()) {
      for (const json& peer : setup["roster"]) {
        const int id = peer["id"];
        if (id == me) continue;
        Conn c;
        c.node = id;
        c.fd = connect_tcp(peer["address"].get<std::string>(), peer["port"].get<std::uint16_t>(),
                           timeout_s, kSocketBufferBytes);
        tune_socket(c.fd.get(), timeout_s);
        conns.push_back(std::move(c));
      }
    }
    send_json(ctrl_fd, {{"type", "ready"}});

    for (;;) {
      const json cmd = recv_json(ctrl_fd);
      const std::string type = cmd.value("type", "");
      if (type == "run") {
        Worker w(me, &conns, setup);
        json reply = {{"type", "samples"}, {"samples", w.run()}};
        int mss = 0;
        socklen_t len = sizeof mss;
        if (!conns.empty() &&
            ::getsockopt(conns.front().fd.get(), IPPROTO_TCP, TCP_MAXSEG, &mss, &len) == 0)
          reply["mss_bytes"] = mss;  // payload bytes per TCP segment on this path
        send_json(ctrl_fd, reply);
      } else if (type == "quit") {
        break;
      } else {
        throw std::runtime_error("unknown control message '" + type + "'");
      }
    }
    for (auto& c : conns) {
      try {
        send_header(c.fd.get(), Header{Op::bye, 0, 0});
      } catch (const std::exception&) {
      }
      c.fd.reset();
    }
    applier->stop();  // every push was acked; drain the updates before reporting them
    json st = applier->stats();
    st["type"] = "stats";
    send_json(ctrl_fd, st);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "possim exchange node: %s\n", e.what());
    status = 1;
  }
  conns.clear();
  if (listener) ::shutdown(listener.get(), SHUT_RDWR);
  if (acceptor.joinable()) acceptor.join();
  listener.reset();
  std::vector<std::thread> to_join;
  {
    std::lock_guard<std::mutex> lock(threads_mu);
    to_join.swap(threads);
  }
  for (auto& t : to_join) t.join();
  applier.reset();
  return status;
}

}  // namespace possim::calibrate::exchange
