// The cdclake executable.
#include "cli/cli.h"

int main(int argc, char** argv) {
  return cdclake::cli::Main(argc, argv);
}
