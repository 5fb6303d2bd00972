#!/bin/sh
# testdata/golden/make-traces.sh SYNTH_TRACE: writes the golden traces.
#
# The traces are committed, so that the reader keeps reading what an older
# writer wrote; run this only to change what they record (then run
# 'GOLDEN_UPDATE=1 sh tests/e2e/test_tables.sh' and review the diff). Their
# images name files that do not exist, so every frame is IMAGE+0xOFFSET on
# any machine, and synth_trace makes the bytes depend only on this script.
#
# tables.trace, a 1000 Hz recording of "app", one sample per millisecond:
#   app     0x401000 main, 0x401100 a, 0x401200 b, 0x401300 rec
#   libg.so 0x7f0000000500 work, 0x7f0000000600 wait
# and threads whose names are hostile or alike: "../../x", "a/b", "", a
# second "worker", markup, one with no name, and one that is never sampled.
#
# marks.trace, the same at 1000 Hz for 0.7 s, with marks and pauses for the
# timeline of threads --split: one at the start, markup, a control byte and
# invalid UTF-8 in a name, marks a millisecond apart whose names would run
# into each other, ten at one instant, a long name at the very end, one
# after it (written first, so that the reader sorts them), two pauses that
# overlap and one of no length.
set -eu
synth=${1:?usage: make-traces.sh SYNTH_TRACE}
dir=$(dirname "$0")

main=0x401000 a=0x401100 b=0x401200 rec=0x401300
work=0x7f0000000500 wait=0x7f0000000600

"$synth" -o "$dir/tables.trace" --os linux --arch x86_64 --pid 4242 --rate 1000 \
	--command /nonexistent/golden/app --command --work \
	--image KIND=none,PATH=/nonexistent/golden/app,START=0x400000,SIZE=0x10000,BIAS=0x400000 \
	--image KIND=none,PATH=/nonexistent/golden/libg.so,START=0x7f0000000000,SIZE=0x10000,BIAS=0x7f0000000000 \
	--thread TID=100,NAME=app \
	--thread TID=101,NAME=worker \
	--thread TID=102,NAME=../../x \
	--thread TID=103,NAME=a/b \
	--thread TID=104,NAME= \
	--thread TID=105,NAME=worker \
	--thread "TID=106,NAME=<b>&\"x'" \
	--thread TID=107,NAME=idle \
	--thread TID=108 \
	--sample TID=100,STACK=$a:$main --count 30 \
	--sample TID=101,STACK=$work:$b:$main --count 20 \
	--sample TID=101,STATE=sleeping,STACK=$wait:$b:$main --count 10 \
	--sample TID=100,STACK=$rec:$rec:$rec:$main --count 15 \
	--sample TID=102,STACK=$work:$a:$main --count 5 \
	--sample TID=103,STATE=disk,STACK=$wait:$main --count 4 \
	--sample TID=104,STATE=stopped,STACK=$b:$main --count 3 \
	--sample TID=105,STACK=$a:$main --count 2 \
	--sample TID=106,STACK=$rec:$b:$main --count 6 \
	--sample TID=108,STATE=other,STACK=$wait:$rec:$main --count 2 \
	--sample TID=100 \
	--sample TID=100,STACK=0x9000:$main --count 2 \
	--sample TID=101,STACK=$main:$work:$rec:$main --count 3 \
	--exit 0

hostile=$(printf 'load <cfg> & "go"\001\377')
"$synth" -o "$dir/marks.trace" --os linux --arch x86_64 --pid 4343 --rate 1000 \
	--command /nonexistent/golden/app \
	--image KIND=none,PATH=/nonexistent/golden/app,START=0x400000,SIZE=0x10000,BIAS=0x400000 \
	--thread TID=200,NAME=main \
	--thread TID=201,NAME=io \
	--sample TID=200,STACK=$a:$main --count 300 \
	--sample TID=201,STATE=sleeping,STACK=$b:$main --count 200 \
	--sample TID=200,STACK=$rec:$main --count 200 \
	--mark 'AT=900,NAME=after the end' \
	--mark AT=0,NAME=start \
	--mark "AT=100,NAME=$hostile,SOURCE=app" \
	--mark 'AT=300,NAME=phase 2' \
	--mark 'AT=301,NAME=frame 1,SOURCE=app' --mark 'AT=302,NAME=frame 2,SOURCE=app' \
	--mark 'AT=303,NAME=frame 3,SOURCE=app' \
	--mark AT=455,NAME=burst-1 --mark AT=455,NAME=burst-2 --mark AT=455,NAME=burst-3 \
	--mark AT=455,NAME=burst-4 --mark AT=455,NAME=burst-5 --mark AT=455,NAME=burst-6 \
	--mark AT=455,NAME=burst-7 --mark AT=455,NAME=burst-8 --mark AT=455,NAME=burst-9 \
	--mark AT=455,NAME=burst-10 \
	--mark 'AT=701,NAME=a name far longer than a label can hold,SOURCE=app' \
	--pause FROM=350,TO=400 --pause FROM=420,TO=440 --pause FROM=430,TO=450 \
	--pause FROM=600,TO=600 \
	--exit 0
