# mk/macos.mk: the macOS build, and the test of the macOS target on Linux.
#
# On macOS, prof-record is built from record/*.c without the Linux files:
# mach_macos.c (the Mach calls) under target_darwin.c and
# images_darwin.c. The libraries come from Homebrew through pkg-config;
# libdwarf's headers are in a libdwarf/ directory there as on Debian.
# prof-record needs the debugger entitlement to call task_for_pid:
# `make sign` signs it ad hoc with mk/prof-record.entitlements.
#
# Everywhere, tests/unit/test_darwin.c supplies its own Mach layer and is
# linked with the portable macOS objects instead of Linux's target and
# image table (which librecord holds on Linux, and which then stay out).

DARWIN_OBJ := $(call obj,record/target_darwin.c record/images_darwin.c)

$(BUILD)/tests/test_darwin: $(BUILD)/tests/unit/test_darwin.o $(DARWIN_OBJ) $(LIBRECORD) $(LIBREPORT) $(LIBFORMAT) $(LIBCOMMON)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(TEST_LIBS) $(DWARF_LIBS) $(PKG_LIBS)

ifeq ($(UNAME),Darwin)
# Homebrew's libdwarf has a pkg-config file (its headers are in a
# libdwarf-0 directory); libiberty comes with Homebrew's binutils, which
# is keg-only, so its prefix is asked for.
BREW_BINUTILS := $(shell brew --prefix binutils 2>/dev/null)
DWARF_CFLAGS_CMD = echo $$(pkg-config --cflags libdwarf) -I$(BREW_BINUTILS)/include
DWARF_LIBS_CMD = echo $$(pkg-config --libs libdwarf) -L$(BREW_BINUTILS)/lib -liberty
# A Mach-O link of the programs needs nothing but those libraries: the
# Makefile passes ld64 no GNU ld option (only the ELF fixtures have one).

ENTITLEMENTS := mk/prof-record.entitlements

sign: $(BIN)prof-record
	codesign -s - --entitlements $(ENTITLEMENTS) -f $(BIN)prof-record

.PHONY: sign
endif
