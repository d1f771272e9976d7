// The cdclake command line: subcommands and their dispatch.
#pragma once

namespace cdclake::cli {

/// Runs the command line; returns the process exit code (0 ok, 1 failed, 2 bad usage).
int Main(int argc, char** argv);

}  // namespace cdclake::cli
