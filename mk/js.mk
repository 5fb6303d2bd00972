# mk/js.mk: the scripts and style the report's pages embed, as C strings:
# report/output/flamegraph.js (every flame graph, and the HTML pages),
# report/output/html.js and report/output/html.css (the HTML pages). Each
# line is quoted, the lines that start with "//" (the files' own
# comments) left out. A file is refused if it holds "]]>", which would
# end the CDATA section around the script in every graph, or "</script"
# or "</style", which would end its element in a page.
#
# They are made in build/gen, which every build (plain, sanitized,
# fuzzing, macOS) includes, before the configuration, and before the
# objects that include them, which name them from their first compile on.

EMBEDDED := report/output/flamegraph.js report/output/html.js report/output/html.css
EMBEDDED_HEADERS := $(EMBEDDED:%=build/gen/%.h)

$(EMBEDDED_HEADERS): build/gen/%.h: %
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  EMBED   $<")
	$(Q)sed -e '/^\/\//d' $< > $@.txt
	$(Q)if grep -qi ']]>\|</script\|</style' $@.txt; then \
		echo "$<: holds ']]>', '</script' or '</style', which would end its element" >&2; exit 1; fi
	$(Q)sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $@.txt > $@.tmp
	$(Q)rm $@.txt && mv $@.tmp $@

$(CONFIG): | $(EMBEDDED_HEADERS)
$(BUILD)/report/output/flamegraph.o $(BUILD)/report/output/html.o: $(EMBEDDED_HEADERS)
