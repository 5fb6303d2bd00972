# mk/bench.mk: `make bench`, the benchmark harness (bench/bench.sh) and the
# workloads it times (bench/workloads/*.c), built like the fixtures, with
# frame pointers. BENCH_SMOKE=1 runs every step briefly (what
# tests/e2e/test_bench_smoke.sh does); BENCH_REPS, BENCH_SECONDS and the
# other settings at the top of bench/bench.sh change the run.

BENCH_SRC := $(wildcard bench/workloads/*.c)
BENCH_WORKLOADS := $(patsubst bench/workloads/%.c,$(BUILD)/bench/%,$(BENCH_SRC))

$(BUILD)/bench/%: bench/workloads/%.c bench/workloads/workload.h testdata/fixture.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(FIXTURE_CFLAGS) -D_GNU_SOURCE -I. -Wl,--build-id -o $@ $<

FIXTURES += $(BENCH_WORKLOADS)

bench: $(PROGS) $(BENCH_WORKLOADS)
	$(Q)BUILD=$(BUILD) BIN=$(BIN) bash bench/bench.sh

.PHONY: bench
