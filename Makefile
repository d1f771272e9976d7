# The two commands of the README: `make run` (install, build, run the quick start) and
# `make test` (install, build, check formatting, run every test, then the parser tests again
# under AddressSanitizer and UndefinedBehaviorSanitizer).
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?= -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
# Rebuilds reuse earlier compiles through ccache where it is installed (it is optional).
CCACHE := $(shell command -v ccache 2>/dev/null)
ifneq ($(CCACHE),)
CMAKE_FLAGS += -DCMAKE_CXX_COMPILER_LAUNCHER=$(CCACHE)
# Paths relative to the checkout, so a second clone (CI's clean clone) reuses the first one's
# compiles. Files compiled with an absolute path in a definition (the tests' data folders) still
# miss, as they must; debug information of a reused object names the first clone's files.
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := true
endif
# Test binaries that read untrusted bytes; they run again under the sanitizers.
SANITIZED_TESTS ?= base_test io_test parquet_test json_test delta_test change_test sql_test sources_test

.PHONY: all setup configure build run install package test unit-test sanitize-test format format-check tidy bench bench-full bench-micro clean

all: build

setup:
	@scripts/setup

configure: setup
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# The quick start needs the program only: its tests and benchmarks are built by `make test`.
run: configure
	@cmake --build $(BUILD) -j $(JOBS) --target cdclake
	@scripts/quickstart

# `make install PREFIX=DIR` (default /usr/local; DESTDIR is honoured) and `make package` (a
# Debian package, build/cdclake_<version>_<arch>.deb) build the program alone, as `make run`
# does; the rules are in cmake/install.cmake. Both install the binary stripped of its debug
# information (13 MB instead of over 200).
PREFIX ?= /usr/local
install: configure
	@cmake --build $(BUILD) -j $(JOBS) --target cdclake cdclake_python
	@cmake --install $(BUILD) --prefix $(PREFIX) --strip

package: configure
	@cmake --build $(BUILD) -j $(JOBS) --target cdclake cdclake_python
	@cd $(BUILD) && cpack -G DEB

test: build format-check unit-test sanitize-test

unit-test:
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --timeout 1200

sanitize-test: setup
	@cmake -S . -B $(ASAN_BUILD) $(CMAKE_FLAGS) -DCDCLAKE_SANITIZE=ON -DCDCLAKE_BUILD_BENCH=OFF >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS) --target $(SANITIZED_TESTS)
	@cd $(ASAN_BUILD) && ctest --output-on-failure -j $(JOBS) --timeout 1200 -L 'base|io|parquet|json|delta|change|sql|sources'

format:
	@git ls-files '*.h' '*.cc' '*.cpp' | xargs clang-format -i

format-check:
	@scripts/check-format

# clang-tidy on the files changed since REV (default: the last commit).
REV ?= HEAD~1
tidy: build
	@git diff --name-only $(REV) -- '*.cc' | xargs -r clang-tidy -p $(BUILD) --quiet --extra-arg=-Wno-unknown-warning-option

# The side-by-side apply benchmark (DuckDB, PostgreSQL), writing docs/benchmarks.md and .svg:
# `bench` is the short run (1M and 2M keys), `bench-full` the long one (1M, 10M, 50M keys); the
# environment variables at the top of scripts/bench override sizes and batches.
# `bench-micro` runs the micro-benchmarks of cdclake's parts (scripts/bench-micro).
bench: build
	@CDCLAKE_BENCH_BUILD=$(BUILD) scripts/bench short

bench-full: build
	@CDCLAKE_BENCH_BUILD=$(BUILD) scripts/bench full

bench-micro: build
	@CDCLAKE_BENCH_BUILD=$(BUILD) scripts/bench-micro

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
