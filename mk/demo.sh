#!/bin/sh
# mk/demo.sh: what 'make demo' does after building. Records the demo workload
# for a few seconds, then writes folded stacks and a flamegraph from it.
set -eu
demo=$1
./prof-record -f -o demo.trace -- "$demo" 3
./prof-report folded demo.trace > demo.folded
./prof-report svg demo.trace -o demo.svg
echo
echo "wrote demo.trace ($(wc -c < demo.trace) bytes), demo.folded ($(wc -l < demo.folded) stacks), demo.svg"
echo "next: ./prof-report info demo.trace; ./prof-report threads demo.trace"
