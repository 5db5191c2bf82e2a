//! Fact extraction: reads a description into the facts an agent acts on — numbers in their role, units
//! and formats, obligations, negations, scope, side effects, named literals, and what the value or tool
//! denotes (the words of its first clause). Example text (code blocks, `e.g. ...`, query syntax in code
//! spans, long quotations) carries no facts.

use std::collections::BTreeMap;

use super::lexicon::{
    DEFAULT, FOLD, LIMIT, MINIMUM, NAME_BEFORE_NUMBER, NEGATION, NUMBER_WORDS, OBLIGATION, SCOPE, SIDE_EFFECTS,
    STOPWORDS, UNITS,
};

/// The most characters of a description read; beyond it prose is not fact-checked.
const READ_LIMIT: usize = 32 * 1024;

/// The kinds of fact, in the order findings name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FactKind {
    /// What the value or the tool is (the head of the first clause).
    Denotes,
    /// A number in its role: a limit, a minimum, a default, a count.
    Number,
    /// A unit or format.
    Unit,
    /// A default value stated in prose.
    Default,
    /// An obligation or condition: required, must, only if, either/or, ignored when.
    Obligation,
    /// A negation.
    Negation,
    /// The target or scope an action addresses.
    Scope,
    /// An action that changes the world.
    SideEffect,
    /// A named parameter or literal value.
    Literal,
    /// Which way something goes: an opposite swapped in, two terms traded around an ordering word.
    Direction,
    /// Which number stands for which word.
    Mapping,
}

impl FactKind {
    /// The label a finding shows.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            FactKind::Denotes => "denotes",
            FactKind::Number => "number",
            FactKind::Unit => "unit",
            FactKind::Default => "default",
            FactKind::Obligation => "obligation",
            FactKind::Negation => "negation",
            FactKind::Scope => "scope",
            FactKind::SideEffect => "side effect",
            FactKind::Literal => "literal",
            FactKind::Direction => "direction",
            FactKind::Mapping => "mapping",
        }
    }

    /// A prose-only change of this kind makes old calls do something else while they still validate.
    #[must_use]
    pub fn grave(self) -> bool {
        matches!(
            self,
            FactKind::Denotes
                | FactKind::Number
                | FactKind::Unit
                | FactKind::Default
                | FactKind::Direction
                | FactKind::Mapping
        )
    }
}

/// One word of prose, as read.
#[derive(Clone, Debug)]
pub(super) struct Word {
    /// Folded, stemmed, lower-case.
    pub norm: String,
    /// As written (for display).
    pub raw: String,
    /// Stemmed and lower-cased, not folded: typos are mended on this form.
    pub base: String,
    /// Index of the clause the word is in.
    pub clause: usize,
    /// Index of the sentence the word is in.
    pub sentence: usize,
    pub number: bool,
}

/// A description read into words and literals.
#[derive(Debug, Default)]
pub(super) struct Reading {
    pub words: Vec<Word>,
    /// Clause texts as written, by index.
    pub clauses: Vec<String>,
    /// Literals (code spans that name something, short quotations, identifiers), lower-cased.
    pub literals: Vec<String>,
    /// The sentence being read.
    sentence: usize,
    /// Clauses that are section tags (`[DESC]`).
    pub tags: Vec<usize>,
}

/// One extracted fact: a key that compares, and the words that show it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fact {
    pub kind: FactKind,
    pub key: String,
    pub shown: String,
    /// A number fact's value as read and its unit (stated after it, or the unit the description gives
    /// its value), so that restated quantities compare equal ([`super::quantity`]).
    pub amount: Option<(String, Option<String>)>,
}

impl Fact {
    fn new(kind: FactKind, key: String, shown: String) -> Fact {
        Fact { kind, key, shown, amount: None }
    }

    /// The number fact's quantity, when it has one.
    pub(super) fn quantity(&self) -> Option<super::quantity::Quantity> {
        let (n, u) = self.amount.as_ref()?;
        super::quantity::quantity(n, u.as_deref())
    }

    /// A side effect's action without its polarity or mention marker: `not delete` and `mention
    /// delete` are both `delete`.
    pub(super) fn action(&self) -> &str {
        let k = self.key.strip_prefix("not ").unwrap_or(&self.key);
        k.strip_prefix("mention ").unwrap_or(k)
    }

    /// The role of a number fact: `at most`, `at least`, `default`, `range`, `above`, `below`, `number`.
    pub(super) fn role(&self) -> &str {
        ["at most", "at least", "default", "range", "above", "below"]
            .into_iter()
            .find(|r| self.key.starts_with(&format!("{r} ")))
            .unwrap_or("number")
    }
}

/// A light English stemmer: plural and third-person `-s`, `-es`, `-ies`, `-ed`/`-ing` on known verbs,
/// and a trailing possessive.
pub(super) fn stem(word: &str) -> String {
    let w = word.strip_suffix("'s").or_else(|| word.strip_suffix("’s")).unwrap_or(word);
    let n = w.len();
    if n > 4 && w.ends_with("ies") {
        return format!("{}y", &w[..n - 3]);
    }
    if n > 4 && (w.ends_with("ches") || w.ends_with("shes") || w.ends_with("xes") || w.ends_with("sses")) {
        return w[..n - 2].to_owned();
    }
    if n > 3 && w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") && !w.ends_with("is") {
        return w[..n - 1].to_owned();
    }
    for (suffix, keep) in [("eting", "ete"), ("ating", "ate"), ("ited", "it"), ("eted", "ete"), ("ated", "ate")] {
        if n > suffix.len() + 2 && w.ends_with(suffix) {
            return format!("{}{keep}", &w[..n - suffix.len()]);
        }
    }
    w.to_owned()
}

/// The word as compared: stemmed, then folded.
pub(super) fn fold(word: &str) -> String {
    let w = stem(word);
    let w = FOLD.iter().find(|(from, _)| *from == w).map_or(w, |(_, to)| (*to).to_owned());
    NUMBER_WORDS.iter().find(|(from, _)| *from == w).map_or(w, |(_, to)| (*to).to_owned())
}

/// Whether a code span or a bare word names something (a parameter, a value): `sha`, `owner/repo`,
/// `per_page`, `in_progress`. Query syntax (`stars:>1000`, `is:open label:bug`) is example text.
fn names_something(s: &str) -> bool {
    !s.is_empty()
        && s.chars().count() <= 64
        && s.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '$' | '@'))
        && s.chars().any(char::is_alphabetic)
}

/// An identifier in running prose: `per_page`, `pullNumber`, `owner/repo`, `MAX_RESULTS`.
fn is_identifier(raw: &str) -> bool {
    // `pullNumber` names a parameter; `GitHub` and `LinkedIn` are brand names.
    let inner_upper = raw.chars().next().is_some_and(char::is_lowercase) && raw.chars().skip(1).any(char::is_uppercase);
    names_something(raw)
        && raw.chars().any(char::is_alphabetic)
        && (raw.contains('_') || raw.contains('/') || inner_upper)
}

/// Advice words that can make up a leading clause of their own.
const LEAD: &[&str] =
    &["strongly", "highly", "recommended", "optional", "required", "important", "note", "tip", "experimental", "beta"];

/// Reads a description.
#[allow(clippy::too_many_lines, reason = "one character loop: code spans, quotations, tags, numbers and clause ends")]
pub(super) fn read(text: &str) -> Reading {
    let text: String = text.chars().take(READ_LIMIT).collect();
    let mut r = Reading::default();
    let mut clause = String::new();
    let mut example_depth: Option<usize> = None;
    let mut paren = 0usize;
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let mut cur = String::new();
    let flush_word = |cur: &mut String, r: &mut Reading, example: bool| {
        if cur.is_empty() {
            return;
        }
        let raw = std::mem::take(cur);
        let trimmed = raw.trim_matches(|c: char| matches!(c, '.' | '-' | '/' | '_' | '\'' | '’'));
        if trimmed.is_empty() || example {
            return;
        }
        if is_identifier(trimmed) {
            r.literals.push(trimmed.to_owned());
            return;
        }
        split_number_unit(trimmed, r);
    };
    while i < chars.len() {
        let c = chars[i];
        // `${PATH_GUIDANCE}`: a template placeholder the server fills in at run time; what it will say
        // is unknown here, so it states no fact.
        if c == '$'
            && chars.get(i + 1) == Some(&'{')
            && let Some(len) = chars[i + 2..].iter().take(64).position(|&d| d == '}')
        {
            flush_word(&mut cur, &mut r, example_depth.is_some());
            i += len + 3;
            continue;
        }
        // Fenced code block: example text.
        if c == '`' && chars.get(i + 1) == Some(&'`') && chars.get(i + 2) == Some(&'`') {
            flush_word(&mut cur, &mut r, example_depth.is_some());
            let rest: String = chars[i + 3..].iter().collect();
            i = rest.find("```").map_or(chars.len(), |e| i + 3 + rest[..e].chars().count() + 3);
            continue;
        }
        // `[DESC]`, `[PARAM]`, `[DEPRECATED]`: a section tag is a clause of its own that says what
        // follows, not what the value is; its word still counts (`[DEPRECATED]` is an obligation).
        // At the very start, a short `(GitHub)` or `[Read-only]` is a tag too.
        let at_start = chars[..i].iter().all(|d| d.is_whitespace());
        let close = match c {
            '[' => Some(']'),
            '(' if at_start => Some(')'),
            _ => None,
        };
        if let Some(close) = close {
            let tag: String = chars[i + 1..].iter().take(24).take_while(|d| **d != close).collect();
            let shaped = if at_start {
                tag.split_whitespace().count() <= 2
                    && tag.chars().all(|d| d.is_alphanumeric() || matches!(d, ' ' | '-' | '_'))
            } else {
                tag.len() < 16 && tag.chars().all(|d| d.is_ascii_uppercase() || d == '_')
            };
            if !tag.trim().is_empty() && shaped && chars.get(i + 1 + tag.chars().count()) == Some(&close) {
                flush_word(&mut cur, &mut r, example_depth.is_some());
                end_clause(&mut r, &mut clause);
                for word in tag.split_whitespace() {
                    push_word(&mut r, word, &fold(&word.to_lowercase()));
                }
                clause.push_str(&tag);
                end_clause(&mut r, &mut clause);
                r.tags.push(r.clauses.len() - 1);
                i += tag.chars().count() + 2;
                continue;
            }
        }
        // Code span or quotation: a literal when it names something, else example text.
        let quote_end = match c {
            '`' => Some('`'),
            '"' => Some('"'),
            '“' => Some('”'),
            '\'' if cur.is_empty() => Some('\''),
            _ => None,
        };
        if let Some(len) = quote_end.and_then(|end| chars[i + 1..].iter().take(200).position(|&d| d == end)) {
            {
                flush_word(&mut cur, &mut r, example_depth.is_some());
                let span: String = chars[i..i + len + 2].iter().collect();
                clause.push_str(&span);
                let inner: String = chars[i + 1..i + 1 + len].iter().collect();
                let inner = inner.trim();
                if example_depth.is_none() {
                    // A quoted number ("default `30`") is the number: quoting it changes no fact.
                    if !inner.is_empty() && inner.chars().all(|d| d.is_ascii_digit() || d == '.') {
                        push_word(&mut r, inner, inner);
                    } else if names_something(inner) {
                        r.literals.push(inner.to_owned());
                    } else if c != '`' && inner.split_whitespace().count() <= 3 {
                        // A short quoted phrase is a value; its words are prose too.
                        r.literals.push(inner.to_owned());
                    }
                }
                i += len + 2;
                continue;
            }
        }
        let next = chars.get(i + 1).copied();
        let decimal = c == '.'
            && cur.chars().last().is_some_and(|d| d.is_ascii_digit())
            && next.is_some_and(|d| d.is_ascii_digit());
        let thousands = c == ','
            && cur.chars().all(|d| d.is_ascii_digit())
            && !cur.is_empty()
            && chars.get(i + 1..i + 4).is_some_and(|d| d.iter().all(char::is_ascii_digit))
            && !chars.get(i + 4).is_some_and(char::is_ascii_digit);
        let joiner =
            matches!(c, '_' | '/' | '-' | '\'' | '’') && !cur.is_empty() && next.is_some_and(char::is_alphanumeric);
        if thousands {
            i += 1;
            continue;
        }
        if c.is_alphanumeric()
            || decimal
            || joiner
            || (c == '.' && !cur.is_empty() && next.is_some_and(char::is_alphabetic) && cur.len() == 1)
        {
            cur.push(c);
            clause.push(c);
            i += 1;
            continue;
        }
        // "1) View details, 2) Check plans": list markers, not quantities.
        if matches!(c, ')' | '.')
            && !cur.is_empty()
            && cur.len() <= 2
            && cur.chars().all(|d| d.is_ascii_digit())
            && clause.trim() == cur
        {
            cur.clear();
        }
        flush_word(&mut cur, &mut r, example_depth.is_some());
        if matches!(c, '%' | '<' | '>' | '≤' | '≥') {
            let sym = if c == '<' && next == Some('=') {
                "<="
            } else if c == '>' && next == Some('=') {
                ">="
            } else {
                ""
            };
            let sym = if sym.is_empty() { c.to_string() } else { sym.to_owned() };
            if example_depth.is_none() {
                push_word(&mut r, &sym, &sym);
            }
        }
        match c {
            '(' | '[' => paren += 1,
            ')' | ']' => {
                paren = paren.saturating_sub(1);
                if example_depth.is_some_and(|d| d > paren) {
                    example_depth = None;
                }
            }
            _ => {}
        }
        let sentence_end = matches!(c, '.' | '!' | '?' | '\n') && !next.is_some_and(char::is_alphanumeric);
        if sentence_end && paren == 0 {
            example_depth = None;
            r.sentence += 1;
        }
        let boundary = sentence_end || matches!(c, ';' | ',' | ':' | '(' | ')' | '[' | ']' | '—' | '–');
        if boundary {
            end_clause(&mut r, &mut clause);
        } else {
            clause.push(c);
        }
        // "e.g." / "for example" / "example:" / "such as" start example text to the end of the
        // parenthesis or sentence.
        if example_depth.is_none() && opens_example(&r) {
            example_depth = Some(paren);
            // The marker words themselves are not facts.
            while r.words.last().is_some_and(|w| {
                matches!(w.norm.as_str(), "e" | "g" | "eg" | "e.g" | "example" | "for" | "such" | "as")
            }) {
                r.words.pop();
            }
        }
        i += 1;
    }
    flush_word(&mut cur, &mut r, example_depth.is_some());
    end_clause(&mut r, &mut clause);
    // "Strongly recommended: ...", "Optional. ...", "Note: ...": a leading clause of advice words says
    // how to read what follows, not what the value is.
    if let Some(first) = r.words.iter().find(|w| !r.tags.contains(&w.clause)).map(|w| w.clause) {
        let words: Vec<&Word> = r.words.iter().filter(|w| w.clause == first).collect();
        if words.len() <= 3 && words.iter().all(|w| LEAD.contains(&w.norm.as_str())) {
            r.tags.push(first);
        }
    }
    r
}

fn opens_example(r: &Reading) -> bool {
    let last: Vec<&str> = r.words.iter().rev().take(2).map(|w| w.norm.as_str()).collect();
    matches!(last.as_slice(), ["g", "e"] | ["eg" | "e.g" | "example", ..] | ["as", "such"])
}

fn end_clause(r: &mut Reading, clause: &mut String) {
    let text = std::mem::take(clause);
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if !text.is_empty() || r.clauses.is_empty() {
        r.clauses.push(text);
    }
}

fn push_word(r: &mut Reading, raw: &str, norm: &str) {
    let clause = r.clauses.len();
    // A quantity is digits with at most one decimal point; `2024-01-01` and UUIDs are values named.
    let number = norm.chars().next().is_some_and(|c| c.is_ascii_digit())
        && norm.chars().all(|c| c.is_ascii_digit() || c == '.')
        && norm.matches('.').count() <= 1;
    if !number && norm.chars().next().is_some_and(|c| c.is_ascii_digit()) && norm.contains('-') {
        r.literals.push(raw.to_owned());
        return;
    }
    let base = stem(&raw.to_lowercase());
    let sentence = r.sentence;
    // "one million", "two hundred": a number word that multiplies the number before it.
    if number
        && !raw.starts_with(|c: char| c.is_ascii_digit())
        && matches!(norm, "100" | "1000" | "1000000" | "1000000000")
        && let Some(prev) = r.words.last_mut().filter(|p| p.number && p.clause == clause && p.sentence == sentence)
        && let (Ok(a), Ok(m)) = (prev.norm.parse::<f64>(), norm.parse::<f64>())
    {
        prev.norm = format!("{}", a * m);
        prev.raw = format!("{} {raw}", prev.raw);
        return;
    }
    r.words.push(Word { norm: norm.to_owned(), raw: raw.to_owned(), base, clause, sentence, number });
}

/// `30s`, `100ms`, `10k`, `5MB`: a number and its unit; other words as they are.
fn split_number_unit(raw: &str, r: &mut Reading) {
    let lower = raw.to_lowercase().replace('’', "'");
    if let Some(head) = lower.strip_suffix("n't") {
        push_word(r, head, &fold(head));
        push_word(r, "not", "not");
        return;
    }
    let digits = lower.chars().take_while(|c| c.is_ascii_digit() || *c == '.').count();
    if digits > 0
        && digits < lower.len()
        && lower[digits..].chars().all(char::is_alphabetic)
        && lower.len() - digits <= 3
    {
        let (n, u) = lower.split_at(digits);
        let n = if u == "k" { format!("{n}000") } else { n.to_owned() };
        push_word(r, &n, &n);
        if u != "k" {
            push_word(r, u, &fold(u));
        }
        return;
    }
    // `base64-encoded`, `ISO-8601`, `case-insensitive`: a joined word with a unit or a case rule in it
    // is read as its parts, so the hyphen changes no fact.
    if lower.contains('-') {
        let parts: Vec<&str> = lower.split('-').filter(|p| !p.is_empty()).collect();
        if parts.iter().any(|p| UNITS.contains(&fold(p).as_str()) || matches!(*p, "sensitive" | "insensitive")) {
            for p in parts {
                push_word(r, p, &fold(p));
            }
            return;
        }
    }
    push_word(r, raw, &fold(&lower));
}

/// Maps typos of the other side's words to them: `retreive` read beside `retrieve` is `retrieve`.
pub(super) fn mend_typos(old: &mut Reading, new: &mut Reading) -> bool {
    // Old spellings, each with the word it reads as.
    let old_words: BTreeMap<&str, &str> = old.words.iter().map(|w| (w.base.as_str(), w.norm.as_str())).collect();
    let new_words: BTreeMap<&str, &str> = new.words.iter().map(|w| (w.base.as_str(), w.norm.as_str())).collect();
    let gone: Vec<String> =
        old_words.keys().filter(|w| !new_words.contains_key(*w)).take(300).map(|w| (*w).to_owned()).collect();
    let came: Vec<String> =
        new_words.keys().filter(|w| !old_words.contains_key(*w)).take(300).map(|w| (*w).to_owned()).collect();
    let mut map: BTreeMap<String, String> = BTreeMap::new();
    for c in &came {
        if let Some(g) = gone.iter().find(|g| is_typo(g, c)) {
            map.insert(c.clone(), old_words[g.as_str()].to_owned());
        }
    }
    for w in &mut new.words {
        if let Some(to) = map.get(&w.base) {
            w.norm.clone_from(to);
        }
    }
    !map.is_empty()
}

/// Two spellings of one word: small edit distance, both alphabetic, long enough, and not a known
/// opposite pair (`inclusive`/`exclusive`, `ascending`/`descending`, `enable`/`disable`).
fn is_typo(a: &str, b: &str) -> bool {
    let alpha = |s: &str| s.chars().all(char::is_alphabetic);
    if !(alpha(a) && alpha(b)) || a.len() < 4 || b.len() < 4 || super::align::are_opposites(a, b) {
        return false;
    }
    let opposites = [("in", "ex"), ("a", "de"), ("en", "dis"), ("un", ""), ("in", ""), ("im", ""), ("dis", "")];
    for (x, y) in opposites {
        if (a.strip_prefix(x).is_some_and(|r| b.strip_prefix(y) == Some(r)))
            || (b.strip_prefix(x).is_some_and(|r| a.strip_prefix(y) == Some(r)))
        {
            return false;
        }
    }
    let d = strsim::damerau_levenshtein(a, b);
    let first_two = |s: &str| s.chars().take(2).collect::<std::collections::BTreeSet<char>>();
    let same_first = a.chars().next() == b.chars().next();
    (d <= 2 && d * 4 <= a.len().max(b.len()) && first_two(a) == first_two(b)) || (d == 1 && same_first && a.len() >= 5)
}

/// Every fact of a reading.
pub(super) fn facts(r: &Reading, stated_default: Option<String>) -> Vec<Fact> {
    let mut out = Vec::new();
    let unit_of_value = value_unit(r);
    let first_sentence = r.words.first().map_or(0, |w| w.sentence);
    // A fact is shown with its sentence (its clauses joined), so "For pagination" reads as "For
    // pagination, use the 'endCursor' from the previous response".
    // The clauses of each sentence, gathered in one pass (not one pass over the words per fact).
    let mut sentences: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for w in &r.words {
        let clauses = sentences.entry(w.sentence).or_default();
        if clauses.last() != Some(&w.clause) {
            clauses.push(w.clause);
        }
    }
    let sentence_text = |sentence: usize| {
        let clauses = sentences.get(&sentence).map_or(&[][..], Vec::as_slice);
        let text = clauses.iter().filter_map(|c| r.clauses.get(*c)).map(String::as_str).collect::<Vec<_>>().join(", ");
        clip(&text, 100)
    };
    for (i, w) in r.words.iter().enumerate() {
        let n = w.norm.as_str();
        if w.number {
            out.extend(number_fact(r, i, unit_of_value));
            continue;
        }
        // A unit right after a number is part of that quantity, not a unit of the value.
        if i > 0
            && r.words[i - 1].number
            && w.clause == r.words[i - 1].clause
            && super::quantity::scale(n).is_some()
            && UNITS.contains(&n)
        {
            continue;
        }
        if let Some(fact) = action_anywhere(r, i, first_sentence, &sentence_text) {
            out.push(fact);
            continue;
        }
        let kind = if UNITS.contains(&n) {
            // `line` and `token` are units only after a number.
            if matches!(
                n,
                "line"
                    | "token"
                    | "character"
                    | "json"
                    | "markdown"
                    | "html"
                    | "xml"
                    | "yaml"
                    | "csv"
                    | "year"
                    | "day"
                    | "month"
                    | "week"
            ) && !(i > 0 && r.words[i - 1].number)
            {
                None
            } else {
                Some(FactKind::Unit)
            }
        } else if OBLIGATION.contains(&n) {
            Some(FactKind::Obligation)
        } else if NEGATION.contains(&n) {
            Some(FactKind::Negation)
        } else if SCOPE.contains(&n) {
            Some(FactKind::Scope)
        } else if SIDE_EFFECTS.contains(&n) && !attributive(r, i) {
            Some(FactKind::SideEffect)
        } else {
            None
        };
        let Some(kind) = kind else { continue };
        // The target and the side effects of an action are stated where the action is: the first
        // sentence, or a sentence that starts with the verb ("Deletes the file after reading.").
        // Elsewhere these words explain, they do not address.
        let leads_sentence = i == 0
            || r.words[i - 1].sentence != w.sentence
            || (i >= 1 && r.words[i - 1].norm == "also" && (i == 1 || r.words[i - 2].sentence != w.sentence));
        if w.sentence != first_sentence
            && (kind == FactKind::Scope || (kind == FactKind::SideEffect && !leads_sentence))
        {
            continue;
        }
        // "must be a number", "must be a positive integer": the schema's type, restated.
        if kind == FactKind::Obligation && n == "required" && restates_type(&r.words[i + 1..]) {
            continue;
        }
        let key = if kind == FactKind::Negation {
            // A negation is keyed by what it negates: the next content word of its clause.
            let object = r.words[i + 1..]
                .iter()
                .take_while(|x| x.clause == w.clause)
                .find(|x| !STOPWORDS.contains(&x.norm.as_str()) && !NEGATION.contains(&x.norm.as_str()))
                .map_or("", |x| x.norm.as_str());
            format!("{n} {object}")
        } else {
            n.to_owned()
        };
        let shown = if kind == FactKind::Unit { w.raw.clone() } else { sentence_text(w.sentence) };
        out.push(Fact::new(kind, key, shown));
    }
    list_facts(r, &mut out);
    for l in &r.literals {
        out.push(Fact::new(FactKind::Literal, l.clone(), format!("`{l}`")));
    }
    if let Some(d) = stated_default {
        // A stated default is the fact; the number in the role of a default says it again.
        out.retain(|f| !(f.kind == FactKind::Number && f.key.starts_with("default ")));
        out.push(default_fact(&d, unit_of_value));
    }
    out
}

/// An irreversible action anywhere in the text, keyed by whether it is denied ("the file is not
/// deleted", "without removing them"): "kept" -> "deleted once uploaded" is an action added. Outside
/// the first sentence an affirmed action is a mention ("before overwriting it"): it weighs only against
/// its denial on the other side. "The source file is kept" is the denial of deleting it.
/// "a prior truncated response", "the deleted file": a participle after a determiner describes a
/// thing; it is no action of the tool (arxiv-mcp-server 0.7.0's `start`, issue #31).
fn attributive(r: &Reading, i: usize) -> bool {
    let w = &r.words[i];
    let before = |k: usize| i.checked_sub(k).map(|j| &r.words[j]).filter(|b| b.clause == w.clause);
    let is = |b: Option<&Word>, words: &[&str]| b.is_some_and(|b| words.contains(&b.raw.to_lowercase().as_str()));
    let determiners = ["a", "an", "the", "each", "any", "every", "this", "that", "its", "their"];
    let earlier = ["prior", "previous", "earlier", "already"];
    w.raw.to_lowercase().ends_with("ed")
        && (is(before(1), &determiners) || (is(before(1), &earlier) && is(before(2), &determiners)))
}

fn action_anywhere(
    r: &Reading,
    i: usize,
    first_sentence: usize,
    sentence_text: &dyn Fn(usize) -> String,
) -> Option<Fact> {
    let w = &r.words[i];
    let n = w.norm.as_str();
    if matches!(n, "kept" | "keep" | "retained" | "retain" | "preserved" | "preserve" | "untouched" | "intact") {
        return Some(Fact::new(FactKind::SideEffect, "not delete".to_owned(), sentence_text(w.sentence)));
    }
    let verb = irreversible(n)?;
    let denied = r.words[i.saturating_sub(3)..i]
        .iter()
        .any(|b| b.clause == w.clause && matches!(b.norm.as_str(), "not" | "without" | "never"));
    // "Deletes the file after reading.": a sentence that starts with the action states what the tool does.
    let leads = i == 0 || r.words[i - 1].sentence != w.sentence;
    let key = if denied {
        format!("not {verb}")
    } else if (w.sentence == first_sentence || leads) && !attributive(r, i) {
        verb.to_owned()
    } else {
        format!("mention {verb}")
    };
    Some(Fact::new(FactKind::SideEffect, key, sentence_text(w.sentence)))
}

/// The fact of a stated default. Its value compares by its first word, without quotes or markup: "30",
/// "`30`", "30 seconds" and "30<br>" state one default; a number keeps its unit (or the value's) so
/// "90000" (milliseconds) and "90 seconds" are one default.
fn default_fact(d: &str, unit_of_value: Option<&str>) -> Fact {
    let key = d
        .split(|c: char| c.is_whitespace() || c == '<')
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .find(|w| !w.is_empty())
        .map_or("", |w| NUMBER_WORDS.iter().find(|(from, _)| from.eq_ignore_ascii_case(w)).map_or(w, |(_, to)| to))
        .to_owned();
    let mut words = d.split_whitespace().map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '.'));
    let amount = words.next().map(|n| fold(&n.to_lowercase())).filter(|n| n.parse::<f64>().is_ok()).map(|n| {
        let unit = words.next().map(|u| fold(&u.to_lowercase())).filter(|u| super::quantity::scale(u).is_some());
        (n, unit.or_else(|| unit_of_value.map(str::to_owned)))
    });
    let mut fact = Fact::new(FactKind::Default, key, format!("defaults to {d}"));
    fact.amount = amount;
    fact
}

/// A number in its role: `at most 100 results`, `default 30`, `between 1 and 100`. Numbers that are
/// part of a name (`ISO 8601`, `OAuth 2.0`) are none. The role is read from the words around the number,
/// so "no more than 25", "must not exceed 25", "up to 25", "25 or fewer" and "25 at most" are one
/// fact; the value is kept with its unit (or the unit the description gives its value) so a restated
/// quantity compares equal.
fn number_fact(r: &Reading, i: usize, value_unit: Option<&str>) -> Option<Fact> {
    let w = &r.words[i];
    let n = w.norm.as_str();
    if i > 0 && NAME_BEFORE_NUMBER.contains(&r.words[i - 1].norm.as_str()) {
        return None;
    }
    // The role words before the number in its clause, and the word right before it even across a
    // colon ("default: 30", "max: 100").
    let before: Vec<&str> = r.words[i.saturating_sub(3)..i]
        .iter()
        .enumerate()
        .filter(|(k, b)| b.clause == w.clause || i.saturating_sub(3) + k + 1 == i)
        .map(|(_, b)| b.norm.as_str())
        .collect();
    let unit = r.words.get(i + 1).filter(|u| {
        u.clause == w.clause && (UNITS.contains(&u.norm.as_str()) || super::quantity::scale(&u.norm).is_some())
    });
    // The words after the number (and its unit): "25 or fewer", "100 at most", "30 max".
    let after_at = i + 1 + usize::from(unit.is_some());
    let after: Vec<&str> =
        r.words.iter().skip(after_at).take(2).filter(|a| a.clause == w.clause).map(|a| a.norm.as_str()).collect();
    let role = role(&before, &after);
    let key = format!("{role} {n} {}", unit.map_or("", |u| u.norm.as_str()));
    let noun = r.words.get(i + 1).filter(|u| u.clause == w.clause && !u.number).map_or("", |u| u.raw.as_str());
    let shown = if role == "number" { format!("{} {noun}", w.raw) } else { format!("{role} {} {noun}", w.raw) };
    let unit = unit.map(|u| u.norm.clone()).or_else(|| value_unit.map(str::to_owned));
    Some(Fact { kind: FactKind::Number, key, shown: shown.trim().to_owned(), amount: Some((n.to_owned(), unit)) })
}

/// A number's role from the words before and after it.
fn role(before: &[&str], after: &[&str]) -> &'static str {
    const MORE: &[&str] = &["more", "greater", "larger", "longer", "over", "above", "higher", "exceed", "exceeding"];
    const LESS: &[&str] = &["fewer", "less", "smaller", "shorter", "under", "below", "lower"];
    let any = |words: &[&str], set: &[&str]| words.iter().any(|b| set.contains(b));
    let negated = before.contains(&"not");
    if any(before, DEFAULT) {
        "default"
    } else if any(before, MORE) {
        // "more than 5", "over 5" are above 5; "no more than 5", "must not exceed 5" are at most 5.
        if negated { "at most" } else { "above" }
    } else if any(before, LESS) {
        if negated { "at least" } else { "below" }
    } else if any(before, LIMIT) {
        "at most"
    } else if any(before, MINIMUM) {
        "at least"
    } else if before.contains(&"between") || before.contains(&"from") {
        "range"
    } else if matches!(after, ["or", x] if LESS.contains(x)) || matches!(after, ["at", "most"] | ["maximum", ..]) {
        "at most"
    } else if matches!(after, ["or", x] if MORE.contains(x)) || matches!(after, ["at", "least"] | ["minimum", ..]) {
        "at least"
    } else {
        "number"
    }
}

/// The unit the description gives its value ("Timeout in milliseconds", "Size (MB)"): the first unit
/// word with a scale that does not follow a number. A bare number in the text is read in it.
fn value_unit(r: &Reading) -> Option<&str> {
    r.words
        .iter()
        .enumerate()
        .find(|(k, w)| {
            UNITS.contains(&w.norm.as_str())
                && super::quantity::scale(&w.norm).is_some()
                && !(*k > 0 && r.words[k - 1].number)
        })
        .map(|(_, w)| w.norm.as_str())
}

/// Values named in a list ("Level: debug, info, warn or error") and the key of a stated sort order.
fn list_facts(r: &Reading, out: &mut Vec<Fact>) {
    // An enumeration ("Level: debug, info, warn or error"): every short clause after the first whose
    // words are all content words or `or`/`and` names values.
    let mut by_clause: BTreeMap<usize, Vec<&Word>> = BTreeMap::new();
    for w in &r.words {
        by_clause.entry(w.clause).or_default().push(w);
    }
    let first = r.words.first().map_or(0, |w| w.clause);
    let items: Vec<&Vec<&Word>> = by_clause
        .iter()
        .filter(|(c, ws)| {
            **c != first
                && ws.len() <= 3
                && ws.iter().all(|w| matches!(w.norm.as_str(), "or" | "and") || !STOPWORDS.contains(&w.norm.as_str()))
                && listed_after_cue(&by_clause, **c)
        })
        .map(|(_, ws)| ws)
        .collect();
    if items.len() >= 2 {
        for ws in items {
            for w in ws.iter().filter(|w| !matches!(w.norm.as_str(), "or" | "and")) {
                out.push(Fact::new(FactKind::Literal, w.norm.clone(), format!("value {}", w.raw)));
            }
        }
    }
    // "sorted by X", "ordered by X": the sort key.
    for (i, w) in r.words.iter().enumerate() {
        if matches!(w.norm.as_str(), "sorted" | "ordered" | "sort" | "order")
            && r.words.get(i + 1).is_some_and(|b| b.norm == "by")
            && let Some(k) = r.words[i + 2..]
                .iter()
                .take_while(|x| x.clause == w.clause)
                .find(|x| !STOPWORDS.contains(&x.norm.as_str()))
        {
            out.push(Fact::new(FactKind::Literal, format!("sort {}", k.norm), format!("sorted by {}", k.raw)));
        }
    }
}

/// Whether the clause is an item of a list of values: it follows, through other one-word items, a
/// clause that announces values ("Allowed values:", "one of", "Level:", "Output format:").
fn listed_after_cue(by_clause: &BTreeMap<usize, Vec<&Word>>, clause: usize) -> bool {
    const CUES: &[&str] = &[
        "value", "option", "choice", "mode", "format", "type", "level", "status", "state", "kind", "of", "either",
        "are", "is",
    ];
    let mut c = clause;
    while c > 0 {
        c -= 1;
        let Some(ws) = by_clause.get(&c) else { continue };
        if ws.len() <= 3
            && ws.iter().all(|w| matches!(w.norm.as_str(), "or" | "and") || !STOPWORDS.contains(&w.norm.as_str()))
        {
            if ws.last().is_some_and(|w| CUES.contains(&w.norm.as_str())) {
                return true;
            }
            continue;
        }
        return ws.last().is_some_and(|w| CUES.contains(&w.norm.as_str()));
    }
    false
}

/// "be a (positive) number": words after `must` that only name a JSON type.
fn restates_type(after: &[Word]) -> bool {
    let words: Vec<&str> = after.iter().take(5).map(|w| w.norm.as_str()).collect();
    let (["be", "a" | "an", rest @ ..] | ["be", rest @ ..]) = words.as_slice() else { return false };
    let rest: Vec<&str> =
        rest.iter().copied().skip_while(|w| matches!(*w, "positive" | "non-negative" | "valid" | "whole")).collect();
    rest.first()
        .is_some_and(|w| matches!(*w, "number" | "integer" | "string" | "boolean" | "array" | "object" | "float"))
}

/// The irreversible action a word names, in its base form: `removed`, `removing` and `deletes` are
/// `delete`.
fn irreversible(norm: &str) -> Option<&'static str> {
    let forms = [
        Some(norm.to_owned()),
        norm.strip_suffix('d').map(str::to_owned),
        norm.strip_suffix("ed").map(str::to_owned),
        norm.strip_suffix("ing").map(|b| format!("{b}e")),
        norm.strip_suffix("ing").map(str::to_owned),
    ];
    forms.into_iter().flatten().find_map(|f| {
        let f = fold(&f);
        super::lexicon::IRREVERSIBLE.iter().find(|d| **d == f).copied()
    })
}

/// The successor a deprecation notice names: the first code span or identifier after "use", "call",
/// "instead", "in favor of", "replaced by", "migrate to" or "superseded by".
pub(super) fn successor(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    let cue = ["use ", "call ", "instead", "in favor of", "in favour of", "replaced by", "migrate to", "superseded by"]
        .iter()
        .filter_map(|c| lower.find(c).map(|i| i + c.len()))
        .min()?;
    let rest = text.get(cue..)?;
    rest.split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '(' | ')'))
        .map(|w| w.trim_matches(|c: char| matches!(c, '`' | '"' | '\'' | '.' | ':')))
        .find(|w| is_identifier(w) || (names_something(w) && rest.contains(&format!("`{w}`"))))
        .map(|w| format!("`{w}`"))
}

pub(super) fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n { s.to_owned() } else { format!("{}…", s.chars().take(n - 1).collect::<String>()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lexicon word that folding turns into another word can never match (`deprecated` once read as
    /// `deprecate`, so no deprecation was ever seen).
    #[test]
    fn every_lexicon_word_is_read_as_itself() {
        for list in [UNITS, OBLIGATION, NEGATION, SCOPE, SIDE_EFFECTS, LIMIT, MINIMUM] {
            for w in list {
                let folded = fold(w);
                assert!(list.contains(&folded.as_str()), "{w:?} is read as {folded:?}, which the list does not hold");
            }
        }
    }
}
