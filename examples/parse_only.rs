//! The baseline of the benchmark: read and parse both snapshot files with `serde_json`, nothing else.
//! `cargo build --release --example parse_only`; see `benches/run.sh`.

fn main() {
    let mut total = 0usize;
    for path in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&path).expect("readable file");
        let value: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
        total += usize::from(value.is_object());
    }
    println!("{total}");
}
