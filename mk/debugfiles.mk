# Fixtures for finding debug information elsewhere than in the binary.
#
# stripped/split: the split fixture with everything but what the loader
# needs stripped, and a .gnu_debuglink to .debug/split.debug, made with
# objcopy as distributions make their debug packages.
# rust/shapes, rust/shapes-v0: a Rust program built with frame pointers and
# DWARF, with the legacy and the v0 symbol mangling. Without rustc they are
# not built and the tests that need them say so.

STRIPPED_DIR := $(BUILD)/testdata/stripped

$(STRIPPED_DIR)/split: $(BUILD)/testdata/split
	@mkdir -p $(STRIPPED_DIR)/.debug
	@$(if $(Q),echo "  OBJCOPY $@")
	$(Q)objcopy --only-keep-debug $< $(STRIPPED_DIR)/.debug/split.debug
	$(Q)objcopy --strip-all --add-gnu-debuglink=$(STRIPPED_DIR)/.debug/split.debug $< $@

FIXTURES += $(STRIPPED_DIR)/split

RUSTC := $(shell command -v rustc 2>/dev/null)
ifneq ($(RUSTC),)
RUST_FLAGS := -C force-frame-pointers=yes -g -O

$(BUILD)/testdata/rust/shapes: testdata/rust/shapes.rs
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  RUSTC   $@")
	$(Q)MAKEFLAGS= $(RUSTC) $(RUST_FLAGS) -o $@ $<

$(BUILD)/testdata/rust/shapes-v0: testdata/rust/shapes.rs
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  RUSTC   $@")
	$(Q)MAKEFLAGS= $(RUSTC) $(RUST_FLAGS) -C symbol-mangling-version=v0 -o $@ $<

FIXTURES += $(BUILD)/testdata/rust/shapes $(BUILD)/testdata/rust/shapes-v0
endif
