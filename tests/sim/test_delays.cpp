// sim/delays.hpp: calls after a delay of simulated time, by one actor. SimGrid allows one
// engine per process, so the run happens in a forked child, which writes what it saw
// (each call's name and instant, and the turns) down a pipe.
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include <catch2/catch.hpp>
#include <simgrid/s4u.hpp>

#include "sim/delays.hpp"

namespace sg4 = simgrid::s4u;

namespace {

// The child's run: returns what it saw, one line per call ("name at_s") and per turn.
std::string run_delays() {
  int argc = 2;
  char name[] = "test";
  char quiet[] = "--log=root.thres:critical";
  char* argv[] = {name, quiet, nullptr};
  sg4::Engine engine(&argc, argv);
  auto* zone = sg4::create_full_zone("zone");
  sg4::Host* host = zone->create_host("h", 1.0)->seal();
  zone->seal();
  std::string seen;
  const auto note = [&seen](const std::string& what) {
    char line[96];
    std::snprintf(line, sizeof line, "%s %.17g\n", what.c_str(), sg4::Engine::get_clock());
    seen += line;
  };
  possim::sim::Delays delays(host, "delays", [&](bool begin) { note(begin ? "turn" : "end"); });
  sg4::Actor::create("driver", host, [&] {
    delays.after(1.0, [&] { note("x"); });
    delays.after(0.25, [&] {
      note("b");
      delays.after(0, [&] { note("d"); });  // due now: the same turn
    });
    delays.after(0.25, [&] { note("c"); });  // due with b, queued after it
    sg4::this_actor::sleep_for(0.5);
    delays.after(0.25, [&] { note("y"); });  // sooner than x, queued while the actor waits for x
    for (const double bad : {-1e-12, std::nan("")}) {
      try {
        delays.after(bad, [&] { note("never"); });
      } catch (const std::logic_error&) {
        note("refused");
      }
    }
    sg4::this_actor::sleep_for(1.0);  // stop() wakes the actor too: only after x
    delays.stop();
  });
  engine.run();
  note("end of run");
  return seen;
}

std::string in_child(std::string (*body)()) {
  int fd[2];
  REQUIRE(::pipe(fd) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(fd[0]);
    const std::string out = body();
    const ssize_t n = ::write(fd[1], out.data(), out.size());
    ::_exit(n == ssize_t(out.size()) ? 0 : 1);
  }
  ::close(fd[1]);
  std::string got;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd[0], buf, sizeof buf)) > 0;) got.append(buf, std::size_t(n));
  ::close(fd[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  return got;
}

}  // namespace

TEST_CASE("delays: calls due together run in one turn in queued order and a sooner call wakes "
          "the waiting actor", "[simgrid][delays]") {
  CHECK(in_child(run_delays) ==
        "turn 0.25\nb 0.25\nc 0.25\nd 0.25\nend 0.25\n"
        "refused 0.5\nrefused 0.5\n"
        "turn 0.75\ny 0.75\nend 0.75\n"
        "turn 1\nx 1\nend 1\n"
        "end of run 1.5\n");
}
