# rust/sinloop: a Rust program with frame pointers whose time is in libm's
# sin, for the complete-stack tests (tests/e2e/test_stacks.sh). Without
# rustc it is not built and the test says so.

ifneq ($(RUSTC),)
$(BUILD)/testdata/rust/sinloop: testdata/rust/sinloop.rs
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  RUSTC   $@")
	$(Q)MAKEFLAGS= $(RUSTC) -C force-frame-pointers=yes -g -O -o $@ $<

FIXTURES += $(BUILD)/testdata/rust/sinloop
endif
