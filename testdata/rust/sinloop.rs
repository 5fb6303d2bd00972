// sinloop: a Rust program, built with frame pointers, that spends its time
// in libm's sin, which is built without them: main -> sinloop::sin_caller
// -> sin (libm). The frame-pointer walk loses sin_caller from sin's
// samples; .eh_frame CFI keeps it.
use std::hint::black_box;
use std::time::{Duration, Instant};

#[inline(never)]
fn sin_caller(n: u64, x: f64) -> f64 {
    let mut acc = 0.0;
    let mut v = x;
    for _ in 0..n {
        acc += black_box(v).sin();
        v += 1e-3;
    }
    acc
}

fn main() {
    let secs: f64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(2.0);
    let t0 = Instant::now();
    let end = t0 + Duration::from_secs_f64(secs);
    let mut acc = 0.0;
    while Instant::now() < end {
        acc += sin_caller(100_000, acc);
    }
    println!("sinloop: work took {:.3} s ({})", t0.elapsed().as_secs_f64(), black_box(acc) as i64 & 1);
}
