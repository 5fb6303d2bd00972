// shapes: a Rust fixture with a known call structure, for symbolication of
// Rust names. main -> geometry::Shape::area -> geometry::spin takes about
// two thirds of the time, main -> geometry::Shape::perimeter -> spin one
// third. Run as `shapes SECONDS`.
use std::time::{Duration, Instant};

mod geometry {
    pub struct Shape {
        pub w: u64,
        pub h: u64,
    }

    #[inline(never)]
    pub fn spin(n: u64, seed: u64) -> u64 {
        let mut x = seed;
        for i in 0..n {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(i));
        }
        x
    }

    impl Shape {
        #[inline(never)]
        pub fn area(&self, seed: u64) -> u64 {
            spin(200_000, seed ^ self.w) + self.w * self.h
        }

        #[inline(never)]
        pub fn perimeter(&self, seed: u64) -> u64 {
            spin(100_000, seed ^ self.h) + 2 * (self.w + self.h)
        }
    }
}

fn main() {
    let secs: f64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1.0);
    let deadline = Instant::now() + Duration::from_secs_f64(secs);
    let s = geometry::Shape { w: 3, h: 4 };
    let mut x = 1u64;
    while Instant::now() < deadline {
        x = s.area(x);
        x = s.perimeter(x);
    }
    println!("shapes: {}", x & 1);
}
