# mk/js.mk: the flame graph's script, report/output/flamegraph.js, as the
# C string report/output/flamegraph.c embeds: each line quoted, without the lines that
# start with "//" (the file's own comments), and refused if it holds the
# "]]>" that would end the CDATA section around it in every graph.
#
# It is made in build/gen, which every build (plain, sanitized, fuzzing,
# macOS) includes, before the configuration: every make run brings that
# up to date before it compiles anything, and the objects' dependency
# files name the header from their first compile on.

JS_HEADER := build/gen/report/output/flamegraph.js.h

$(JS_HEADER): report/output/flamegraph.js
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  JS      $<")
	$(Q)sed -e '/^\/\//d' $< > $@.js
	$(Q)if grep -q ']]>' $@.js; then echo "$<: holds ']]>', which would end the graph's CDATA" >&2; exit 1; fi
	$(Q)sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $@.js > $@.tmp
	$(Q)rm $@.js && mv $@.tmp $@

$(CONFIG): | $(JS_HEADER)
