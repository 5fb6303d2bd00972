// hxgo: a Go program whose CPU time divides 3:1 between main.hxGoHot and
// main.hxGoCold, on several goroutines and on main's own.
//
// Each unit of work is three calls to hxGoHot and one to hxGoCold of the
// same mean cost, so a correct profiler puts three quarters of the two
// functions' samples under hxGoHot. A call's length varies, 0.5 to 1.5
// times the mean, drawn the same way for both, so that a sampling clock
// cannot lock to the unit. Both spin through hxGoStep, small enough for
// the compiler to inline, so their samples carry an inline frame from
// Go's DWARF. A goroutine that allocates keeps runtime.mallocgc and the
// collector busy.
//
// Usage: hxgo SECONDS. It prints how long its work took.
package main

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"
)

const workers = 3

var sink uint64
var sinkMu sync.Mutex

// hxGoStep is one round of arithmetic, inlined into the loops below.
func hxGoStep(x uint64) uint64 {
	return x*6364136223846793005 + 1442695040888963407
}

// steps draws a call's length from the seed's high bits: 100000 to
// 300000 rounds.
func steps(seed uint64) int {
	return 100000 + int((seed>>40)%200001)
}

//go:noinline
func hxGoHot(seed uint64) uint64 {
	x := seed
	for i, n := 0, steps(seed); i < n; i++ {
		x = hxGoStep(x)
	}
	return x + 1
}

//go:noinline
func hxGoCold(seed uint64) uint64 {
	x := seed
	for i, n := 0, steps(seed); i < n; i++ {
		x = hxGoStep(x)
	}
	return x + 2
}

//go:noinline
func hxGoRun(deadline time.Time, seed uint64) uint64 {
	x := seed
	for time.Now().Before(deadline) {
		for i := 0; i < 3; i++ {
			x = hxGoHot(x)
		}
		x = hxGoCold(x)
	}
	return x
}

// hxGoAlloc makes garbage until the deadline: small slices that escape,
// so they are allocated on the heap and collected.
//
//go:noinline
func hxGoAlloc(deadline time.Time) uint64 {
	var keep [][]byte
	var n uint64
	for time.Now().Before(deadline) {
		for i := 0; i < 1000; i++ {
			b := make([]byte, 64+i%512)
			b[0] = byte(i)
			keep = append(keep, b)
			if len(keep) > 4096 {
				keep = keep[:0]
			}
		}
		n++
		time.Sleep(time.Millisecond)
	}
	return n + uint64(len(keep))
}

func keep(v uint64) {
	sinkMu.Lock()
	sink += v
	sinkMu.Unlock()
}

func main() {
	seconds := 2.0
	if len(os.Args) > 1 {
		v, err := strconv.ParseFloat(os.Args[1], 64)
		if err != nil || v < 0 {
			fmt.Fprintf(os.Stderr, "usage: hxgo SECONDS\n")
			os.Exit(2)
		}
		seconds = v
	}
	t0 := time.Now()
	deadline := t0.Add(time.Duration(seconds * float64(time.Second)))

	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			keep(hxGoRun(deadline, seed))
		}(uint64(w+1) * 0x9e3779b97f4a7c15)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		keep(hxGoAlloc(deadline))
	}()
	keep(hxGoRun(deadline, 0x2545f4914f6cdd1d))
	wg.Wait()
	fmt.Printf("hxgo: work took %.3f s\n", time.Since(t0).Seconds())
	if sink == 42 {
		fmt.Println()
	}
}
