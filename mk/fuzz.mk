# mk/fuzz.mk: the libFuzzer targets, one per fuzz/fuzz_<name>.c, each
# defining LLVMFuzzerTestOneInput() over one parser of untrusted bytes.
#
# build-fuzz/fuzz_<name>: the target, linked by clang with libFuzzer
# against the project's libraries compiled again in build-fuzz/ with
# -fsanitize=fuzzer-no-link,address,undefined. Built only where clang has
# its fuzzer runtime (libclang-rt-14-dev on Debian 12); elsewhere the fuzz
# test says why it is skipped.
# $(BUILD)/fuzz/replay_<name>: the same entry point with fuzz/replay.c as
# its main, in the ordinary build, so that any compiler replays the inputs
# of testdata/bad/<name>/ in make check.
# $(BUILD)/fuzz/trace_raw, $(BUILD)/fuzz/dwarf_raw: the tools that turn a
# trace or an object file into the input of fuzz_trace's chunk layer or
# of fuzz_dwinfo, for the seeds (fuzz/seeds.sh).
#
# make fuzz FUZZ_SECONDS=N runs every target for N seconds (fuzz/run.sh).

FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_BUILD := build-fuzz
FUZZ_SRC := $(wildcard fuzz/fuzz_*.c)
FUZZ_NAMES := $(patsubst fuzz/fuzz_%.c,%,$(FUZZ_SRC))
FUZZ_RUNTIME := $(shell $(FUZZ_CC) -print-file-name=libclang_rt.fuzzer-$(shell uname -m).a 2>/dev/null)
FUZZ_OK := $(if $(filter /%,$(FUZZ_RUNTIME)),$(wildcard $(FUZZ_RUNTIME)))
FUZZ_SAN := address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS = $(filter-out -fsanitize=% -fno-sanitize-recover=%,$(REQ_CFLAGS)) $(PKG_CFLAGS) \
	      $(REPORT_CFLAGS) -O1 -g -fsanitize=fuzzer-no-link,$(FUZZ_SAN)
fuzzobj = $(patsubst %.c,$(FUZZ_BUILD)/%.o,$(1))
FUZZ_LIBS := $(FUZZ_BUILD)/librecord.a $(FUZZ_BUILD)/libreport.a $(FUZZ_BUILD)/libformat.a \
	     $(FUZZ_BUILD)/libcommon.a
FUZZERS := $(patsubst %,$(FUZZ_BUILD)/fuzz_%,$(FUZZ_NAMES))
REPLAYS := $(patsubst %,$(BUILD)/fuzz/replay_%,$(FUZZ_NAMES))

# The configuration only has to exist (order-only): build/ and build-san/
# each have one, and a sanitized run must not rebuild build-fuzz/.
$(FUZZ_BUILD)/%.o: %.c | $(CONFIG)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FUZZCC  $<")
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<

$(FUZZ_BUILD)/libcommon.a: $(call fuzzobj,$(COMMON_SRC))
$(FUZZ_BUILD)/libformat.a: $(call fuzzobj,$(FORMAT_SRC))
$(FUZZ_BUILD)/librecord.a: $(call fuzzobj,$(RECORD_SRC))
$(FUZZ_BUILD)/libreport.a: $(call fuzzobj,$(REPORT_SRC))

$(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/fuzz/fuzz_%.o $(FUZZ_LIBS)
	@$(if $(Q),echo "  FUZZLD  $@")
	$(Q)$(FUZZ_CC) -fsanitize=fuzzer,$(FUZZ_SAN) -o $@ $^ $(REPORT_LIBS) $(PKG_LIBS)

$(BUILD)/fuzz/replay_%: $(BUILD)/fuzz/replay.o $(BUILD)/fuzz/fuzz_%.o $(LIBRECORD) $(LIBREPORT) \
			$(LIBFORMAT) $(LIBCOMMON)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(REPORT_LIBS) $(PKG_LIBS)

$(BUILD)/fuzz/trace_raw: $(BUILD)/fuzz/trace_raw.o $(LIBFORMAT) $(LIBCOMMON)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS)

$(BUILD)/fuzz/dwarf_raw: $(BUILD)/fuzz/dwarf_raw.o $(LIBREPORT) $(LIBFORMAT) $(LIBCOMMON)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(REPORT_LIBS) $(PKG_LIBS)

FIXTURES += $(REPLAYS) $(BUILD)/fuzz/trace_raw $(BUILD)/fuzz/dwarf_raw $(if $(FUZZ_OK),$(FUZZERS))

fuzz: fixtures
ifeq ($(FUZZ_OK),)
	@echo "fuzz: clang's libFuzzer runtime is missing (Debian: libclang-rt-14-dev)" >&2; exit 1
else
	$(Q)BUILD=$(BUILD) FUZZ_BUILD=$(FUZZ_BUILD) sh fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_NAMES)
endif

.PHONY: fuzz

-include $(shell find $(FUZZ_BUILD) -name '*.d' 2>/dev/null)
clean: clean-fuzz
clean-fuzz:
	rm -rf $(FUZZ_BUILD)

.PHONY: clean-fuzz
