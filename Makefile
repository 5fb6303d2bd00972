# prof: the one build. See README.md.
#
#   make              build prof-record and prof-report
#   make check        run every test (unit, end-to-end, man page lint)
#   make demo         record the bundled demo workload and report on it
#   make bench        prof against perf (mk/bench.mk)
#   make deps         install everything the tests and the benchmark use
#   make install      install under $(DESTDIR)$(PREFIX)
#   make clean
#
# CFLAGS is yours; the flags prof needs are added separately. V=1 shows the
# commands, SANITIZE=address,undefined builds with sanitizers, DEVELOPER=1
# turns warnings into errors. Builds run as many jobs as there are CPUs
# (-jN overrides it).
#
# The set-up is in sets (mk/setup.sh), each run once through a stamp:
# `make` only checks for a C compiler and the build's libraries, and stops
# with the packages to install if one is missing; as root, demo installs
# those, check the test tools too, bench the benchmark's, deps all of
# them. A user who is not root gets the command to run, and the tests
# whose tools are missing are skipped, each with its reason.

# Every build runs as many jobs as the machine has CPUs (getconf, which
# Linux and macOS both have; nproc is GNU's alone); -jN on the command
# line overrides it (-j1: one at a time). A sub-make shares the top one's
# jobs.
ifeq ($(MAKELEVEL),0)
MAKEFLAGS += -j$(shell getconf _NPROCESSORS_ONLN 2> /dev/null || echo 1)
endif

CC ?= cc
CFLAGS ?= -O2 -g
PREFIX ?= /usr/local
# A sanitized build keeps its objects and programs apart from the plain one.
BUILD := build$(if $(SANITIZE),-san)
BIN := $(if $(SANITIZE),$(BUILD)/)
UNAME := $(shell uname -s)

ifeq ($(V),1)
Q :=
else
Q := @
endif

# The programs' sources are clean of unused parameters too (the macOS
# cross-build holds them to it, mk/macos.mk); the unit tests' and fuzz
# targets' callbacks often ignore one.
REQ_CFLAGS := -std=gnu11 -Wall -Wextra -Wno-unused-parameter -I. -Ibuild/gen -MMD -MP -D_GNU_SOURCE
ifeq ($(DEVELOPER),1)
REQ_CFLAGS += -Werror
endif
ifneq ($(SANITIZE),)
REQ_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
REQ_LDFLAGS += -fsanitize=$(SANITIZE)
endif

.DEFAULT_GOAL := all
CONFIG := $(BUILD)/config.mk
CONFIG_TEST := $(BUILD)/config-test.mk

# Not optional: a set-up that fails stops make at once, and says why once.
# make remakes the makefiles it read last-read first, and reads them all
# again only if one it remade for itself changed: config.mk remade first
# as config-test.mk's prerequisite would not count (GNU make 4.3), and a
# build after a set-up change would link with the old flags.
ifeq ($(filter clean,$(MAKECMDGOALS)),)
-include $(CONFIG_TEST)
include $(CONFIG)
endif

# Which goals install (as root) what their sets lack, rather than only
# check for it.
SETUP_INSTALL := $(filter demo check bench deps fuzz,$(MAKECMDGOALS))
SETUP_TEST := $(filter check deps fuzz,$(MAKECMDGOALS))
# setup SET: runs mk/setup.sh SET unless a stamp says the set is complete,
# and leaves the stamp once it is. A set that stays incomplete (exit 3:
# not root, tools missing, their tests to be skipped) does not stop make.
setup = mkdir -p $(BUILD) && { [ -f $(BUILD)/setup-$(1).stamp ] || \
	{ sh mk/setup.sh $(1) $(if $(SETUP_INSTALL),install) && touch $(BUILD)/setup-$(1).stamp; } || \
	[ $$? = 3 ]; }

$(BUILD)/setup-build.stamp: mk/setup.sh
	$(Q)rm -f $@ && $(call setup,build)

deps: $(BUILD)/setup-build.stamp
	$(Q)$(call setup,test) && $(call setup,bench)

# The libraries only prof-report links: libdeflate (compressed debug
# sections), Capstone (annotate --asm) and libiberty (demangling), in
# Debian's places (mk/macos.mk has Homebrew's).
REPORT_CFLAGS_CMD = echo $$(pkg-config --cflags libdeflate capstone)
REPORT_LIBS_CMD = echo $$(pkg-config --libs libdeflate capstone) -liberty

# The build's flags; rewritten only when they change, so that a new set-up
# rebuilds nothing it need not.
$(CONFIG): mk/setup.sh $(BUILD)/setup-build.stamp
	$(Q){ echo "PKG_CFLAGS := $$(pkg-config --cflags libzstd libxxhash zlib)"; \
	      echo "PKG_LIBS := $$(pkg-config --libs libzstd libxxhash zlib) -lm"; \
	      echo "REPORT_CFLAGS := $$($(REPORT_CFLAGS_CMD))"; \
	      echo "REPORT_LIBS := $$($(REPORT_LIBS_CMD))"; } > $@.tmp
	$(Q)cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@

# Criterion, for the unit tests: without it they are not built, and the
# check says why they were skipped. Looked for at every run (after the
# build's set-up, never beside it, and after the test set is installed,
# for the goals that install it), and rewritten only when the answer
# changes.
$(CONFIG_TEST): FORCE | $(CONFIG)
	$(Q)$(if $(SETUP_TEST),$(call setup,test) &&) mkdir -p $(dir $@) && \
	if pkg-config --exists criterion 2> /dev/null; then \
		echo "TEST_CFLAGS := $$(pkg-config --cflags criterion)"; \
		echo "TEST_LIBS := $$(pkg-config --libs criterion)"; \
	else \
		echo "UNIT_SKIPPED := Criterion is not installed (Debian: libcriterion-dev)"; \
	fi > $@.tmp && { cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@; }

ALL_CFLAGS = $(REQ_CFLAGS) $(PKG_CFLAGS) $(REPORT_CFLAGS) $(CFLAGS)
ALL_LDFLAGS = $(REQ_LDFLAGS) $(LDFLAGS)

COMMON_SRC := $(wildcard common/*.c)
FORMAT_SRC := $(wildcard format/*.c)
RECORD_SRC := $(filter-out record/main.c,$(wildcard record/*.c))
REPORT_SRC := $(wildcard report/*/*.c)
# Platform files, by their names: _darwin.c are macOS's (mk/macos.mk), the
# others Linux's.
DARWIN_SRC_PATTERNS := %_darwin.c
LINUX_SRC_PATTERNS := %_linux.c %_linux_ptrace.c
ifneq ($(UNAME),Darwin)
RECORD_SRC := $(filter-out $(DARWIN_SRC_PATTERNS),$(RECORD_SRC))
else
RECORD_SRC := $(filter-out $(LINUX_SRC_PATTERNS),$(RECORD_SRC))
endif
UNIT_SRC := $(wildcard tests/unit/test_*.c)
FIXTURE_SRC := $(wildcard testdata/*.c)

obj = $(patsubst %.c,$(BUILD)/%.o,$(1))

LIBCOMMON := $(BUILD)/libcommon.a
LIBFORMAT := $(BUILD)/libformat.a
LIBRECORD := $(BUILD)/librecord.a
LIBREPORT := $(BUILD)/libreport.a
PROGS := $(BIN)prof-record $(BIN)prof-report
UNIT := $(if $(UNIT_SKIPPED),,$(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC)))

all: $(PROGS)

$(BUILD)/%.o: %.c $(CONFIG)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/tests/unit/%.o: tests/unit/%.c $(CONFIG) $(CONFIG_TEST)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) $(TEST_CFLAGS) -c -o $@ $<

%.a:
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

$(LIBCOMMON): $(call obj,$(COMMON_SRC))
$(LIBFORMAT): $(call obj,$(FORMAT_SRC))
$(LIBRECORD): $(call obj,$(RECORD_SRC))
$(LIBREPORT): $(call obj,$(REPORT_SRC))

$(BIN)prof-record: $(BUILD)/record/main.o $(LIBRECORD) $(LIBFORMAT) $(LIBCOMMON)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS)

$(BIN)prof-report: $(BUILD)/report/main.o $(LIBREPORT) $(LIBFORMAT) $(LIBCOMMON)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(REPORT_LIBS) $(PKG_LIBS)

# One Criterion binary per tests/unit/test_<module>.c.
$(BUILD)/tests/test_%: $(BUILD)/tests/unit/test_%.o $(LIBRECORD) $(LIBREPORT) $(LIBFORMAT) $(LIBCOMMON)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(TEST_LIBS) $(REPORT_LIBS) $(PKG_LIBS)

# Fixture programs: compiled at test time with frame pointers, the way a
# profiled build would be.
FIXTURE_CFLAGS := -O2 -g -fno-omit-frame-pointer -pthread
FIXTURES := $(patsubst testdata/%.c,$(BUILD)/testdata/%,$(filter-out testdata/lib%.c,$(FIXTURE_SRC))) \
	    $(patsubst testdata/lib%.c,$(BUILD)/testdata/lib%.so,$(filter testdata/lib%.c,$(FIXTURE_SRC)))

$(BUILD)/testdata/lib%.so: testdata/lib%.c testdata/fixture.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(FIXTURE_CFLAGS) -fPIC -shared -o $@ $<

$(BUILD)/testdata/libplug_%.so: testdata/plugin.h

$(BUILD)/testdata/%: testdata/%.c testdata/fixture.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(FIXTURE_CFLAGS) -Wl,--build-id -o $@ $< -ldl -lm

# The syscall fixture is also a benchmark workload, and prints as they do.
$(BUILD)/testdata/syscall: FIXTURE_CFLAGS += -I.
$(BUILD)/testdata/syscall: bench/workloads/workload.h

# More fixture kinds (Mach-O, Rust, split debug files) each have a file in
# mk/ that adds its outputs to FIXTURES.
include $(sort $(wildcard mk/*.mk))

fixtures: $(FIXTURES)

MANPAGES := $(wildcard man/*.[0-9])

unit: $(UNIT)

check: $(PROGS) $(UNIT) fixtures
	$(Q)BUILD=$(BUILD) BIN=$(BIN) UNIT_SKIPPED="$(UNIT_SKIPPED)" sh tests/run.sh

demo: $(PROGS) $(BUILD)/testdata/demo
	$(Q)sh mk/demo.sh $(BUILD)/testdata/demo

COMPLETIONS := completion/prof-record completion/prof-report
COMPLETIONDIR := $(PREFIX)/share/bash-completion/completions
SCHEMAS := $(wildcard schema/*.schema.json)
SCHEMADIR := $(PREFIX)/share/prof/schema

install: $(PROGS)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/man/man5 $(DESTDIR)$(COMPLETIONDIR) $(DESTDIR)$(SCHEMADIR)
	install -m 755 $(PROGS) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(filter %.1,$(MANPAGES)) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 $(filter %.5,$(MANPAGES)) $(DESTDIR)$(PREFIX)/share/man/man5/
	install -m 644 $(COMPLETIONS) $(DESTDIR)$(COMPLETIONDIR)/
	install -m 644 $(SCHEMAS) $(DESTDIR)$(SCHEMADIR)/

clean:
	rm -rf build build-san prof-record prof-report demo.trace demo.trace.syms demo.folded demo.svg demo.html

FORCE:
.PHONY: all check demo deps install clean fixtures unit FORCE
.DELETE_ON_ERROR:

# Header dependencies: every .d file under the build directory but those
# in the trees of other projects' builds (FOREIGN_DIRS, from mk/ files).
-include $(shell find $(BUILD) $(foreach d,$(FOREIGN_DIRS),-path $(d) -prune -o) -name '*.d' -type f -print 2>/dev/null)
.SECONDARY:
