//! Variant files of a per-tool directory (several files that publish one `name`, keyed by path; see
//! [`crate::load::dir`]). Callers call the published name, not the file: a variant file that goes
//! away while its name is still served, or one that replaces another under the same name, removes or
//! renames nothing a caller can call. Such findings are kept, as `info`, and say why.

use crate::catalog::{RuleId, Severity};
use crate::checks::Finding;
use crate::load::{Snapshot, escape};

/// Lowers `tool-removed` and `tool-renamed` findings about variant files whose published name the
/// new snapshot still serves.
pub fn soften(findings: &mut [Finding], old: &Snapshot, new: &Snapshot) {
    if !old.tools.values().chain(new.tools.values()).any(|t| t.published.is_some()) {
        return;
    }
    // Indexed once: thousands of removed variants must not each scan every tool.
    let served: std::collections::HashSet<&str> = new.tools.values().map(crate::load::Tool::published_name).collect();
    let served = |name: &str| served.contains(name);
    for f in findings.iter_mut() {
        match f.rule {
            RuleId::ToolRemoved => {
                let Some(tool) = old.tools.get(&f.tool) else { continue };
                let Some(published) = tool.published.as_deref() else { continue };
                if !served(published) {
                    continue;
                }
                let p = escape(published);
                f.severity = Severity::Info;
                f.why = format!(
                    "Agents call the name `{p}`, which the new snapshot still serves; what went away is a file that \
                     held a variant of its contract, not a name."
                );
                f.notes.push(format!(
                    "the name `{p}` is still served: this file was a variant of it (a feature-flag variant, for \
                     example); callers of `{p}` keep a tool, now with the contract of the other file of that name, \
                     which is compared under its own key and not with this variant"
                ));
                f.migration = format!(
                    "No migration for the tool name; check that callers that relied on this variant's contract \
                     accept the one `{p}` now serves."
                );
            }
            RuleId::ToolRenamed => {
                let (Some(from), Some(to)) = (f.from.as_deref().and_then(|k| old.tools.get(k)), new.tools.get(&f.tool))
                else {
                    continue;
                };
                if from.published_name() != to.published_name() || (from.published.is_none() && to.published.is_none())
                {
                    continue;
                }
                f.severity = Severity::Info;
                "Agents call the published name, which did not change; no planned call breaks.".clone_into(&mut f.why);
                f.notes.push(format!(
                    "the published name `{}` did not change: only the variant file holding it did",
                    escape(to.published_name())
                ));
                "No migration for the tool name; its contract changes are reported as usual."
                    .clone_into(&mut f.migration);
            }
            _ => {}
        }
    }
}
