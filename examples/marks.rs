// marks.rs: marks.c in Rust. Run under `prof-record -- ./marks`, it writes
// one mark's name a line to the file $PROF_MARKS names; on its own it
// marks nothing. prof_mark() is all a program needs.
use std::io::Write;

fn prof_mark(name: &str) {
    if let Some(path) = std::env::var_os("PROF_MARKS") {
        if let Ok(mut f) = std::fs::OpenOptions::new().append(true).open(path) {
            let _ = f.write_all(format!("{name}\n").as_bytes());
        }
    }
}

// The work of one phase: about a third of a second of arithmetic.
#[inline(never)]
fn spin(mut x: f64, n: u64) -> f64 {
    for _ in 0..n {
        x = std::hint::black_box(x * 1.0000001 + 1e-9);
    }
    x
}

#[inline(never)]
fn phase_one() -> f64 {
    2.0 * spin(1.0, 50_000_000)
}

#[inline(never)]
fn phase_two() -> f64 {
    2.0 * spin(2.0, 50_000_000)
}

fn main() {
    prof_mark("one");
    let mut x = phase_one();
    prof_mark("two");
    x += phase_two();
    prof_mark("done");
    println!("{x}");
}
