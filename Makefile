# The two commands: `make demo` runs the main job, `make test` runs every test. The build itself is CMake.
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: all demo test test-sanitize format format-check clean
# A configure that fails leaves no CMakeCache.txt behind, so the next make configures again.
.DELETE_ON_ERROR:

all: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

# Generate a story with stories260K on the virtual NPU, HTP0 (the model is found or downloaded by scripts/demo.sh).
demo: all
	scripts/demo.sh $(BUILD)

# Every test: unit tests, op tests, end-to-end runs against llama.cpp's outputs. The tests (and cmocka, which
# only they need) are switched on here, not by default, and ctest fails if it finds none.
# The oracle's llama.cpp source gives ggml's headers to libggml-vnpu.so (tests/ggml): when upstream.sh cannot provide
# it the plugin is not built, and its test fails under CI=true (skips otherwise), as every oracle test does.
test: $(BUILD)/CMakeCache.txt
	src=$$(../shared/oracle/upstream.sh --srcdir 2>/dev/null); \
	cmake -S . -B $(BUILD) -DVNPU_BUILD_TESTS=ON $${src:+-DVNPU_GGML_SRC=$$src} >/dev/null
	cmake --build $(BUILD) -j $(JOBS)
	cd $(BUILD) && ctest --output-on-failure --no-tests=error -j $(JOBS)

# The unit tests under AddressSanitizer and UndefinedBehaviorSanitizer: only their programs and what they load
# (vnpu-unit-tests, tests/CMakeLists.txt) are built, not the tools, the NPU libraries of other targets and the
# end-to-end tests this build would never run.
test-sanitize:
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DVNPU_SANITIZE=ON -DVNPU_BUILD_TESTS=ON
	cmake --build build-asan -j $(JOBS) --target vnpu-unit-tests
	cd build-asan && ctest -L unit --output-on-failure --no-tests=error -j $(JOBS)

format:
	git ls-files '*.c' '*.h' | xargs clang-format -i

format-check:
	git ls-files '*.c' '*.h' | xargs clang-format --dry-run --Werror

clean:
	rm -rf $(BUILD) build-asan
