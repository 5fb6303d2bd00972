# mk/macho.mk: Mach-O and dSYM fixtures, cross-built here from
# testdata/macho/*.c, and the synthetic trace writer tests use with them.
#
# There is no macOS SDK here, so the fixtures use no libc and are never run:
# tests read their headers, symbols and DWARF. What works with clang and
# ld64.lld 14:
#   - compile with clang -target {arm64,x86_64}-apple-macos12 -g -O1 -c;
#   - link with ld64.lld -arch ARCH -platform_version macos 12.0 12.0, which
#     it requires, and -e _main, since there is no crt1.o;
#   - a program that calls into a dylib gets lazy bindings, which need
#     dyld_stub_binder from libSystem; -undefined dynamic_lookup lets that
#     (and only that) stay undefined;
#   - dsymutil writes X.dSYM from the program and the .o files its debug map
#     names (so the objects are kept); for a universal file it runs "lipo",
#     which is found through a link to llvm-lipo put first on its PATH.
#
# Outputs, in $(BUILD)/testdata/macho/:
#   app-arm64      arm64 program, linked against libwork.dylib
#   libwork.dylib  arm64 dylib
#   app-x86_64     x86_64 program, with libwork.c linked in
#   app-universal  app-arm64 and app-x86_64 in one universal file
#   X.dSYM         for each of the above
#   wrong/app-arm64.dSYM  app-arm64.dSYM with a different LC_UUID
#
# A missing tool skips the fixtures that need it, with a message; the tests
# that use them then skip too.

MACHO_DIR := $(BUILD)/testdata/macho
MACHO_HDR := $(wildcard testdata/macho/*.h)
MACHO_LLVM_BIN := $(shell llvm-config --bindir 2>/dev/null)
# The LLVM tool directory first (ld64.lld and llvm-lipo are often only
# there), then PATH.
macho_tool = $(or $(wildcard $(addsuffix /$(1),$(MACHO_LLVM_BIN))),$(shell command -v $(1) 2>/dev/null))
MACHO_CLANG := $(call macho_tool,clang)
MACHO_LD := $(call macho_tool,ld64.lld)
MACHO_LIPO := $(call macho_tool,llvm-lipo)
MACHO_DSYMUTIL := $(call macho_tool,dsymutil)

MACHO_CFLAGS := -g -O1 -fno-omit-frame-pointer -ffreestanding -Wall -Wextra
MACHO_LDFLAGS := -platform_version macos 12.0 12.0

macho_dsym = $(MACHO_DIR)/$(1).dSYM/Contents/Resources/DWARF/$(1)

MACHO_SKIP :=
ifeq ($(MACHO_CLANG),)
MACHO_SKIP += no clang;
endif
ifeq ($(MACHO_LD),)
MACHO_SKIP += no ld64.lld;
endif

ifneq ($(strip $(MACHO_SKIP)),)
FIXTURES += macho-fixtures-skipped
macho-fixtures-skipped:
	@echo "  SKIP    Mach-O fixtures: $(MACHO_SKIP) tests that need them skip"
.PHONY: macho-fixtures-skipped
else

MACHO_PROGS := app-arm64 libwork.dylib app-x86_64
FIXTURES += $(addprefix $(MACHO_DIR)/,$(MACHO_PROGS))
ifneq ($(MACHO_LIPO),)
MACHO_PROGS += app-universal
FIXTURES += $(MACHO_DIR)/app-universal
else
FIXTURES += macho-universal-skipped
endif
ifneq ($(MACHO_DSYMUTIL),)
FIXTURES += $(foreach p,$(MACHO_PROGS),$(call macho_dsym,$(p))) $(MACHO_DIR)/wrong/app-arm64.dSYM/Contents/Resources/DWARF/app-arm64
else
FIXTURES += macho-dsyms-skipped
endif

macho-universal-skipped:
	@echo "  SKIP    Mach-O universal fixture: no llvm-lipo; tests that need it skip"
macho-dsyms-skipped:
	@echo "  SKIP    dSYM fixtures: no dsymutil; tests that need them skip"
.PHONY: macho-universal-skipped macho-dsyms-skipped

$(MACHO_DIR)/obj/%-arm64.o: testdata/macho/%.c $(MACHO_HDR)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $< (arm64 Mach-O)")
	$(Q)$(MACHO_CLANG) -target arm64-apple-macos12 $(MACHO_CFLAGS) -c -o $@ $<

$(MACHO_DIR)/obj/%-x86_64.o: testdata/macho/%.c $(MACHO_HDR)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $< (x86_64 Mach-O)")
	$(Q)$(MACHO_CLANG) -target x86_64-apple-macos12 $(MACHO_CFLAGS) -c -o $@ $<

$(MACHO_DIR)/libwork.dylib: $(MACHO_DIR)/obj/libwork-arm64.o
	@$(if $(Q),echo "  LD64    $@")
	$(Q)$(MACHO_LD) -arch arm64 $(MACHO_LDFLAGS) -dylib -install_name @rpath/libwork.dylib -o $@ $<

$(MACHO_DIR)/app-arm64: $(MACHO_DIR)/obj/app-arm64.o $(MACHO_DIR)/libwork.dylib
	@$(if $(Q),echo "  LD64    $@")
	$(Q)$(MACHO_LD) -arch arm64 $(MACHO_LDFLAGS) -e _main -undefined dynamic_lookup \
		-rpath @executable_path -o $@ $^

$(MACHO_DIR)/app-x86_64: $(MACHO_DIR)/obj/app-x86_64.o $(MACHO_DIR)/obj/libwork-x86_64.o
	@$(if $(Q),echo "  LD64    $@")
	$(Q)$(MACHO_LD) -arch x86_64 $(MACHO_LDFLAGS) -e _main -o $@ $^

$(MACHO_DIR)/app-universal: $(MACHO_DIR)/app-arm64 $(MACHO_DIR)/app-x86_64
	@$(if $(Q),echo "  LIPO    $@")
	$(Q)$(MACHO_LIPO) -create $^ -output $@

# dsymutil looks for "lipo" on PATH when the input is universal.
$(MACHO_DIR)/tools/lipo:
	@mkdir -p $(dir $@)
	$(Q)ln -sf $(MACHO_LIPO) $@

define macho_dsym_rule
$(call macho_dsym,$(1)): $(MACHO_DIR)/$(1) $(if $(MACHO_LIPO),$(MACHO_DIR)/tools/lipo)
	@$$(if $$(Q),echo "  DSYM    $(MACHO_DIR)/$(1).dSYM")
	$$(Q)rm -rf $(MACHO_DIR)/$(1).dSYM
	$$(Q)PATH="$(abspath $(MACHO_DIR)/tools):$$$$PATH" $(MACHO_DSYMUTIL) $$< -o $(MACHO_DIR)/$(1).dSYM
	$$(Q)test -f $$@
endef
$(foreach p,$(MACHO_PROGS),$(eval $(call macho_dsym_rule,$(p))))

# The LC_UUID payload's offset in thin 64-bit Mach-O file $(1), from its first 64 KiB
# (header and load commands): a walk of the command chain in awk over od's
# bytes, so it needs nothing beyond POSIX tools.
macho_uuid_at = od -An -v -tu1 -N 65536 $(1) | awk '{ for (i = 1; i <= NF; i++) b[n++] = $$i } \
	function le(k) { return b[k] + 256 * b[k + 1] + 65536 * b[k + 2] + 16777216 * b[k + 3] } \
	END { off = 32; for (c = 0; c < le(16) && off + 24 <= n; c++) { \
		if (le(off) == 27) { print off + 8; exit 0 } \
		if (le(off + 4) < 8) break; off += le(off + 4) } exit 1 }'
# Any UUID but the real one will do; this one is easy to spot.
MACHO_WRONG_UUID := '\336\255\276\357\000\000\100\000\200\000\000\000\000\000\000\001'

$(MACHO_DIR)/wrong/app-arm64.dSYM/Contents/Resources/DWARF/app-arm64: $(call macho_dsym,app-arm64)
	@mkdir -p $(MACHO_DIR)/wrong
	@$(if $(Q),echo "  UUID    $(MACHO_DIR)/wrong/app-arm64.dSYM")
	$(Q)rm -rf $(MACHO_DIR)/wrong/app-arm64.dSYM && cp -R $(MACHO_DIR)/app-arm64.dSYM $(MACHO_DIR)/wrong/
	$(Q)off=$$($(call macho_uuid_at,$@)) && \
		printf $(MACHO_WRONG_UUID) | dd of=$@ bs=1 seek=$$off conv=notrunc 2>/dev/null

endif

# The synthetic trace writer: traces of macOS processes, made on Linux.
FIXTURES += $(BUILD)/tests/tools/synth_trace
$(BUILD)/tests/tools/synth_trace: $(BUILD)/tests/tools/synth_trace.o $(LIBFORMAT) $(LIBCOMMON)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS)
