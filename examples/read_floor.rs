//! The floor of the benchmark: read each snapshot file and validate it as JSON (`IgnoredAny`: no
//! values are built), one thread per file. Nothing mcp-drift does to a file can cost less than this.
//! `cargo build --release --example read_floor`; see `benches/run.sh`.

fn main() {
    let threads: Vec<_> = std::env::args()
        .skip(1)
        .map(|path| {
            std::thread::spawn(move || {
                let bytes = std::fs::read(&path).expect("readable file");
                let text = std::str::from_utf8(&bytes).expect("UTF-8");
                serde_json::from_str::<serde::de::IgnoredAny>(text).expect("valid JSON");
                bytes.len()
            })
        })
        .collect();
    let total: usize = threads.into_iter().map(|t| t.join().expect("thread")).sum();
    println!("{total}");
}
