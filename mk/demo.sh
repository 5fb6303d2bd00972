#!/bin/sh
# mk/demo.sh: what 'make demo' does after building. Records the demo workload
# for a few seconds, then writes folded stacks, a flame graph and a page from it.
set -eu
demo=$1
./prof-record -f -o demo.trace -- "$demo" 3
./prof-report folded demo.trace > demo.folded
./prof-report svg demo.trace -o demo.svg
./prof-report html demo.trace -o demo.html
echo
echo "wrote demo.trace ($(wc -c < demo.trace) bytes), demo.folded ($(wc -l < demo.folded) stacks), demo.svg, demo.html"
echo "next: ./prof-report info demo.trace; ./prof-report threads demo.trace"
