//! String patterns as automata: emptiness and inclusion of JSON Schema `pattern` languages.
//!
//! Takes ECMA-262 regular expressions as JSON Schema writes them (`pattern`, `patternProperties` and
//! `propertyNames` keys). A pattern is a search, not a full match: the language of `p` is every
//! string with a substring matching `p` (`"a"` matches `"xay"`), with `^` / `$` anchoring at the very
//! start / end (no multiline). Returns, through [`find`] and [`subset`], a witness string, a proof
//! that none exists, or [`Unsupported`] saying why the question stays open.
//!
//! Promises:
//! - **Two engines, one answer.** Each pattern is compiled twice: once exactly as the `jsonschema`
//!   validator runs it (its own ECMA-to-Rust translation, `jsonschema_regex::to_rust_regex`: `\d` =
//!   `[0-9]`, `\w` = `[A-Za-z0-9_]`, `\s` = ECMA white space and line terminators, `.` rejects
//!   `\n \r \u2028 \u2029`, `$` = end of input), and once as Python's `re.search` reads it (the
//!   independent oracle, python `jsonschema`: Unicode `\d` / `\w` / `\s`, `.` rejects only `\n`, `$`
//!   also matches before a final `\n`). A witness satisfies both readings; "none exists" holds under
//!   both; when the readings disagree the answer is [`Unsupported::EnginesDisagree`], never a guess.
//!   Python's `\w` is modelled as letters, numbers and `_` (`str.isalnum`); Unicode-version drift
//!   between the two tables is the residual risk on non-ASCII characters.
//! - **Regular or nothing.** Lookarounds, backreferences and word boundaries (`\b`, `\B`: ASCII in
//!   the validator's translation is not guaranteed, Unicode in Python) are [`Unsupported`]; so are
//!   modifier groups (`(?i:...)`: the engines fold case differently) and anything that is not valid
//!   ECMA-262.
//! - **Bounded.** Patterns over [`MAX_PATTERN_BYTES`] are refused, each DFA is built under
//!   `regex-automata`'s size limits, and the product search has a fixed step budget; hitting any
//!   limit is [`Unsupported::TooLarge`], never a hang or a large allocation. Witnesses longer than
//!   [`MAX_WITNESS_CHARS`] code points are not built (also `TooLarge`).
//! - Witnesses are shortest and prefer printable ASCII (letters, then digits, then punctuation).

use std::collections::hash_map::Entry;
use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::fmt::{self, Write as _};

use regex_automata::dfa::{Automaton, StartKind, dense};
use regex_automata::nfa::thompson::{self, WhichCaptures};
use regex_automata::util::primitives::StateID;
use regex_automata::util::start;
use regex_automata::{Anchored, MatchKind};
use regex_syntax::ast::ErrorKind;
use regex_syntax::hir::{Class, Dot, Hir, HirKind, Look, Repetition};

/// Patterns longer than this (in bytes) are not analysed: real ones are far shorter, and the
/// validator's translation does work quadratic in the pattern length.
pub const MAX_PATTERN_BYTES: usize = 4096;
/// Longest witness [`find`] builds, in code points.
pub const MAX_WITNESS_CHARS: u64 = 10_000;
/// Size limit for each DFA and for its determinization, in bytes.
const DFA_SIZE_LIMIT: usize = 1 << 20;
/// Size limit for each Thompson NFA, in bytes.
const NFA_SIZE_LIMIT: usize = 1 << 20;
/// Nesting limit handed to the regex parser and to the walks over its output.
const NEST_LIMIT: u32 = 200;
/// Product search budget: transitions computed (product states expanded times alphabet atoms).
const STEP_BUDGET: usize = 2_000_000;
/// Distinct alphabet atoms (code point ranges that every pattern treats alike).
const MAX_ATOMS: usize = 8192;

/// Why a pattern cannot be reasoned about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unsupported {
    /// `(?=`, `(?!`, `(?<=`, `(?<!`: not regular in this engine.
    Lookaround,
    /// `\1`, `\k<name>`: not regular.
    Backreference,
    /// `\b` / `\B`: ASCII in ECMA-262, Unicode in the validator's and Python's engines.
    WordBoundary,
    /// Not a valid ECMA-262 regular expression, or syntax the validator's engine rejects; the text
    /// says which (it never quotes the pattern).
    Syntax(String),
    /// A size or work limit was hit (pattern length, DFA size, search budget, witness length).
    TooLarge,
    /// The validator's engine and Python's `re` read a construct differently in a way that changes
    /// this answer (for example `\d` against `[0-9]`), or the construct cannot be read the Python
    /// way here (a `$` followed by more pattern or under a repetition).
    EnginesDisagree,
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unsupported::Lookaround => f.write_str("the pattern uses a lookaround"),
            Unsupported::Backreference => f.write_str("the pattern uses a backreference"),
            Unsupported::WordBoundary => f.write_str("the pattern uses a word boundary (\\b or \\B)"),
            Unsupported::Syntax(why) => write!(f, "the pattern is not a supported regex: {why}"),
            Unsupported::TooLarge => f.write_str("the pattern is too large to decide"),
            Unsupported::EnginesDisagree => {
                f.write_str("ECMA-262 and Python regex engines read the pattern differently here")
            }
        }
    }
}

impl std::error::Error for Unsupported {}

/// Is there a string whose length in Unicode code points is within `min_len..=max_len` (no upper
/// bound when `None`) that matches every pattern in `yes` and no pattern in `no`?
/// `Ok(Some(s))`: yes, and `s` is such a string (shortest; printable ASCII when one exists).
/// `Ok(None)`: proven that no such string exists.
///
/// # Errors
/// Cannot decide: unsupported syntax, or the automaton/budget limit was hit.
pub fn find(yes: &[&str], no: &[&str], min_len: u64, max_len: Option<u64>) -> Result<Option<String>, Unsupported> {
    match search(BOTH, yes, no, min_len, max_len)? {
        Outcome::Both(witness) => Ok(Some(witness)),
        Outcome::Neither => Ok(None),
        Outcome::Separately | Outcome::One => Err(Unsupported::EnginesDisagree),
    }
}

/// Does every string matching all of `sub` also match `sup`? (`find(sub, [sup], 0, None)` is empty.)
///
/// # Errors
/// As [`find`].
///
/// Both engines finding a counterexample (even different ones) answers `false`.
pub fn subset(sub: &[&str], sup: &str) -> Result<bool, Unsupported> {
    match search(BOTH, sub, &[sup], 0, None)? {
        Outcome::Both(_) | Outcome::Separately => Ok(false),
        Outcome::Neither => Ok(true),
        Outcome::One => Err(Unsupported::EnginesDisagree),
    }
}

const BOTH: &[Engine] = &[Engine::Validator, Engine::Python];

/// What the product search found, over the engines it was asked about.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    /// A string every engine's reading accepts.
    Both(String),
    /// Every engine accepts some string, but no single string suits them all.
    Separately,
    /// Some engines accept a string, others accept none.
    One,
    /// No engine accepts any string: proven empty.
    Neither,
}

fn search(
    engines: &[Engine],
    yes: &[&str],
    no: &[&str],
    min_len: u64,
    max_len: Option<u64>,
) -> Result<Outcome, Unsupported> {
    let mut machines = Vec::with_capacity(2 * (yes.len() + no.len()));
    for (patterns, wanted) in [(yes, true), (no, false)] {
        for pattern in patterns {
            let [ecma, python] = readings(pattern)?;
            for (hir, engine) in [(ecma, Engine::Validator), (python, Engine::Python)] {
                if engines.contains(&engine) {
                    machines.push(Machine::build(&hir, engine, wanted)?);
                }
            }
        }
    }
    if max_len.is_some_and(|max| max < min_len) {
        return Ok(Outcome::Neither);
    }
    Search::new(machines, engines)?.run(min_len, max_len)
}

/// Whether `pattern` is in the fragment this module decides (regular, supported, within limits).
#[must_use]
pub fn is_regular(pattern: &str) -> bool {
    readings(pattern).is_ok_and(|[ecma, python]| {
        Machine::build(&ecma, Engine::Validator, true).is_ok() && Machine::build(&python, Engine::Python, true).is_ok()
    })
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Engine {
    Validator,
    Python,
}

/// The pattern as the validator reads it and as Python reads it, each as a search-form HIR
/// (`(?s:.)* p (?s:.)*`, matched against the whole string).
fn readings(pattern: &str) -> Result<[Hir; 2], Unsupported> {
    if pattern.len() > MAX_PATTERN_BYTES {
        return Err(Unsupported::TooLarge);
    }
    if !jsonschema_regex::is_valid_ecma_regex(pattern) {
        return Err(lookaround_or(pattern, "not a valid ECMA-262 regular expression"));
    }
    let ecma = jsonschema_regex::to_rust_regex(pattern)
        .map_err(|()| lookaround_or(pattern, "not accepted by the validator's regex engine"))?;
    let ecma = parse(&ecma)?;
    let python = parse(&python_text(pattern)?).map_err(|e| match e {
        Unsupported::Syntax(_) => Unsupported::EnginesDisagree,
        other => other,
    })?;
    let python = python_dollar(&python, true, 0)?;
    Ok([search_form(ecma), search_form(python)])
}

/// The precise reason an ECMA pattern failed, when it is a construct we name.
fn lookaround_or(pattern: &str, why: &str) -> Unsupported {
    match parse(pattern) {
        Err(e @ (Unsupported::Lookaround | Unsupported::Backreference)) => e,
        _ => Unsupported::Syntax(why.to_owned()),
    }
}

fn parse(rust_pattern: &str) -> Result<Hir, Unsupported> {
    let hir =
        regex_syntax::ParserBuilder::new().nest_limit(NEST_LIMIT).build().parse(rust_pattern).map_err(
            |e| match &e {
                regex_syntax::Error::Parse(ast) => match ast.kind() {
                    ErrorKind::UnsupportedLookAround => Unsupported::Lookaround,
                    ErrorKind::UnsupportedBackreference => Unsupported::Backreference,
                    ErrorKind::NestLimitExceeded(_) => Unsupported::TooLarge,
                    kind => Unsupported::Syntax(kind.to_string()),
                },
                regex_syntax::Error::Translate(t) => Unsupported::Syntax(t.kind().to_string()),
                _ => Unsupported::Syntax("unrecognized regex error".to_owned()),
            },
        )?;
    check_looks(&hir, 0)?;
    Ok(hir)
}

/// Only `^` and `$` (start and end of input) are allowed as assertions.
fn check_looks(hir: &Hir, depth: u32) -> Result<(), Unsupported> {
    if depth > 2 * NEST_LIMIT {
        return Err(Unsupported::TooLarge);
    }
    match hir.kind() {
        HirKind::Look(
            Look::WordAscii
            | Look::WordAsciiNegate
            | Look::WordUnicode
            | Look::WordUnicodeNegate
            | Look::WordStartAscii
            | Look::WordEndAscii
            | Look::WordStartUnicode
            | Look::WordEndUnicode
            | Look::WordStartHalfAscii
            | Look::WordEndHalfAscii
            | Look::WordStartHalfUnicode
            | Look::WordEndHalfUnicode,
        ) => Err(Unsupported::WordBoundary),
        HirKind::Look(Look::StartLF | Look::EndLF | Look::StartCRLF | Look::EndCRLF) => {
            Err(Unsupported::Syntax("multi-line anchors".to_owned()))
        }
        HirKind::Class(Class::Bytes(_)) => Err(Unsupported::Syntax("byte classes".to_owned())),
        HirKind::Repetition(rep) => check_looks(&rep.sub, depth + 1),
        HirKind::Capture(cap) => check_looks(&cap.sub, depth + 1),
        HirKind::Concat(subs) | HirKind::Alternation(subs) => {
            subs.iter().try_for_each(|sub| check_looks(sub, depth + 1))
        }
        HirKind::Look(Look::Start | Look::End)
        | HirKind::Empty
        | HirKind::Literal(_)
        | HirKind::Class(Class::Unicode(_)) => Ok(()),
    }
}

/// Python's `\s` for `str` patterns (`str.isspace`), as Rust class items.
const PY_SPACE: &str = r"\t-\r\x1c-\x20\x85\xa0\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}";
/// Python's `\w` for `str` patterns (`str.isalnum()` or `_`), as Rust class items.
const PY_WORD: &str = r"\p{L}\p{Nd}\p{Nl}\p{No}_";

/// Rewrites an ECMA pattern so that, after the validator's translation, it means what Python's
/// `re` means by it: Unicode `\d` / `\w` / `\s`, and `.` matching everything but `\n`. `$` is
/// handled on the parsed form ([`python_dollar`]).
fn python_text(pattern: &str) -> Result<String, Unsupported> {
    let mut out = String::with_capacity(pattern.len() * 2);
    let mut in_class = false;
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(e) = chars.next() else {
                    return Err(Unsupported::Syntax("trailing backslash".to_owned()));
                };
                match (e, in_class) {
                    ('d', _) => out.push_str(r"\p{Nd}"),
                    ('D', _) => out.push_str(r"\P{Nd}"),
                    ('w', true) => out.push_str(PY_WORD),
                    ('s', true) => out.push_str(PY_SPACE),
                    ('W', true) => out.push_str(&complement(PY_WORD)?),
                    ('S', true) => out.push_str(&complement(PY_SPACE)?),
                    ('w' | 'W' | 's' | 'S', false) => {
                        out.push('[');
                        if e.is_ascii_uppercase() {
                            out.push('^');
                        }
                        out.push_str(if e.eq_ignore_ascii_case(&'w') { PY_WORD } else { PY_SPACE });
                        out.push(']');
                    }
                    _ => {
                        out.push('\\');
                        out.push(e);
                    }
                }
            }
            // ECMA-262 2025 modifier groups `(?i:...)`: case folding differs between the engines.
            '(' if !in_class && {
                let mut ahead = chars.clone();
                ahead.next() == Some('?') && ahead.next().is_some_and(|m| "imsx-".contains(m))
            } =>
            {
                return Err(Unsupported::Syntax("inline modifiers".to_owned()));
            }
            '[' if !in_class => {
                in_class = true;
                out.push('[');
            }
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            '.' if !in_class => out.push_str(r"[^\n]"),
            _ => out.push(c),
        }
    }
    Ok(out)
}

/// The complement of a set of class items, as class items (for `\W` / `\S` inside a class, where
/// a nested negated class would not survive the validator's translation).
fn complement(items: &str) -> Result<String, Unsupported> {
    let hir = regex_syntax::Parser::new().parse(&format!("[^{items}]")).map_err(|_| Unsupported::EnginesDisagree)?;
    let HirKind::Class(Class::Unicode(class)) = hir.kind() else {
        return Err(Unsupported::EnginesDisagree);
    };
    let mut out = String::new();
    for range in class.ranges() {
        let (lo, hi) = (u32::from(range.start()), u32::from(range.end()));
        // Writing to a `String` cannot fail.
        let _ = write!(out, "\\x{{{lo:x}}}-\\x{{{hi:x}}}");
    }
    Ok(out)
}

/// Python's `$` (no MULTILINE) matches at the end and before a final `\n`. Where nothing follows
/// the `$` in the pattern that is `\n?` then end of input; a `$` with more pattern after it (or
/// under a repetition) is not modelled.
fn python_dollar(hir: &Hir, last: bool, depth: u32) -> Result<Hir, Unsupported> {
    if depth > 2 * NEST_LIMIT {
        return Err(Unsupported::TooLarge);
    }
    Ok(match hir.kind() {
        HirKind::Look(Look::End) if last => Hir::concat(vec![
            Hir::repetition(Repetition {
                min: 0,
                max: Some(1),
                greedy: true,
                sub: Box::new(Hir::literal("\n".as_bytes())),
            }),
            Hir::look(Look::End),
        ]),
        HirKind::Look(Look::End) => return Err(Unsupported::EnginesDisagree),
        HirKind::Repetition(rep) => {
            let sub = python_dollar(&rep.sub, false, depth + 1)?;
            Hir::repetition(Repetition { sub: Box::new(sub), ..rep.clone() })
        }
        HirKind::Capture(cap) => python_dollar(&cap.sub, last, depth + 1)?,
        HirKind::Concat(subs) => {
            let n = subs.len();
            let subs = subs.iter().enumerate().map(|(i, sub)| python_dollar(sub, last && i + 1 == n, depth + 1));
            Hir::concat(subs.collect::<Result<_, _>>()?)
        }
        HirKind::Alternation(subs) => {
            let subs = subs.iter().map(|sub| python_dollar(sub, last, depth + 1));
            Hir::alternation(subs.collect::<Result<_, _>>()?)
        }
        HirKind::Empty | HirKind::Literal(_) | HirKind::Class(_) | HirKind::Look(_) => hir.clone(),
    })
}

fn search_form(hir: Hir) -> Hir {
    let any = || Hir::repetition(Repetition { min: 0, max: None, greedy: true, sub: Box::new(Hir::dot(Dot::AnyChar)) });
    Hir::concat(vec![any(), hir, any()])
}

/// One pattern under one engine's reading, as an anchored DFA over UTF-8 bytes.
struct Machine {
    dfa: dense::DFA<Vec<u32>>,
    start: StateID,
    hir: Hir,
    engine: Engine,
    /// `true` for a pattern the string must match, `false` for one it must not.
    wanted: bool,
}

impl Machine {
    fn build(hir: &Hir, engine: Engine, wanted: bool) -> Result<Machine, Unsupported> {
        let nfa = thompson::Compiler::new()
            .configure(thompson::Config::new().nfa_size_limit(Some(NFA_SIZE_LIMIT)).which_captures(WhichCaptures::None))
            .build_from_hir(hir)
            .map_err(|_| Unsupported::TooLarge)?;
        let dfa = dense::Builder::new()
            .configure(
                dense::Config::new()
                    .start_kind(StartKind::Anchored)
                    .match_kind(MatchKind::All)
                    .dfa_size_limit(Some(DFA_SIZE_LIMIT))
                    .determinize_size_limit(Some(DFA_SIZE_LIMIT)),
            )
            .build_from_nfa(&nfa)
            .map_err(|_| Unsupported::TooLarge)?;
        let start =
            dfa.start_state(&start::Config::new().anchored(Anchored::Yes)).map_err(|_| Unsupported::TooLarge)?;
        Ok(Machine { dfa, start, hir: hir.clone(), engine, wanted })
    }

    fn accepts(&self, state: StateID) -> bool {
        self.dfa.is_match_state(self.dfa.next_eoi_state(state))
    }
}

/// A code point range every pattern treats alike, with the character that stands for it.
struct Atom {
    utf8: Vec<u8>,
    ch: char,
}

/// Preferred witness characters, best first.
const PREFERRED: &str =
    "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-_.~:/@+=,;!#$%&*?^|()[]{}<>'\"`\\ ";

fn atoms(machines: &[Machine]) -> Result<Vec<Atom>, Unsupported> {
    let mut cuts = BTreeSet::from([0u32, 0xD800, 0xE000, 0x11_0000]);
    let mut classes = HashSet::new();
    for machine in machines {
        collect_cuts(&machine.hir, &mut cuts, &mut classes, 0)?;
        if cuts.len() > MAX_ATOMS {
            return Err(Unsupported::TooLarge);
        }
    }
    let cuts: Vec<u32> = cuts.into_iter().collect();
    let mut atoms: Vec<(usize, Atom)> = Vec::with_capacity(cuts.len());
    for pair in cuts.windows(2) {
        let (lo, hi) = (pair[0], pair[1] - 1);
        if lo == 0xD800 {
            continue;
        }
        let best = PREFERRED.chars().enumerate().find(|&(_, c)| (lo..=hi).contains(&u32::from(c)));
        let (rank, ch) = if let Some(found) = best {
            found
        } else {
            // Printable before control characters (U+0000-U+001F, U+007F-U+009F).
            let printable = if (0x7F..0xA1).contains(&lo) && hi >= 0xA1 { 0xA1 } else { lo };
            let ch = char::from_u32(printable).ok_or(Unsupported::TooLarge)?;
            let penalty = if ch.is_control() { 0x11_0000 } else { 0 };
            (PREFERRED.len() + penalty + printable as usize, ch)
        };
        let mut buf = [0; 4];
        atoms.push((rank, Atom { utf8: ch.encode_utf8(&mut buf).as_bytes().to_vec(), ch }));
    }
    atoms.sort_by_key(|(rank, _)| *rank);
    // Atoms in exactly the same classes are interchangeable: keep the best-ranked of each group
    // (the non-ASCII digits of `\d`, for one, become a single atom).
    let classes: Vec<Vec<(u32, u32)>> = classes.into_iter().collect();
    if classes.len().saturating_mul(atoms.len()) > STEP_BUDGET {
        return Ok(atoms.into_iter().map(|(_, atom)| atom).collect());
    }
    let mut groups = HashSet::new();
    let mut kept = Vec::new();
    for (_, atom) in atoms {
        let c = u32::from(atom.ch);
        let signature: Vec<bool> = classes
            .iter()
            .map(|ranges| {
                let i = ranges.partition_point(|&(_, hi)| hi < c);
                ranges.get(i).is_some_and(|&(lo, _)| lo <= c)
            })
            .collect();
        if groups.insert(signature) {
            kept.push(atom);
        }
    }
    Ok(kept)
}

/// Collects every class boundary (`cuts`) and every class as sorted inclusive ranges.
fn collect_cuts(
    hir: &Hir,
    cuts: &mut BTreeSet<u32>,
    classes: &mut HashSet<Vec<(u32, u32)>>,
    depth: u32,
) -> Result<(), Unsupported> {
    if depth > 2 * NEST_LIMIT || cuts.len() > MAX_ATOMS {
        return Err(Unsupported::TooLarge);
    }
    match hir.kind() {
        HirKind::Literal(lit) => {
            let text = std::str::from_utf8(&lit.0).map_err(|_| Unsupported::Syntax("non-UTF-8 literal".to_owned()))?;
            for c in text.chars() {
                cuts.insert(u32::from(c));
                cuts.insert(u32::from(c) + 1);
                classes.insert(vec![(u32::from(c), u32::from(c))]);
            }
        }
        HirKind::Class(Class::Unicode(class)) => {
            for range in class.ranges() {
                cuts.insert(u32::from(range.start()));
                cuts.insert(u32::from(range.end()) + 1);
            }
            let ranges = class.ranges().iter().map(|r| (u32::from(r.start()), u32::from(r.end())));
            classes.insert(ranges.collect());
        }
        HirKind::Class(Class::Bytes(_)) => return Err(Unsupported::Syntax("byte classes".to_owned())),
        HirKind::Repetition(rep) => collect_cuts(&rep.sub, cuts, classes, depth + 1)?,
        HirKind::Capture(cap) => collect_cuts(&cap.sub, cuts, classes, depth + 1)?,
        HirKind::Concat(subs) | HirKind::Alternation(subs) => {
            for sub in subs {
                collect_cuts(sub, cuts, classes, depth + 1)?;
            }
        }
        HirKind::Empty | HirKind::Look(_) => {}
    }
    Ok(())
}

/// Which engines' readings a product state satisfies, or can still come to satisfy.
#[derive(Clone, Copy, Default)]
struct Status {
    validator_accepts: bool,
    python_accepts: bool,
    alive: bool,
}

/// Breadth-first search over the product of all machines, stepping one character (atom) at a time.
struct Search {
    machines: Vec<Machine>,
    atoms: Vec<Atom>,
    /// Interned product states; index 0 is the start.
    states: Vec<Box<[StateID]>>,
    ids: HashMap<Box<[StateID]>, u32>,
    status: Vec<Status>,
    /// Successor of each expanded state per atom, computed once.
    rows: HashMap<u32, Box<[u32]>>,
    steps: usize,
    /// Which engines' readings are being searched.
    validator: bool,
    python: bool,
}

/// Found strings so far.
#[derive(Default)]
struct Seen {
    validator: bool,
    python: bool,
}

impl Search {
    fn new(machines: Vec<Machine>, engines: &[Engine]) -> Result<Search, Unsupported> {
        let atoms = atoms(&machines)?;
        let mut search = Search {
            machines,
            validator: engines.contains(&Engine::Validator),
            python: engines.contains(&Engine::Python),
            atoms,
            states: Vec::new(),
            ids: HashMap::new(),
            status: Vec::new(),
            rows: HashMap::new(),
            steps: 0,
        };
        let start: Box<[StateID]> = search.machines.iter().map(|m| m.start).collect();
        search.intern(start);
        Ok(search)
    }

    fn intern(&mut self, tuple: Box<[StateID]>) -> u32 {
        if let Some(&id) = self.ids.get(&tuple) {
            return id;
        }
        let mut validator = (true, true);
        let mut python = (true, true);
        for (machine, &state) in self.machines.iter().zip(tuple.iter()) {
            let (accepts, alive) = match machine.engine {
                Engine::Validator => (&mut validator.0, &mut validator.1),
                Engine::Python => (&mut python.0, &mut python.1),
            };
            *accepts &= machine.accepts(state) == machine.wanted;
            if machine.wanted && machine.dfa.is_dead_state(state) {
                *alive = false;
            }
        }
        let id = u32::try_from(self.states.len()).unwrap_or(u32::MAX);
        self.status.push(Status {
            validator_accepts: validator.0,
            python_accepts: python.0,
            alive: (self.validator && validator.1) || (self.python && python.1),
        });
        self.states.push(tuple.clone());
        self.ids.insert(tuple, id);
        id
    }

    /// Successors of `id`, one per atom (in atom order).
    fn row(&mut self, id: u32) -> Result<Box<[u32]>, Unsupported> {
        if let Some(row) = self.rows.get(&id) {
            return Ok(row.clone());
        }
        self.steps += self.atoms.len();
        if self.steps > STEP_BUDGET {
            return Err(Unsupported::TooLarge);
        }
        let from = self.states[id as usize].clone();
        let mut row = Vec::with_capacity(self.atoms.len());
        for a in 0..self.atoms.len() {
            let next: Box<[StateID]> = self
                .machines
                .iter()
                .zip(from.iter())
                .map(|(m, &s)| self.atoms[a].utf8.iter().fold(s, |s, &b| m.dfa.next_state(s, b)))
                .collect();
            row.push(self.intern(next));
        }
        let row: Box<[u32]> = row.into();
        self.rows.insert(id, row.clone());
        Ok(row)
    }

    fn run(mut self, min_len: u64, max_len: Option<u64>) -> Result<Outcome, Unsupported> {
        // Phase 1: the states reachable with exactly `min_len` characters, layer by layer; a layer
        // seen before means the layers cycle, so the one at `min_len` is known without walking there.
        let keep_paths = min_len <= MAX_WITNESS_CHARS;
        let mut layer: Vec<u32> = vec![0];
        let mut paths: Vec<Vec<(usize, usize)>> = Vec::new(); // per layer: (parent index, atom)
        let mut history: Vec<Vec<u32>> = Vec::new();
        let mut seen_layers: HashMap<Vec<u32>, usize> = HashMap::new();
        let mut depth = 0u64;
        while depth < min_len {
            if layer.is_empty() {
                return Ok(Outcome::Neither);
            }
            if !keep_paths {
                if let Some(&first) = seen_layers.get(&layer) {
                    let period = history.len() - first;
                    let offset = usize::try_from((min_len - depth) % period as u64).unwrap_or(0);
                    layer.clone_from(&history[first + offset]);
                    break;
                }
                seen_layers.insert(layer.clone(), history.len());
                history.push(layer.clone());
            }
            let mut next: Vec<(u32, usize, usize)> = Vec::new(); // (state, parent index, atom)
            let mut in_next: HashSet<u32> = HashSet::new();
            for (index, &id) in layer.iter().enumerate() {
                if !self.status[id as usize].alive {
                    continue;
                }
                let row = self.row(id)?;
                // Cached rows are cheap but not free: walking them counts against the budget too.
                self.steps += row.len();
                if self.steps > STEP_BUDGET {
                    return Err(Unsupported::TooLarge);
                }
                for (atom, &succ) in row.iter().enumerate() {
                    if in_next.insert(succ) {
                        next.push((succ, index, atom));
                    }
                }
            }
            if keep_paths {
                paths.push(next.iter().map(|&(_, parent, atom)| (parent, atom)).collect());
                layer = next.into_iter().map(|(state, _, _)| state).collect();
            } else {
                let mut sorted: Vec<u32> = next.into_iter().map(|(state, _, _)| state).collect();
                sorted.sort_unstable();
                layer = sorted;
            }
            depth += 1;
        }
        // Phase 2: breadth-first from that layer, each state once, up to `max_len`.
        let mut seen = Seen::default();
        let mut parent: HashMap<u32, Option<(u32, usize)>> = HashMap::new(); // state -> (state, atom)
        let mut queue: VecDeque<(u32, u64)> = VecDeque::new();
        for &id in &layer {
            if parent.insert(id, None).is_none() {
                queue.push_back((id, min_len));
            }
        }
        while let Some((id, len)) = queue.pop_front() {
            let status = self.status[id as usize];
            seen.validator |= status.validator_accepts;
            seen.python |= status.python_accepts;
            if status.validator_accepts && status.python_accepts {
                if !keep_paths || len > MAX_WITNESS_CHARS {
                    return Err(Unsupported::TooLarge);
                }
                return Ok(Outcome::Both(self.witness(id, &parent, &layer, &paths)));
            }
            if !status.alive || max_len.is_some_and(|max| len >= max) {
                continue;
            }
            let row = self.row(id)?;
            for (atom, &succ) in row.iter().enumerate() {
                if let Entry::Vacant(slot) = parent.entry(succ) {
                    slot.insert(Some((id, atom)));
                    queue.push_back((succ, len + 1));
                }
            }
        }
        let present = [(self.validator, seen.validator), (self.python, seen.python)];
        let found = present.iter().filter(|(here, seen)| *here && *seen).count();
        let engines = present.iter().filter(|(here, _)| *here).count();
        Ok(if found == 0 {
            Outcome::Neither
        } else if found == engines {
            Outcome::Separately
        } else {
            Outcome::One
        })
    }

    fn witness(
        &self,
        mut id: u32,
        parent: &HashMap<u32, Option<(u32, usize)>>,
        layer: &[u32],
        paths: &[Vec<(usize, usize)>],
    ) -> String {
        let mut tail = Vec::new();
        while let Some(&Some((from, atom))) = parent.get(&id) {
            tail.push(self.atoms[atom].ch);
            id = from;
        }
        let mut head = Vec::new();
        let mut index = layer.iter().position(|&s| s == id).unwrap_or(0);
        for step in paths.iter().rev() {
            let Some(&(from, atom)) = step.get(index) else { break };
            head.push(self.atoms[atom].ch);
            index = from;
        }
        head.iter().rev().chain(tail.iter().rev()).collect()
    }
}

#[cfg(test)]
mod tests {
    //! Each engine's reading on its own; the public API only answers where they agree.
    use super::{Engine, Outcome, search};

    fn one(engine: Engine, yes: &[&str], no: &[&str], min: u64, max: Option<u64>) -> Option<String> {
        match search(&[engine], yes, no, min, max) {
            Ok(Outcome::Both(w)) => Some(w),
            Ok(Outcome::Neither) => None,
            other => panic!("{yes:?} / {no:?}: {other:?}"),
        }
    }

    #[test]
    fn validator_reading_is_ecma() {
        let v = |yes: &[&str], no: &[&str]| one(Engine::Validator, yes, no, 0, None);
        // `.` rejects every ECMA line terminator.
        for t in ["\n", "\r", "\u{2028}", "\u{2029}"] {
            assert_eq!(v(&["^.$", t], &[]), None, "{t:?}");
        }
        assert_eq!(v(&["^.$", "\u{85}"], &[]).as_deref(), Some("\u{85}"));
        // `$` is the end of input only.
        assert_eq!(v(&["^a$", "\n"], &[]), None);
        // ASCII `\d` and `\w`; ECMA `\s` includes U+FEFF and U+00A0 but not U+0085.
        assert_eq!(v(&[r"^\d$"], &["^[0-9]$"]), None);
        assert_eq!(v(&[r"^\w$"], &["^[A-Za-z0-9_]$"]), None);
        assert_eq!(v(&["^\u{feff}$"], &[r"\s"]), None);
        assert_eq!(v(&["^\u{a0}$"], &[r"\s"]), None);
        assert_eq!(v(&["^\u{3000}$"], &[r"\s"]), None);
        assert_eq!(v(&["^\u{85}$"], &[r"\S"]), None);
        assert_eq!(v(&["^[\u{1c}-\u{1f}]$"], &[r"\S"]), None);
    }

    #[test]
    fn python_reading_is_re_search() {
        let p = |yes: &[&str], no: &[&str]| one(Engine::Python, yes, no, 0, None);
        // `.` rejects only "\n"; `$` also matches before a final "\n".
        assert_eq!(p(&["^.$", "\r"], &[]).as_deref(), Some("\r"));
        assert_eq!(p(&["^.$", "\n."], &[]), None);
        assert_eq!(p(&["^a$", "\n"], &[]).as_deref(), Some("a\n"));
        assert_eq!(p(&["^a$"], &[]).as_deref(), Some("a"));
        // Unicode `\d`, `\w`, `\s` (U+0085 and U+001C are space, U+FEFF is not).
        assert!(p(&[r"^\d$"], &["^[0-9]$"]).is_some());
        assert!(p(&[r"^\w$"], &["^[A-Za-z0-9_]$"]).is_some());
        assert_eq!(p(&["^\u{85}$"], &[r"\s"]), None);
        assert_eq!(p(&["^\u{1c}$"], &[r"\s"]), None);
        assert_eq!(p(&["^\u{feff}$"], &[r"\S"]), None);
        // `[\d-]` in a class keeps its meaning.
        assert_eq!(p(&[r"^[\d-]$"], &[r"^\d$", "^-$"]), None);
    }
}
