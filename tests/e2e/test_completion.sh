#!/usr/bin/env bash
# End-to-end: the bash completion files, sourced into bash and run the way
# bash runs them, give the commands and, for every command prof-report's
# --help lists, exactly the options its -h prints; the words they offer
# for --mode, --colors, --sort, --group, --state, --format and --normalize are
# the ones the programs accept (as their error messages list them); and TRACE, -o and
# --symbols complete to files and directories.
. "$(dirname "$0")/lib.sh"

COMP=$TOP/completion
# complete FILE FUNCTION WORD...: the sorted COMPREPLY of FUNCTION, from
# FILE, for the command line WORD... with the cursor in the last word.
complete_words() {
	local file=$1 fn=$2
	shift 2
	(cd "$TMP/files" && bash -c '. "$1"; shift; fn=$1; shift; COMP_WORDS=("$@");
		COMP_CWORD=$(($# - 1)); "$fn"; printf "%s\n" "${COMPREPLY[@]}"' - "$file" "$fn" "$@") | sort
}
# expect NAME WANT GOT: ok if the word lists are equal (order aside).
expect() {
	local want got
	want=$(echo "$2" | tr ' ' '\n' | sed '/^$/d' | sort -u)
	got=$(echo "$3" | sed '/^$/d' | sort -u)
	if [ "$want" = "$got" ] && [ -n "$want" ]; then
		ok "$1 ($(echo "$want" | wc -l) words)"
	else
		fail "$1" "want '$(echo $want)', got '$(echo $got)'"
	fi
}
# help_options CMD...: every option in the option lines of CMD's help.
help_options() {
	"$@" 2>&1 | grep -E '^  -' | sed -E 's/^  //; s/  .*//' | grep -oE '(^|[ ,])--?[A-Za-z][A-Za-z0-9-]*' | tr -d ' ,'
}
# words_accepted CMD...: the words an error message says the option takes:
# "... 'bogus' is not a, b or c".
words_accepted() {
	"$@" 2>&1 | sed -n "s/.*'bogus' is not //p" | head -1 | sed 's/,/ /g; s/ or / /'
}

mkdir -p "$TMP/files/subdir"
: > "$TMP/files/a.trace"
: > "$TMP/files/b.syms"
RC=("$COMP/prof-report" _prof_report "$REPORT")

commands=$("$REPORT" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
expect "completion-report-commands" "$commands" "$(complete_words "${RC[@]}" "")"
expect "completion-report-global-options" "-h --help --version" "$(complete_words "${RC[@]}" -)"
for c in $commands; do
	expect "completion-report-$c-options" "$(help_options "$REPORT" "$c" -h)" "$(complete_words "${RC[@]}" "$c" -)"
done
# Each option's words, from the first command that takes it.
for o in colors sort group state format normalize; do
	c=$(for c in $commands; do help_options "$REPORT" "$c" -h | grep -qx -- "--$o" && echo "$c"; done | head -1)
	expect "completion-report-$o-words" "$(words_accepted "$REPORT" "$c" --$o bogus x)" \
		"$(complete_words "${RC[@]}" "$c" --$o "")"
done
expect "completion-report-trace-is-a-file" "a.trace b.syms subdir" "$(complete_words "${RC[@]}" folded "")"
expect "completion-report-after-options" "a.trace" "$(complete_words "${RC[@]}" top --sort self --lines a)"
expect "completion-report-symbols-is-a-directory" "subdir" "$(complete_words "${RC[@]}" info --symbols "")"
expect "completion-report-pack-is-a-file" "b.syms" "$(complete_words "${RC[@]}" svg --pack b)"
[ -z "$(complete_words "${RC[@]}" svg --title "")" ] && ok "completion-report-no-words-for-a-title" \
	|| fail "completion-report-no-words-for-a-title" "$(complete_words "${RC[@]}" svg --title "")"

RR=("$COMP/prof-record" _prof_record "$RECORD")
expect "completion-record-options" "$(help_options "$RECORD" --help) --" "$(complete_words "${RR[@]}" -)"
expect "completion-record-mode-words" "$(words_accepted "$RECORD" --mode bogus -- true)" \
	"$(complete_words "${RR[@]}" --mode "")"
expect "completion-record-sampler-words" "$(words_accepted "$RECORD" --sampler bogus -- true)" \
	"$(complete_words "${RR[@]}" --sampler "")"
expect "completion-record-output-is-a-file" "a.trace" "$(complete_words "${RR[@]}" -o a)"
complete_words "${RR[@]}" -p "" | grep -qx "$$" && ok "completion-record-pid" \
	|| fail "completion-record-pid" "pid $$ not offered"
complete_words "${RR[@]}" -q -- ba | grep -qx bash && ok "completion-record-command" \
	|| fail "completion-record-command" "bash not offered after --"
expect "completion-record-command-arguments" "a.trace" "$(complete_words "${RR[@]}" -- ls a)"

# Each file registers its completion for its own program.
for p in prof-record prof-report; do
	bash -c '. "$1"; complete -p "$2"' - "$COMP/$p" "$p" 2>&1 | grep -q -- "-F _${p/-/_} $p$" \
		&& ok "completion-$p-registered" || fail "completion-$p-registered" "no 'complete' for $p"
done
