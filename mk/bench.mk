# mk/bench.mk: `make bench`, the benchmark harness (bench/bench.sh) and the
# workloads it times (bench/workloads/*.c), built like the fixtures, with
# frame pointers. BENCH_SMOKE=1 runs every step briefly (what
# tests/e2e/test_bench_smoke.sh does); BENCH_REPS, BENCH_SECONDS and the
# other settings at the top of bench/bench.sh change the run.

BENCH_SRC := $(wildcard bench/workloads/*.c)
BENCH_PROGS := $(patsubst bench/workloads/%.c,$(BUILD)/bench/%,$(BENCH_SRC))

$(BUILD)/bench/%: bench/workloads/%.c bench/workloads/workload.h testdata/fixture.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(FIXTURE_CFLAGS) -D_GNU_SOURCE -I. -Wl,--build-id -o $@ $<

$(BUILD)/bench/syscall: testdata/syscall.c
$(BUILD)/bench/switch50: bench/workloads/server50.c

FIXTURES += $(BENCH_PROGS)

# The report steps read the Rust fixture (when rustc is here), libc
# through the split fixture, and bench/symbolize.sh's synthetic traces.
BENCH_FIXTURES := $(BUILD)/testdata/split $(BUILD)/tests/tools/synth_trace \
	$(if $(shell command -v rustc 2>/dev/null),$(BUILD)/testdata/rust/shapes)

bench: $(PROGS) $(BENCH_PROGS) $(BENCH_FIXTURES)
	$(Q)$(call setup,bench)
	$(Q)BUILD=$(BUILD) BIN=$(BIN) bash bench/bench.sh

.PHONY: bench
