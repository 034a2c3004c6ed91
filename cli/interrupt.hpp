// SIGINT and SIGTERM while a command runs: a watcher thread kills every forked
// simulation (model/child_processes.hpp), removes the folders being written, and exits
// 130 (SIGINT) or 143 (SIGTERM), as a shell reports a process ended by that signal.
#pragma once
#include <functional>
#include <string>

namespace possim::cli {

// Blocks SIGINT and SIGTERM and starts the watcher that waits for them. Call before any
// other thread starts (threads inherit the blocked set).
void handle_interrupts();

// A folder (or file) removed if an interrupt comes before forget_on_interrupt(path).
void remove_on_interrupt(const std::string& path);
void forget_on_interrupt(const std::string& path);

// Runs f with the interrupt held off: an interrupt that comes meanwhile ends the process
// only once f has returned, so that what f writes (a line appended to a file) is whole.
// For short writes only: the interrupt waits for f.
void without_interrupt(const std::function<void()>& f);

// When an interrupt is being handled, never returns (the watcher ends the process);
// else returns. For code that failed because the interrupt killed its child.
void wait_if_interrupted();

}  // namespace possim::cli
