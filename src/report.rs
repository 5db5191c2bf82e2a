//! Stage 5, report: renders findings. The only library stage that produces text for people or tools.
//!
//! Takes an [`Analysis`](crate::Analysis); returns a `String` (the caller writes it). Promises: output
//! is deterministic for the same inputs; every input-derived string goes through [`crate::text`], so no
//! raw control, bidi or invisible character reaches any output, no line starts a workflow command (`::`)
//! except the `github` format's own, and no `##[` appears; every format counts and names the suppressed
//! findings and prints the run notes.

pub mod changelog;
pub mod github;
pub mod human;
pub mod json;
pub mod junit;
pub mod links;
pub mod markdown;
pub mod sarif;

use crate::catalog::Severity;
use crate::checks::Finding;

/// Counts by severity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub error: usize,
    pub warning: usize,
    pub info: usize,
    /// Tools with at least one finding (a finding about the whole snapshot, `lint-open-input`, names
    /// no tool and is not counted here).
    pub tools: usize,
}

impl Summary {
    #[must_use]
    pub fn of(findings: &[Finding]) -> Summary {
        let mut s = Summary::default();
        let mut tools = std::collections::BTreeSet::new();
        for f in findings {
            match f.severity {
                Severity::Error => s.error += 1,
                Severity::Warning => s.warning += 1,
                Severity::Info => s.info += 1,
            }
            if !f.is_summary() {
                tools.insert((f.snapshot.as_deref(), f.tool.as_str()));
            }
        }
        s.tools = tools.len();
        s
    }

    /// `2 errors, 1 warning, 0 infos across 40 tools`: the tools the run compared (as the clean-run
    /// line counts them), with how many have findings when that is fewer.
    #[must_use]
    pub fn line_of(&self, compared: usize) -> String {
        if self.tools == 0 {
            // Findings about whole snapshots only (`lint-open-input`) name no tool.
            return self.line();
        }
        let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
        let with = if self.tools < compared { format!(" ({} with findings)", self.tools) } else { String::new() };
        format!(
            "{}, {}, {} across {}{with}",
            plural(self.error, "error"),
            plural(self.warning, "warning"),
            plural(self.info, "info"),
            plural(compared.max(self.tools), "tool")
        )
    }

    /// `2 errors, 1 warning, 0 infos across 3 tools` (`0 errors, 0 warnings, 1 info` when the only
    /// finding is about the whole snapshot).
    #[must_use]
    pub fn line(&self) -> String {
        let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
        if self.tools == 0 {
            return format!(
                "{}, {}, {}",
                plural(self.error, "error"),
                plural(self.warning, "warning"),
                plural(self.info, "info")
            );
        }
        format!(
            "{}, {}, {} across {}",
            plural(self.error, "error"),
            plural(self.warning, "warning"),
            plural(self.info, "info"),
            plural(self.tools, "tool")
        )
    }
}
