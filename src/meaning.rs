//! Meaning drift in prose: decides whether a description edit changes a fact an agent acts on (a
//! meaning change) or only how it is worded, names each fact that changed, and shows the word diff.
//!
//! Takes two description strings; returns a [`Verdict`]. A description is read into facts
//! ([`facts`]): numbers in their role, units and formats, a stated default, obligations and
//! conditions, negations, the scope or target, side effects, named parameters and literal values, and
//! what the value or tool denotes (the content words of its first clause). An edit is a meaning change
//! exactly when a fact differs. Typos of a word the other side spells right, abbreviations
//! (`org`/`organization`), synonyms, word forms, markup, punctuation, order and example text
//! (`e.g. ...`, code blocks, query syntax) change no fact.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use similar::{ChangeTag, TextDiff};

use crate::load::escape;

mod align;
mod default;
mod facts;
mod head;
mod lexicon;
mod quantity;

pub use default::stated_default;
use facts::Fact;
pub use facts::FactKind;

/// One fact that differs between the two texts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FactChange {
    pub kind: FactKind,
    /// The fact as the old text states it; `None` when the old text does not state it.
    pub old: Option<String>,
    pub new: Option<String>,
    /// A prose-only change of this fact makes old calls do something else while they still validate
    /// (what a value denotes, a changed limit, unit, default or direction, a destructive side effect).
    pub grave: bool,
    /// The change cannot alter what an existing call means: a fact only dropped from the text, a
    /// literal named or not, a negation reworded. Shown at `info`; neither grave nor minor is a warning.
    pub minor: bool,
    /// What the fact is, as shown: `limit`, `minimum`, `default`, `unit`, `denotes`...
    pub label: &'static str,
}

impl std::fmt::Display for FactChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let label = self.label;
        match (&self.old, &self.new) {
            (Some(a), Some(b)) => write!(f, "{label}: {a} -> {b}"),
            (None, Some(b)) => write!(f, "{label} added: {b}"),
            (Some(a), None) => write!(f, "{label} removed: {a}"),
            (None, None) => write!(f, "{label}"),
        }
    }
}

/// The call on one description edit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub meaning: bool,
    /// Every fact that differs, in [`FactKind`] order. Empty for a reworded description.
    pub changes: Vec<FactChange>,
    /// What decided it: the first changed fact, or what kind of rewording it was.
    pub trigger: String,
    /// Word diff in `[-old-]{+new+}` form.
    pub diff: String,
    /// The defaults the old and new texts state in prose ([`stated_default`]), as read.
    pub defaults: (Option<String>, Option<String>),
}

impl Verdict {
    /// Whether a changed fact is one whose prose-only change is a break (see [`FactChange::grave`]).
    #[must_use]
    pub fn grave(&self) -> bool {
        self.changes.iter().any(|c| c.grave)
    }

    /// Whether every changed fact is minor (see [`FactChange::minor`]): a meaning change shown at `info`.
    #[must_use]
    pub fn minor(&self) -> bool {
        self.changes.iter().all(|c| c.minor && !c.grave)
    }
}

/// The most fact changes named per edit; the rest are counted.
const MAX_CHANGES: usize = 8;

/// Classifies one description edit.
#[must_use]
pub fn classify(old: &str, new: &str) -> Verdict {
    let (wa, wb, from_start) = window(old, new);
    // The diff of a long description is the diff of its read window: the cost stays bounded.
    let diff = if wa.len() == old.len() && wb.len() == new.len() {
        word_diff(old, new)
    } else {
        format!("… {} …", word_diff(&wa, &wb))
    };
    let (mut a, mut b) = (facts::read(&wa), facts::read(&wb));
    let mended = facts::mend_typos(&mut a, &mut b);
    let mut changes = Vec::new();
    // What the value or tool denotes: the head noun of the first noun phrase, unless the other text
    // still names it there.
    let first_words = |r: &facts::Reading| -> BTreeSet<String> {
        let first = r.words.first().map_or(0, |w| w.clause);
        r.words.iter().take_while(|w| w.clause == first).map(|w| w.norm.clone()).collect()
    };
    let (ha, hb) = (head::head(&a), head::head(&b));
    // A change of referent is grave only when the first clauses share no content word: "maximum
    // number of results" -> "page index". "Number of search results" -> "Number of Wikipedia
    // articles" narrows the wording of the same count (measured on the dev edits: a shared word
    // makes it cosmetic about half the time).
    let disjoint = ha.iter().all(|w| !hb.contains(w));
    if let (true, Some((na, pa)), Some((nb, pb))) = (from_start, head::head_noun(&a), head::head_noun(&b)) {
        let anywhere = |r: &facts::Reading, w: &String| r.words.iter().any(|x| &x.norm == w);
        let moved = anywhere(&b, &na) && anywhere(&a, &nb);
        if na != nb && !moved && !first_words(&b).contains(&na) && !first_words(&a).contains(&nb) {
            let grave = disjoint || head::count_became_position(&ha, &hb);
            changes.push(FactChange {
                kind: FactKind::Denotes,
                old: Some(pa),
                new: Some(pb),
                grave,
                minor: !grave,
                label: FactKind::Denotes.label(),
            });
        }
    }
    let defaults = (stated_default(&wa), stated_default(&wb));
    let (fa, fb) = (facts::facts(&a, defaults.0.clone()), facts::facts(&b, defaults.1.clone()));
    let key = |f: &Fact| (f.kind, if f.kind == FactKind::Literal { literal_key(&f.key) } else { f.key.clone() });
    let (ka, kb): (BTreeSet<_>, BTreeSet<_>) = (fa.iter().map(key).collect(), fb.iter().map(key).collect());
    let mut removed: Vec<&Fact> = dedup(fa.iter().filter(|f| !kb.contains(&key(f))));
    let mut added: Vec<&Fact> = dedup(fb.iter().filter(|f| !ka.contains(&key(f))));
    restated_quantities(&mut removed, &mut added);
    lone_mentions(&mut removed, &mut added);
    let kinds: BTreeSet<FactKind> = removed.iter().chain(&added).map(|f| f.kind).collect();
    for kind in kinds {
        let gone: Vec<&&Fact> = removed.iter().filter(|f| f.kind == kind).collect();
        let came: Vec<&&Fact> = added.iter().filter(|f| f.kind == kind).collect();
        for i in 0..gone.len().max(came.len()) {
            let (o, n) = (gone.get(i), came.get(i));
            let (grave, minor) = weigh(kind, o.map(|f| &***f), n.map(|f| &***f));
            let role = [o, n].into_iter().flatten().map(|f| f.key.split(' ').next().unwrap_or("")).next();
            let label = match (kind, role) {
                (FactKind::Number, Some("at")) => {
                    if [o, n].into_iter().flatten().any(|f| f.key.starts_with("at most")) { "limit" } else { "minimum" }
                }
                (FactKind::Number, Some("default")) => "default",
                (FactKind::Number, Some("range")) => "range",
                _ => kind.label(),
            };
            changes.push(FactChange {
                kind,
                old: o.map(|f| f.shown.clone()),
                new: n.map(|f| f.shown.clone()),
                grave,
                minor,
                label,
            });
        }
    }
    cut_to_summary(a.words.len(), b.words.len(), &mut changes);
    aligned(&wa, &wb, &mut changes);
    scope_and_boundary(&wa, &wb, &mut changes);
    // An obligation or negation restated in other words ("Binary files are not supported" -> "Only
    // text files are supported"): one went, another came; what a call must do is the same.
    if changes.iter().any(|c| matches!(c.kind, FactKind::Obligation | FactKind::Negation) && c.new.is_none()) {
        for c in &mut changes {
            if matches!(c.kind, FactKind::Obligation | FactKind::Negation) && c.old.is_none() && !c.grave {
                c.minor = true;
            }
        }
    }
    settle(&wa, &wb, &mut changes);
    // "Defaults to 30" is read as a stated default and as a number in the role of a default: one fact.
    if changes.iter().any(|c| c.kind == FactKind::Default) {
        changes.retain(|c| !(c.kind == FactKind::Number && c.label == "default"));
    }
    // Two markers in one clause ("ignored otherwise") are one change as shown.
    let mut shown = BTreeSet::new();
    changes.retain(|c| shown.insert(c.to_string()));
    // What a finding's message names first: the grave facts.
    changes.sort_by_key(|c| !c.grave);
    let meaning = !changes.is_empty();
    let trigger = if meaning {
        summary(&changes.iter().collect::<Vec<_>>())
    } else if mended {
        "typo fix".to_owned()
    } else if old.split_whitespace().eq(new.split_whitespace()) {
        "whitespace only".to_owned()
    } else {
        "every fact is the same".to_owned()
    };
    changes.truncate(MAX_CHANGES);
    Verdict { meaning, changes, trigger, diff, defaults }
}

/// The parts of two descriptions that are read: the whole texts when they are short; for long texts,
/// what lies between their common start and common end, with [`CONTEXT`] characters around it, so an
/// edit at the end of a megabyte description is read and the cost stays bounded. The flag says
/// whether the window starts at the beginning (only then is the first clause compared).
fn window(old: &str, new: &str) -> (String, String, bool) {
    /// The most characters read from each side.
    const LIMIT: usize = 16 * 1024;
    /// Unchanged characters kept before and after the changed part.
    const CONTEXT: usize = 2048;
    if old.len() <= LIMIT && new.len() <= LIMIT {
        return (old.to_owned(), new.to_owned(), true);
    }
    let (a, b): (Vec<char>, Vec<char>) = (old.chars().collect(), new.chars().collect());
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..].iter().rev().zip(b[prefix..].iter().rev()).take_while(|(x, y)| x == y).count();
    let start = prefix.saturating_sub(CONTEXT);
    let cut = |s: &[char]| -> String {
        let end = (s.len() - suffix + CONTEXT).min(s.len());
        s[start..end].iter().take(LIMIT).collect()
    };
    (cut(&a), cut(&b), start == 0)
}

/// A description cut down to a summary keeps what it told (see the comment inside).
fn cut_to_summary(old_words: usize, new_words: usize, changes: &mut Vec<FactChange>) {
    // A description cut down to a summary drops explanations and lists: when every changed fact is
    // only gone (none added, none changed) and the text lost a quarter of its words or more, what it was told
    // still holds; nothing new is asked of it. A removed default, unit or limit still counts.
    let shortened = new_words * 4 < old_words * 3;
    if shortened
        && changes.iter().all(|c| {
            c.new.is_none()
                && !matches!(c.kind, FactKind::Default | FactKind::Unit | FactKind::Negation)
                && (c.kind != FactKind::Number || !c.grave)
                // A named parameter that is gone from the text is not an explanation cut short.
                && !(c.kind == FactKind::Literal && c.old.as_deref().is_some_and(|o| o.starts_with('`')))
        })
    {
        changes.clear();
    }
}

/// How much a changed fact weighs: `(grave, minor)`. A fact stated on both sides with another value is
/// grave for the kinds an old call acts on (a limit, a unit, a default, the scope); a destructive side
/// effect added or dropped is grave; a fact only added documents (a warning); a fact only dropped, a
/// named literal, a reworded negation change nothing an old call does (info).
fn weigh(kind: FactKind, old: Option<&Fact>, new: Option<&Fact>) -> (bool, bool) {
    let both = old.is_some() && new.is_some();
    match kind {
        FactKind::Number => {
            let plain = [old, new].into_iter().flatten().all(|f| f.role() == "number");
            let same_role = matches!((old, new), (Some(a), Some(b)) if a.role() == b.role());
            (both && !plain && same_role, old.is_some() && new.is_none())
        }
        // A unit named or not (for a value that has one) is documentation; a changed unit is grave.
        FactKind::Unit => (both, !both),
        // A default restated with another value is grave when an omitted argument now selects another
        // behaviour ("defaults to draft" -> "published"); another amount of the same kind (a page size
        // 5 -> 8, a timeout 30 s -> 60 s) changes how much, not what: a warning, as a changed numeric
        // `default` keyword is (issue #31: exa's three `numResults` default changes, labelled harmless).
        FactKind::Default => {
            let amount = |f: Option<&Fact>| f.and_then(Fact::quantity).map(|q| q.dim);
            let same_kind_of_amount = amount(old).is_some() && amount(old) == amount(new);
            (both && !same_kind_of_amount, new.is_none())
        }
        FactKind::Scope => (both, new.is_none()),
        FactKind::SideEffect => {
            // A destructive action added, dropped, or now denied ("kept" -> "deleted"); two wordings of
            // actions that destroy nothing ("halts" -> "stops") change nothing a caller relies on.
            let verb = |f: &Fact| f.action().to_owned();
            let destructive =
                [old, new].into_iter().flatten().any(|f| lexicon::DESTRUCTIVE.contains(&verb(f).as_str()));
            let denied = |f: Option<&Fact>| f.is_some_and(|f| f.key.starts_with("not "));
            let mention = [old, new].into_iter().flatten().any(|f| f.key.starts_with("mention "));
            // Added or dropped as the tool's action, or denied on one side and affirmed on the other.
            let flipped = if both { denied(old) != denied(new) } else { !mention && !denied(old) && !denied(new) };
            (destructive && flipped, !(destructive && flipped))
        }
        FactKind::Obligation => (false, new.is_none()),
        FactKind::Negation | FactKind::Literal => (false, true),
        FactKind::Denotes | FactKind::Direction | FactKind::Mapping => (true, false),
    }
}

/// Removes number and default facts whose value is only restated: the same role and the same quantity in
/// another unit or number form ("up to 2 GiB" = "up to 2,147,483,648 bytes", "90000" ms = "90
/// seconds").
fn restated_quantities(removed: &mut Vec<&Fact>, added: &mut Vec<&Fact>) {
    let mut i = 0;
    while i < removed.len() {
        let r = removed[i];
        let twin = r.quantity().and_then(|q| {
            added
                .iter()
                .position(|a| a.kind == r.kind && a.role() == r.role() && a.quantity().is_some_and(|aq| aq.same(&q)))
        });
        if let Some(j) = twin {
            removed.remove(i);
            added.remove(j);
        } else {
            i += 1;
        }
    }
}

/// What only an alignment of the two texts shows: an opposite swapped in, a negation flipped, two terms
/// traded around an ordering word, a mapping reassigned. Each is grave, unless a changed fact already
/// names it ("defaults to open -> defaults to closed").
fn aligned(old: &str, new: &str, changes: &mut Vec<FactChange>) {
    for a in align::changes(old, new) {
        let (kind, label) = match a.what {
            align::AlignedKind::Opposite => (FactKind::Direction, "opposite"),
            align::AlignedKind::Swap => (FactKind::Direction, "order"),
            align::AlignedKind::Polarity => (FactKind::Negation, "negation flipped"),
            align::AlignedKind::Mapping => (FactKind::Mapping, "mapping"),
        };
        let named =
            |t: &Option<String>, w: &str| t.as_deref().is_some_and(|t| t.to_lowercase().contains(&w.to_lowercase()));
        if changes.iter().any(|c| c.grave && named(&c.old, &a.old) && named(&c.new, &a.new)) {
            continue;
        }
        changes.push(FactChange { kind, old: Some(a.old), new: Some(a.new), grave: true, minor: false, label });
    }
}

/// Words that restrict whom or what a call reaches.
const RESTRICT: &[&str] = &["only", "current", "own", "solely", "just"];
/// Words that reach everyone or everything.
const UNIVERSAL: &[&str] = &["all", "every", "any", "regardless", "across", "entire", "whole", "everyone"];
/// The markers of an inclusive or exclusive range end.
const ENDS: &[&str] = &[
    " inclusive",
    " exclusive",
    " strictly ",
    " or equal",
    " on or after ",
    " on or before ",
    " and including ",
    " not including ",
];

/// The first word of `set` that `x` has and `y` does not.
fn gone(set: &[&'static str], x: &BTreeSet<String>, y: &BTreeSet<String>) -> Option<&'static str> {
    set.iter().find(|w| x.contains(**w) && !y.contains(**w)).copied()
}

/// Who or what a call reaches, and where a range ends: grave when the words that bound it change.
///
/// - Scope widened or narrowed: a restriction ("only", "current", "your own") gone and a universal
///   ("all", "every", "any", "regardless", "across") come, or the reverse: "Only messages you sent are
///   deleted" -> "All messages are deleted, regardless of author".
/// - A range end flipped: the markers of an inclusive or exclusive end ("inclusive", "exclusive",
///   "strictly", "or equal", "on or after", "before") differ: "both inclusive" -> "on or after `start`
///   and before `end`".
fn scope_and_boundary(old: &str, new: &str, changes: &mut Vec<FactChange>) {
    let words = |t: &str| -> BTreeSet<String> {
        t.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
    };
    let (a, b) = (words(old), words(new));
    // Only where the text was edited, not rewritten: a rewrite says its scope in other words.
    let shared = a.intersection(&b).count();
    if shared * 2 < a.len().max(b.len()) {
        return;
    }
    // By class: "every room" -> "all rooms" is the same universal.
    let has = |set: &[&str], x: &BTreeSet<String>| set.iter().any(|w| x.contains(*w));
    let class_moved = |from: &[&str], to: &[&str]| has(from, &a) && !has(from, &b) && has(to, &b) && !has(to, &a);
    let widened = gone(RESTRICT, &a, &b).zip(gone(UNIVERSAL, &b, &a)).filter(|_| class_moved(RESTRICT, UNIVERSAL));
    let narrowed = gone(UNIVERSAL, &a, &b).zip(gone(RESTRICT, &b, &a)).filter(|_| class_moved(UNIVERSAL, RESTRICT));
    if let Some((x, y)) = widened.or(narrowed) {
        changes.push(FactChange {
            kind: FactKind::Scope,
            old: Some(format!("`{x}`")),
            new: Some(format!("`{y}`")),
            grave: true,
            minor: false,
            label: if widened.is_some() { "scope widened" } else { "scope narrowed" },
        });
    }
    let lower = |t: &str| format!(" {} ", t.to_lowercase().split_whitespace().collect::<Vec<_>>().join(" "));
    let (la, lb) = (lower(old).replace("mutually exclusive", ""), lower(new).replace("mutually exclusive", ""));
    let ends = |t: &str| ENDS.iter().filter(|m| t.contains(**m)).map(|m| m.trim()).collect::<Vec<_>>();
    let (ea, eb) = (ends(&la), ends(&lb));
    if ea != eb {
        // Both state an end and they differ: grave. Only one states it: documented or dropped, a warning.
        let show = |e: &[&str]| if e.is_empty() { "(not stated)".to_owned() } else { e.join(", ") };
        changes.push(FactChange {
            kind: FactKind::Direction,
            old: Some(show(&ea)),
            new: Some(show(&eb)),
            grave: !ea.is_empty() && !eb.is_empty(),
            minor: false,
            label: "range end",
        });
    }
}

/// An irreversible action mentioned or denied outside the tool's leading sentence ("before overwriting
/// it", "the file is kept") is a fact only against its opposite on the other side ("kept" -> "deleted
/// once uploaded"); alone it is explanation.
fn lone_mentions(removed: &mut Vec<&Fact>, added: &mut Vec<&Fact>) {
    let verb = |f: &Fact| f.action().to_owned();
    let side =
        |f: &Fact| f.kind == FactKind::SideEffect && (f.key.starts_with("not ") || f.key.starts_with("mention "));
    let denied = |f: &Fact| f.key.starts_with("not ");
    let answered = |f: &Fact, other: &[&Fact]| {
        other.iter().any(|o| o.kind == FactKind::SideEffect && verb(o) == verb(f) && denied(o) != denied(f))
    };
    let (r0, a0) = (removed.clone(), added.clone());
    removed.retain(|f| !side(f) || answered(f, &a0));
    added.retain(|f| !side(f) || answered(f, &r0));
}

/// The weights that depend on the whole texts: documentation only appended is info, a deprecation
/// notice is one warning, and several stated defaults are not paired as a proven change.
fn settle(old: &str, new: &str, changes: &mut Vec<FactChange>) {
    // Documentation added around an unchanged text (a usage hint, an example, a "Returns ..."
    // sentence): what it adds is shown at `info`; a grave fact, an obligation (a warning: calls that
    // ignore it may now be refused) and a deprecation keep their weight.
    if only_added_sentences(old, new) {
        for c in changes.iter_mut().filter(|c| c.old.is_none() && !c.grave && c.kind != FactKind::Obligation) {
            c.minor = true;
        }
    }
    deprecation(old, new, changes);
    // A text that states several defaults (a tool description documenting its parameters) pairs them
    // by position only: a changed default there is a prompt to review, not a proven change.
    let defaults_in = |t: &str| t.to_lowercase().matches("default").count();
    if defaults_in(old) > 1 || defaults_in(new) > 1 {
        for c in changes.iter_mut().filter(|c| c.kind == FactKind::Default || c.label == "default") {
            c.grave = false;
        }
    }
}

/// Whether the new text keeps every sentence of the old one (in order, compared without case, spacing
/// and markup) and only adds sentences.
fn only_added_sentences(old: &str, new: &str) -> bool {
    let sentences = |t: &str| -> Vec<String> {
        t.split(['.', '!', '?', '\n'])
            .map(|s| s.chars().filter(|c| c.is_alphanumeric() || *c == ' ').collect::<String>().to_lowercase())
            .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|s| !s.is_empty())
            .collect()
    };
    let (a, b) = (sentences(old), sentences(new));
    if a.is_empty() || b.len() <= a.len() {
        return false;
    }
    let mut rest = b.iter();
    a.iter().all(|s| rest.any(|t| t == s))
}

/// A deprecation notice added to a tool that still works: one warning that names the successor, in
/// place of the facts the notice itself states (its `instead`, the successor's name).
fn deprecation(old: &str, new: &str, changes: &mut Vec<FactChange>) {
    let deprecated = |t: &str| {
        let t = t.to_lowercase();
        t.contains("deprecated") || t.contains("deprecation")
    };
    if deprecated(old) || !deprecated(new) {
        return;
    }
    let successor = facts::successor(new);
    // The notice is not what the tool denotes, and its `instead` and the successor's name are the notice.
    changes.retain(|c| {
        if matches!(c.kind, FactKind::Obligation | FactKind::Literal) && c.old.is_none() {
            return false;
        }
        let notice = c.new.as_deref().is_some_and(|n| n.to_lowercase().contains("deprecat"));
        c.kind != FactKind::Denotes || !notice
    });
    changes.push(FactChange {
        kind: FactKind::Obligation,
        old: None,
        new: Some(successor.map_or_else(|| "deprecated".to_owned(), |s| format!("deprecated; use {s}"))),
        grave: false,
        minor: false,
        label: "deprecation",
    });
}

/// The first two changed facts, and how many more: what a finding's message names.
#[must_use]
pub fn summary(changes: &[&FactChange]) -> String {
    let mut t = changes.iter().take(2).map(ToString::to_string).collect::<Vec<_>>().join("; ");
    if changes.len() > 2 {
        let _ = write!(t, "; and {} more", changes.len() - 2);
    }
    t
}

/// Literal values compare without case and separators: `pull_number` and `pullNumber` are one name.
fn literal_key(s: &str) -> String {
    s.chars().filter(|c| !matches!(c, '_' | '-')).flat_map(char::to_lowercase).collect()
}

fn dedup<'f>(facts: impl Iterator<Item = &'f Fact>) -> Vec<&'f Fact> {
    let mut seen = BTreeSet::new();
    facts.filter(|f| seen.insert((f.kind, f.key.clone()))).collect()
}

/// A git-style word diff, `[-old-]{+new+}`: every changed part with the unchanged words beside it;
/// long unchanged runs are elided (`…`), and a changed run longer than [`RUN_LIMIT`] characters keeps
/// its start and end. Bounded: a megabyte of rewritten prose yields a few kilobytes.
#[must_use]
pub fn word_diff(old: &str, new: &str) -> String {
    /// Unchanged words kept on each side of a change; longer unchanged runs are elided.
    const CONTEXT: usize = 6;
    /// A diff up to this long is shown whole.
    const SHORT: usize = 240;
    // Myers' diff is quadratic in the worst case; a megabyte of rewritten prose must not stall a run.
    let diff = TextDiff::configure().timeout(std::time::Duration::from_millis(200)).diff_words(old, new);
    // Runs of one tag, with their text.
    let mut runs: Vec<(ChangeTag, String)> = Vec::new();
    for change in diff.iter_all_changes() {
        match runs.last_mut() {
            Some((tag, text)) if *tag == change.tag() => text.push_str(change.value()),
            _ => runs.push((change.tag(), change.value().to_owned())),
        }
    }
    for (tag, text) in &mut runs {
        if *tag != ChangeTag::Equal && text.chars().count() > RUN_LIMIT {
            let head: String = text.chars().take(RUN_LIMIT / 2).collect();
            let tail: String = text.chars().skip(text.chars().count() - RUN_LIMIT / 4).collect();
            *text = format!("{head} … {tail}");
        }
    }
    // At most `MAX_RUNS` changed runs are shown; the rest are counted.
    let changed = runs.iter().filter(|(t, _)| *t != ChangeTag::Equal).count();
    let mut more = String::new();
    if changed > MAX_RUNS {
        let mut seen = 0;
        let cut = runs
            .iter()
            .position(|(t, _)| {
                seen += usize::from(*t != ChangeTag::Equal);
                seen > MAX_RUNS
            })
            .unwrap_or(runs.len());
        runs.truncate(cut);
        more = format!(" … ({} more changed parts)", changed - MAX_RUNS);
    }
    let full = render_runs(&runs, usize::MAX);
    let flat = if full.chars().count() <= SHORT { full } else { render_runs(&runs, CONTEXT) };
    escape(&format!("{flat}{more}"))
}

/// The most changed runs [`word_diff`] shows.
const MAX_RUNS: usize = 40;

/// The longest changed run [`word_diff`] shows whole.
const RUN_LIMIT: usize = 400;

/// [`word_diff`]'s text of the runs, keeping `context` unchanged words beside each change.
fn render_runs(runs: &[(ChangeTag, String)], context: usize) -> String {
    let last = runs.len().saturating_sub(1);
    let mut out = String::new();
    for (i, (tag, text)) in runs.iter().enumerate() {
        let words: Vec<&str> = text.split_whitespace().collect();
        let (lead, trail) = (text.starts_with(char::is_whitespace), text.ends_with(char::is_whitespace));
        let body = match tag {
            ChangeTag::Equal => {
                // Only the words next to a change are shown: a long description's edit stays visible.
                let keep_head = if i == 0 { 0 } else { context };
                let keep_tail = if i == last { 0 } else { context };
                if runs.len() == 1 || words.len() <= keep_head.saturating_add(keep_tail).saturating_add(1) {
                    words.join(" ")
                } else {
                    let mut parts: Vec<String> = Vec::new();
                    if keep_head > 0 {
                        parts.push(words[..keep_head].join(" "));
                    }
                    parts.push("…".to_owned());
                    if keep_tail > 0 {
                        parts.push(words[words.len() - keep_tail..].join(" "));
                    }
                    parts.join(" ")
                }
            }
            // A change of whitespace only shows as a space: in prose it carries no word.
            _ if words.is_empty() => String::new(),
            ChangeTag::Delete => format!("[-{}-]", words.join(" ")),
            ChangeTag::Insert => format!("{{+{}+}}", words.join(" ")),
        };
        if lead && !out.is_empty() && !out.ends_with(' ') {
            out.push(' ');
        }
        out.push_str(&body);
        if (trail || (body.is_empty() && !text.is_empty())) && i != last && !out.ends_with(' ') {
            out.push(' ');
        }
    }
    out.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_meaning(a: &str, b: &str) -> bool {
        classify(a, b).meaning
    }

    #[test]
    fn cosmetic_edits() {
        assert!(!is_meaning("Search  issues.", "search issues"));
        assert!(!is_meaning("List the **open** pull requests", "List the open pull requests."));
        assert!(!is_meaning("Retrieve a repositroy by name", "Retrieve a repository by name"));
        assert!(!is_meaning("Lists issues. Supports paging.", "Supports paging. Lists issues."));
    }

    #[test]
    fn meaning_edits() {
        assert_eq!(
            classify("Max 100 results", "Max 50 results").trigger,
            "limit: at most 100 results -> at most 50 results"
        );
        assert!(is_meaning("Maximum number of results", "Page index"));
        assert!(is_meaning("Deletes the branch", "Deletes the branch. Must not be main"));
        assert!(is_meaning("Defaults to open", "Defaults to closed"));
        assert!(is_meaning("The issue state", "The issue state. Don't pass drafts"));
    }

    #[test]
    fn diff_is_readable() {
        assert_eq!(word_diff("Max 100 results", "Max 50 results"), "Max [-100-]{+50+} results");
        // A long description: the change is shown with its neighbouring words, the rest elided.
        let prefix = "word ".repeat(200);
        let suffix = " tail".repeat(200);
        let diff =
            word_diff(&format!("{prefix}at most 100 results{suffix}"), &format!("{prefix}at most 50 results{suffix}"));
        assert_eq!(diff, "… word word word word at most [-100-]{+50+} results tail tail tail tail tail …");
    }
}

#[cfg(test)]
mod facts_tests {
    use super::*;

    fn said(a: &str, b: &str) -> String {
        let v = classify(a, b);
        if v.meaning {
            v.changes.iter().map(ToString::to_string).collect::<Vec<_>>().join(" | ")
        } else {
            format!("cosmetic: {}", v.trigger)
        }
    }

    #[test]
    fn wording_changes_no_fact() {
        for (a, b, why) in [
            ("Retreive a pull request", "Retrieve a pull request", "typo fix"),
            ("List repos in an org", "List repositories in an organization", "every fact is the same"),
            (
                "Search code (e.g. `stars:>1000`)",
                "Search code (e.g. `stars:>500 language:go`)",
                "every fact is the same",
            ),
            ("Maximum number of results to return", "Max results to return", "every fact is the same"),
            (
                "Number of results (must be a number, default: 10)",
                "Number of results (default: 10)",
                "every fact is the same",
            ),
            (
                "Use this tool when you need to: 1) view apps, 2) check plans",
                "Use this tool when you need to view apps or check plans",
                "every fact is the same",
            ),
            ("Search GitHub issues", "Search issues on GitHub", "every fact is the same"),
        ] {
            assert_eq!(said(a, b), format!("cosmetic: {why}"), "{a:?} -> {b:?}");
        }
    }

    #[test]
    fn each_changed_fact_is_named() {
        for (a, b, facts, grave) in [
            (
                "The maximum number of results",
                "The page index",
                "denotes: maximum number of results -> page index",
                true,
            ),
            ("Max 100 results", "Max 50 results", "limit: at most 100 results -> at most 50 results", true),
            ("Timeout in seconds", "Timeout in milliseconds", "unit: seconds -> milliseconds", true),
            (
                "The commit to read.",
                "The commit to read. Required when `sha` is set.",
                "obligation added: Required when `sha` is set | literal added: `sha`",
                // Documents a requirement: a warning (issue #31), not an error.
                false,
            ),
            ("Defaults to open", "Defaults to closed", "default: defaults to open -> defaults to closed", true),
            (
                "Returns the file",
                "Returns the file and deletes it",
                "side effect added: Returns the file and deletes it",
                // A destructive side effect added: an old call now deletes (issue #31).
                true,
            ),
            ("Includes drafts", "Does not include drafts", "negation added: Does not include drafts", false),
            (
                "Level: debug, info, warn or error.",
                "Level: info, warn or error.",
                "literal removed: value debug",
                false,
            ),
        ] {
            assert_eq!(said(a, b), facts, "{a:?} -> {b:?}");
            assert_eq!(classify(a, b).grave(), grave, "{a:?} -> {b:?}");
        }
    }
}
#[cfg(test)]
mod red_team {
    use super::classify;

    /// Cases a blind red-team pass found: each was called wrong before.
    #[test]
    fn found_by_the_red_team() {
        for (a, b, meaning) in [
            (
                "List pull requests in a repository. Does not include drafts.",
                "List pull requests in a repository.",
                true,
            ),
            ("Does not include pull requests.", "Includes pull requests.", true),
            ("Get a file's contents.", "Get a file's contents. Deletes the file after reading.", true),
            ("(default: 30, max: 100)", "(default 30, maximum 100)", false),
            ("Content, base64 encoded.", "Content, base64-encoded.", false),
            ("An ISO 8601 timestamp.", "An ISO-8601 timestamp.", false),
            ("Case insensitive.", "It is case-insensitive.", false),
            ("List issues.", "(GitHub) List issues.", false),
            ("List issues.", "[Read-only] List issues.", false),
        ] {
            assert_eq!(classify(a, b).meaning, meaning, "{a:?} -> {b:?}: {}", classify(a, b).trigger);
        }
    }

    #[test]
    fn literals_are_shown_as_written() {
        let v = classify("Filter by state.", "Filter by state. Use `closedByPullRequests` for links.");
        assert!(v.trigger.contains("`closedByPullRequests`"), "{}", v.trigger);
    }
}
#[cfg(test)]
mod placeholders {
    use super::classify;

    #[test]
    fn template_placeholders_and_identifiers_are_not_numbers() {
        let v = classify("Move files.", "Move files. ${PATH_GUIDANCE}");
        assert!(!v.meaning, "{}", v.trigger);
        let v = classify("The asset ID.", "The asset ID (e.g. 12345678-1234-1234-1234-123456789012).");
        assert!(!v.meaning, "{}", v.trigger);
        let v = classify("The asset ID.", "The asset ID, in UUID format: 12345678-1234-1234-1234-123456789012.");
        assert!(v.meaning && !v.trigger.contains("number"), "{}", v.trigger);
    }
}
#[cfg(test)]
mod red_team_two {
    use super::classify;

    /// Cosmetic edits a second blind red-team pass found failing the gate.
    #[test]
    fn quoting_and_spelling_a_default_changes_no_fact() {
        for (a, b) in [
            ("Results per page, default 30.", "Results per page, default `30`."),
            ("Max 100 items.", "Max `100` items."),
            ("Timeout in seconds (default 30).", "Timeout in seconds. Defaults to 30 seconds."),
            ("Page size. Default: 30", "Page size. Default: 30<br>"),
            ("Page size. Default: 30", "Page size. Default: 30 — see docs"),
        ] {
            let v = classify(a, b);
            assert!(!v.meaning, "{a:?} -> {b:?}: {}", v.trigger);
        }
    }
}
