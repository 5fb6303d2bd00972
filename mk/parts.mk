# mk/parts.mk: what tests/e2e/test_parts.sh builds. parts_trace writes a
# synthetic recording whole, cut into rotated parts, or as snapshots, as
# prof-record --switch-output and --ring write them (tests/unit/parts.h).

FIXTURES += $(BUILD)/tests/tools/parts_trace
$(BUILD)/tests/tools/parts_trace: $(BUILD)/tests/tools/parts_trace.o $(LIBFORMAT) $(LIBCOMMON)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS)
