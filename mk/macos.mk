# mk/macos.mk: the macOS build, the cross-build of it here, and the test of
# the macOS target on Linux.
#
# On macOS, prof-record is built from record/*.c without the Linux files:
# mach_darwin.c (the Mach calls) under target_darwin.c and
# images_darwin.c. The libraries come from Homebrew through pkg-config.
# prof-record needs the debugger entitlement to call task_for_pid:
# `make sign` signs it ad hoc with mk/prof-record.entitlements.
#
# On Linux, `make macos` cross-builds both programs for arm64 and x86_64
# macOS into build/macos/ARCH/, with warnings as errors: Zig as the C
# cross-compiler (from npm), and zstd, zlib, libdeflate, libiberty,
# xxHash and Capstone built for each target from their Debian source
# packages, all by mk/macos-toolchain.sh under build/macos/tools/ and
# kept there, so a second run only compiles what changed. `make check`
# runs it (the sanitized suite skips it, as the plain one has built the
# same).
#
# Everywhere, tests/unit/test_darwin.c supplies its own Mach layer and is
# linked with the portable macOS objects instead of Linux's target, image
# table and perf map reader (which librecord holds on Linux, and which
# then stay out).

DARWIN_OBJ := $(call obj,record/target_darwin.c record/images_darwin.c record/jit_darwin.c)

$(BUILD)/tests/test_darwin: $(BUILD)/tests/unit/test_darwin.o $(DARWIN_OBJ) $(LIBRECORD) $(LIBREPORT) $(LIBFORMAT) $(LIBCOMMON)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(TEST_LIBS) $(REPORT_LIBS) $(PKG_LIBS)

ifeq ($(UNAME),Darwin)
# libiberty comes with Homebrew's binutils, which is keg-only, so its
# prefix is asked for.
BREW_BINUTILS := $(shell brew --prefix binutils 2>/dev/null)
REPORT_CFLAGS_CMD = echo $$(pkg-config --cflags libdeflate capstone) -I$(BREW_BINUTILS)/include
REPORT_LIBS_CMD = echo $$(pkg-config --libs libdeflate capstone) -L$(BREW_BINUTILS)/lib -liberty
# A Mach-O link of the programs needs nothing but those libraries: the
# Makefile passes ld64 no GNU ld option (only the ELF fixtures have one).

ENTITLEMENTS := mk/prof-record.entitlements

sign: $(BIN)prof-record
	codesign -s - --entitlements $(ENTITLEMENTS) -f $(BIN)prof-record

.PHONY: sign
endif

# --- the cross-build ------------------------------------------------------

MACOS_DIR := build/macos
MACOS_TOOLS := $(MACOS_DIR)/tools
MACOS_ARCHS := arm64 x86_64
MACOS_ZIG := $(MACOS_TOOLS)/zig/bin/cc-arm64
MACOS_SRC := $(MACOS_TOOLS)/src/versions
MACOS_LIBS := zlib zstd libdeflate libiberty xxhash capstone
MACOS_PROGS := $(foreach a,$(MACOS_ARCHS),$(MACOS_DIR)/$(a)/prof-record $(MACOS_DIR)/$(a)/prof-report)
# Zig's cache and the libraries' own builds write .d files that are not
# ours.
FOREIGN_DIRS += $(MACOS_TOOLS)

# Why the cross-build cannot run here, if it cannot: the Zig package is
# the x86_64 Linux compiler.
MACOS_UNABLE := $(if $(filter Darwin,$(UNAME)),on macOS the programs are built natively (make),\
	$(if $(filter x86_64,$(shell uname -m)),,the cross-compiler from npm is Zig for x86_64 Linux))

MACOS_RECORD_SRC := $(filter-out $(LINUX_SRC_PATTERNS),$(wildcard record/*.c))
MACOS_REPORT_SRC := report/main.c $(wildcard report/*/*.c)
# The Makefile's required flags (its sanitizers aside: make macos refuses
# SANITIZE), every warning of -Wall -Wextra an error, unused parameters
# too, and the libraries of each target: Capstone's headers in a
# directory of their own, as its pkg-config file names it. xxHash is used
# header-only.
MACOS_CFLAGS = $(filter-out -Wno-unused-parameter,$(REQ_CFLAGS)) -Werror -O2 -g -DXXH_INLINE_ALL \
	-I$(MACOS_DIR)/$(1)/deps/include -I$(MACOS_DIR)/$(1)/deps/include/capstone

macos_obj = $(patsubst %.c,$(MACOS_DIR)/$(1)/obj/%.o,$(2))

$(MACOS_ZIG):
	$(Q)sh mk/macos-toolchain.sh zig $(MACOS_TOOLS)/zig

# Fetched again when the script changes, which names the libraries.
$(MACOS_SRC): mk/macos-toolchain.sh
	$(Q)sh mk/macos-toolchain.sh sources $(MACOS_TOOLS)/src

# One target: its libraries, its objects and the two programs. The library builds run sub-makes, so the
# recipe shares make's job slots (+).
define macos_target
$(MACOS_DIR)/$(1)/deps/%.stamp: $(MACOS_ZIG) $(MACOS_SRC) mk/macos-toolchain.sh
	@echo "  BUILD   $$* for macOS $(1)"
	+$(Q)sh mk/macos-toolchain.sh lib $$* $(1) $(MACOS_TOOLS) $(MACOS_DIR)/$(1)/deps
	$(Q)touch $$@

$(MACOS_DIR)/$(1)/obj/%.o: %.c | $(patsubst %,$(MACOS_DIR)/$(1)/deps/%.stamp,$(MACOS_LIBS))
	@mkdir -p $$(dir $$@)
	@$$(if $$(Q),echo "  CC      $$< (macOS $(1))")
	$(Q)$(MACOS_TOOLS)/zig/bin/cc-$(1) $$(call MACOS_CFLAGS,$(1)) -c -o $$@ $$<

$(MACOS_DIR)/$(1)/prof-record: $(call macos_obj,$(1),$(MACOS_RECORD_SRC) $(FORMAT_SRC) $(COMMON_SRC)) \
		$(MACOS_DIR)/$(1)/deps/zstd.stamp
	@$$(if $$(Q),echo "  LINK    $$@")
	$(Q)$(MACOS_TOOLS)/zig/bin/cc-$(1) -o $$@ $$(filter %.o,$$^) $(MACOS_DIR)/$(1)/deps/lib/libzstd.a -lm

$(MACOS_DIR)/$(1)/prof-report: $(call macos_obj,$(1),$(MACOS_REPORT_SRC) $(FORMAT_SRC) $(COMMON_SRC)) \
		$(patsubst %,$(MACOS_DIR)/$(1)/deps/%.stamp,$(MACOS_LIBS))
	@$$(if $$(Q),echo "  LINK    $$@")
	$(Q)$(MACOS_TOOLS)/zig/bin/cc-$(1) -o $$@ $$(filter %.o,$$^) \
		$$(patsubst %,$(MACOS_DIR)/$(1)/deps/lib/%.a,libdeflate libcapstone libiberty libzstd libz) -lm
endef
$(foreach a,$(MACOS_ARCHS),$(eval $(call macos_target,$(a))))

# What the toolchain script needs and, for a user who is not root, cannot
# install: make check then skips the cross-build (make macos says how).
MACOS_MISSING = $(if $(filter 0,$(shell id -u)),,$(foreach c,npm dpkg-source,$(if $(shell command -v $(c)),,$(c))))

ifneq ($(strip $(MACOS_UNABLE)),)
macos:
	@echo "make macos: $(strip $(MACOS_UNABLE))" >&2; exit 1
macos-check:
	@echo "  SKIP    make macos: $(strip $(MACOS_UNABLE))"
else ifneq ($(SANITIZE),)
macos:
	@echo "make macos: the cross-build is not sanitized; run it without SANITIZE" >&2; exit 1
macos-check:
	@echo "  SKIP    make macos: the sanitized suite does not repeat the cross-build (the plain suite runs it)"
else
macos: $(MACOS_PROGS)
macos-check:
	+$(Q)if [ -n "$(strip $(MACOS_MISSING))" ]; then \
		echo "  SKIP    make macos: no $(strip $(MACOS_MISSING)) (sudo apt-get install npm dpkg-dev, or make check as root)"; \
	else $(MAKE) --no-print-directory macos; fi
endif

check: macos-check

.PHONY: macos macos-check
