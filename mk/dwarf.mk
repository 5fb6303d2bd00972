# mk/dwarf.mk: the fixtures of the symbol-table and DWARF tests, built
# here so that no test compiles anything.
#
# symbols: testdata/symbols.c at -O1, so that its functions stay whole
# (tests/unit/test_symtab.c, test_elf.c, test_report.c).
#
# dwarf/NAME: testdata/inline.c as each compiler writes its DWARF, which
# tests/unit/test_dwinfo.c compares with llvm-symbolizer at every byte
# and fuzz_dwinfo takes as seeds: GCC's and clang's DWARF 4 and 5, their
# zlib-compressed sections, GCC's zstd ones, and objcopy's zstd of GCC's;
# dwarf/cxx-shapes: testdata/dwarf/shapes.cc, for C++ names; dwarf/names-*
# below: testdata/dwarf/names.cc, for every shape of C++ name. A compiler
# that is missing or refuses the flags leaves dwarf/NAME.skipped with the
# reason instead, which the tests print as they skip the variant; the
# stamp dwarf/NAME.built says the attempt was made.

$(BUILD)/testdata/symbols: testdata/symbols.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) -O1 -g -Wl,--build-id -o $@ $<

DWARF_DIR := $(BUILD)/testdata/dwarf
DWARF_VARIANTS := gcc-dwarf4 gcc-dwarf5 gcc-zlib gcc-zstd clang-dwarf4 clang-dwarf5 clang-zlib
dwarf_cc = $(if $(filter clang-%,$(1)),clang,cc)
DWARF_FLAGS_gcc-dwarf4 := -gdwarf-4
DWARF_FLAGS_gcc-dwarf5 := -gdwarf-5
DWARF_FLAGS_gcc-zlib := -gdwarf-5 -gz=zlib
DWARF_FLAGS_gcc-zstd := -gdwarf-5 -gz=zstd
DWARF_FLAGS_clang-dwarf4 := -gdwarf-4
DWARF_FLAGS_clang-dwarf5 := -gdwarf-5
DWARF_FLAGS_clang-zlib := -gdwarf-5 -gz=zlib

# dwarf_try NAME, COMMAND, WHY: runs COMMAND (which writes dwarf/NAME), or
# leaves WHY in dwarf/NAME.skipped.
dwarf_try = rm -f $(DWARF_DIR)/$(1) $(DWARF_DIR)/$(1).skipped; \
	if ! { $(2); } 2> /dev/null; then rm -f $(DWARF_DIR)/$(1); echo "$(3)" > $(DWARF_DIR)/$(1).skipped; \
	echo "  SKIP    $(DWARF_DIR)/$(1): $(3)"; fi; touch $(DWARF_DIR)/$(1).built

$(DWARF_DIR)/%.built: testdata/inline.c testdata/fixture.h
	@mkdir -p $(DWARF_DIR)
	@$(if $(Q),echo "  CC      $(DWARF_DIR)/$*")
	$(Q)$(call dwarf_try,$*,$(call dwarf_cc,$*) -O2 -g -fno-omit-frame-pointer $(DWARF_FLAGS_$*) \
		-Itestdata -o $(DWARF_DIR)/$* testdata/inline.c,'$(call dwarf_cc,$*) $(DWARF_FLAGS_$*)' does not build here)

$(DWARF_DIR)/objcopy-zstd.built: $(DWARF_DIR)/gcc-dwarf5.built
	@$(if $(Q),echo "  OBJCOPY $(DWARF_DIR)/objcopy-zstd")
	$(Q)$(call dwarf_try,objcopy-zstd,objcopy --compress-debug-sections=zstd $(DWARF_DIR)/gcc-dwarf5 \
		$(DWARF_DIR)/objcopy-zstd,objcopy cannot compress with zstd here)

$(DWARF_DIR)/cxx-shapes.built: testdata/dwarf/shapes.cc
	@mkdir -p $(DWARF_DIR)
	@$(if $(Q),echo "  CXX     $(DWARF_DIR)/cxx-shapes")
	$(Q)$(call dwarf_try,cxx-shapes,c++ -O2 -g -o $(DWARF_DIR)/cxx-shapes $<,no C++ compiler builds it here)

# dwarf/names-gcc, names-clang, names-g1: testdata/dwarf/names.cc, for C++
# frame names against llvm-symbolizer and c++filt (test_cxx_names.sh);
# names-g1 has clang's line tables only.
$(DWARF_DIR)/names-%.built: testdata/dwarf/names.cc
	@mkdir -p $(DWARF_DIR)
	@$(if $(Q),echo "  CXX     $(DWARF_DIR)/names-$*")
	$(Q)$(call dwarf_try,names-$*,$(NAMES_CXX_$*) -O2 -fno-omit-frame-pointer -Wl$(comma)--build-id \
		-o $(DWARF_DIR)/names-$* $<,'$(NAMES_CXX_$*)' does not build C++ here)
NAMES_CXX_gcc := g++ -g
NAMES_CXX_clang := clang++ -g
NAMES_CXX_g1 := clang++ -gline-tables-only
comma := ,

FIXTURES += $(BUILD)/testdata/symbols \
	    $(patsubst %,$(DWARF_DIR)/%.built,$(DWARF_VARIANTS) objcopy-zstd cxx-shapes) \
	    $(patsubst %,$(DWARF_DIR)/names-%.built,gcc clang g1)
