//! The labelled description-edit set (`tests/meaning/descriptions.json`): realistic tool and parameter
//! description edits, each labelled meaning-bearing or cosmetic. The classifier must reach 0.9
//! precision and 0.9 recall on meaning-bearing edits. A quarter of the pairs (`"split": "holdout"`) was
//! kept out of tuning; both numbers are printed (`cargo test --test meaning -- --nocapture`).

use serde_json::Value;

#[derive(Default)]
struct Score {
    tp: usize,
    fp: usize,
    fn_: usize,
    tn: usize,
}

impl Score {
    #[allow(clippy::cast_precision_loss, reason = "small counts")]
    fn precision(&self) -> f64 {
        self.tp as f64 / (self.tp + self.fp).max(1) as f64
    }
    #[allow(clippy::cast_precision_loss, reason = "small counts")]
    fn recall(&self) -> f64 {
        self.tp as f64 / (self.tp + self.fn_).max(1) as f64
    }
}

#[test]
fn description_classifier_precision_and_recall() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/meaning/descriptions.json")).unwrap();
    let pairs: Vec<Value> = serde_json::from_str(&text).unwrap();
    assert!(pairs.len() >= 150, "the labelled set needs at least 150 pairs");
    let (mut all, mut holdout) = (Score::default(), Score::default());
    let mut misses = Vec::new();
    for p in &pairs {
        let (old, new) = (p["old"].as_str().unwrap(), p["new"].as_str().unwrap());
        let truth = p["meaning"].as_bool().unwrap();
        let verdict = mcp_drift::meaning::classify(old, new);
        for score in [Some(&mut all), (p["split"] == "holdout").then_some(&mut holdout)].into_iter().flatten() {
            match (verdict.meaning, truth) {
                (true, true) => score.tp += 1,
                (true, false) => score.fp += 1,
                (false, true) => score.fn_ += 1,
                (false, false) => score.tn += 1,
            }
        }
        if verdict.meaning != truth {
            misses.push(format!(
                "[{}] {:?} -> {:?}: said {} ({})",
                p["split"].as_str().unwrap(),
                old,
                new,
                verdict.meaning,
                verdict.trigger
            ));
        }
    }
    println!(
        "all {} pairs: precision {:.3}, recall {:.3} (tp {}, fp {}, fn {}, tn {})",
        pairs.len(),
        all.precision(),
        all.recall(),
        all.tp,
        all.fp,
        all.fn_,
        all.tn
    );
    println!(
        "holdout {} pairs: precision {:.3}, recall {:.3}",
        holdout.tp + holdout.fp + holdout.fn_ + holdout.tn,
        holdout.precision(),
        holdout.recall()
    );
    for m in &misses {
        println!("miss: {m}");
    }
    assert!(all.precision() >= 0.9 && all.recall() >= 0.9, "below 0.9:\n{}", misses.join("\n"));
}
