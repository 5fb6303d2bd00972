# mk/arm64.mk: prof-record for an arm64 device, and the emulated arm64
# machine its tests run in.
#
#   make arm64           build/arm64/prof-record: a static aarch64 Linux
#                        executable, the one file to copy to a device
#   make arm64-fixtures  the fixture programs, static for aarch64, in
#                        build/arm64/testdata (frameless and qsort_cmp also
#                        with pointer authentication: NAME-pac; qsort_cmp
#                        also without frame records: qsort_cmp-nofp)
#   make arm64-vm        the machine that tests/vm/run-arm64 boots:
#                        build/arm64/vm/Image and initramfs.cpio
#
# Debian's gcc-aarch64-linux-gnu compiles, against the static zstd and
# xxHash of Debian's arm64 -dev packages. mk/arm64-setup.sh installs the
# cross compiler and qemu and fetches the arm64 packages into build/arm64,
# once (a stamp). prof-report stays on the host: it reads arm64 traces as
# it reads any other. The arm64 build is never sanitized (a SANITIZE run
# leaves its flags out) and is not part of `make`: `make check` runs
# tests/e2e/test_arm64.sh, which makes what it needs, or says why not.

ARM64 := build/arm64
ARM64_CC := aarch64-linux-gnu-gcc
ARM64_PKG := $(ARM64)/pkg
ARM64_STAMP := $(ARM64)/setup.stamp
ARM64_CFLAGS = $(filter-out -fsanitize=% -fno-sanitize-recover=%,$(REQ_CFLAGS)) \
	       -isystem $(ARM64_PKG)/usr/include $(CFLAGS)
ARM64_LIBS := -L$(ARM64_PKG)/usr/lib/aarch64-linux-gnu -lzstd -lxxhash -lm
ARM64_SRC := $(COMMON_SRC) $(FORMAT_SRC) $(filter-out $(DARWIN_SRC_PATTERNS),$(wildcard record/*.c))
ARM64_FIXTURES := $(addprefix $(ARM64)/testdata/,split frameless qsort_cmp deep threads sig annotate \
		    frameless-pac qsort_cmp-pac qsort_cmp-nofp)

$(ARM64_STAMP): mk/arm64-setup.sh
	$(Q)sh mk/arm64-setup.sh $(ARM64)
	$(Q)touch $@

$(ARM64)/obj/%.o: %.c $(ARM64_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(ARM64_CC) $(ARM64_CFLAGS) -c -o $@ $<

$(ARM64)/prof-record: $(patsubst %.c,$(ARM64)/obj/%.o,$(ARM64_SRC))
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(ARM64_CC) -static -Wl,--build-id -o $@ $^ $(ARM64_LIBS)

# The fixtures as the Linux ones are built (frame pointers, DWARF), linked
# statically so that the machine needs no C library of its own.
$(ARM64)/testdata/%: testdata/%.c testdata/fixture.h $(ARM64_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(ARM64_CC) $(FIXTURE_CFLAGS) -static -Wl,--build-id -o $@ $< -lm

# Return addresses signed with pointer authentication (PACIASP) in every
# function, leaves too: the unwinder must strip them, from lr as well.
$(ARM64)/testdata/%-pac: testdata/%.c testdata/fixture.h $(ARM64_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(ARM64_CC) $(FIXTURE_CFLAGS) -mbranch-protection=pac-ret+leaf -static -Wl,--build-id -o $@ $< -lm

# No frame records in the program's own functions: aarch64's C library
# keeps them in qsort, so only this build needs CFI to walk from qsort's
# caller to main.
$(ARM64)/testdata/%-nofp: testdata/%.c testdata/fixture.h $(ARM64_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(ARM64_CC) $(FIXTURE_CFLAGS) -fomit-frame-pointer -static -Wl,--build-id -o $@ $< -lm

# testdata/arm64/pacret: an aarch64 program that is only read, for the
# cross-check of record/cfi.c with readelf (tests/unit/test_cfi.c):
# clang and lld, which every build host has, make it without a C library.
ifneq ($(shell command -v clang 2>/dev/null),)
$(BUILD)/testdata/arm64/pacret: testdata/arm64/pacret.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CLANG   $@")
	$(Q)clang --target=aarch64-linux-gnu -O2 -mbranch-protection=pac-ret+leaf -fasynchronous-unwind-tables \
		-ffreestanding -nostdlib -fuse-ld=lld -static -Wl,--build-id -Wl,--eh-frame-hdr -o $@ $<

FIXTURES += $(BUILD)/testdata/arm64/pacret
endif

$(ARM64)/vm/Image $(ARM64)/vm/initramfs.cpio &: tests/vm/build-image tests/vm/init $(ARM64_STAMP)
	@$(if $(Q),echo "  IMAGE   $(ARM64)/vm")
	$(Q)sh tests/vm/build-image $(ARM64) > /dev/null

arm64-setup: $(ARM64_STAMP)
arm64: $(ARM64)/prof-record
arm64-fixtures: $(ARM64_FIXTURES)
arm64-vm: $(ARM64)/vm/Image $(ARM64)/vm/initramfs.cpio

.PHONY: arm64-setup arm64 arm64-fixtures arm64-vm
