# mk/inject.mk: what the flame graph tests (tests/e2e/test_svg.sh) build.
#
# inject: testdata/inject.S, a program whose function names try to break
# out of the SVG and of folded output; assembled, since only gas takes such
# names. many_stacks: the trace writer the scale test uses to make traces
# of up to a million distinct stacks.

$(BUILD)/testdata/inject: testdata/inject.S
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  AS      $<")
	$(Q)$(CC) -Wl,--build-id -o $@ $<

FIXTURES += $(BUILD)/testdata/inject

FIXTURES += $(BUILD)/tests/tools/many_stacks
$(BUILD)/tests/tools/many_stacks: $(BUILD)/tests/tools/many_stacks.o $(LIBFORMAT) $(LIBCOMMON)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS)
