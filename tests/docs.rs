//! The README and the manual in `docs/` are checked like code (issue #34).
//!
//! **Links.** Every relative Markdown link (`[text](path)`, `[text](path#anchor)`, `[text](#anchor)`)
//! in README.md and docs/*.md, outside code blocks and code spans, must name a file or directory that
//! exists, and an anchor must match a heading of the Markdown file it points into, slugged as GitHub
//! slugs headings (inline code, emphasis and link syntax rendered to text; lower case; every
//! character that is not a letter, digit, space, `-` or `_` dropped; spaces to `-`; a repeated slug
//! gets `-1`, `-2`). Links with a scheme (`https:`, `mailto:`) are not fetched: nothing here touches
//! the network.
//!
//! **Commands.** Every `mcp-drift ...` command in a fenced block tagged `sh`, `bash`, `shell` or
//! `console` (`$ ` lines only) is read with shell quoting (quotes, backslashes, `\` line
//! continuations, comments, `&&`/`||`/`|`/`;` lists and redirections), and the built binary is run
//! with its arguments from the repository root, so the paths are the shipped `corpus/` and `tests/`
//! files. The check is that clap accepted the arguments: a clap rejection is exit 2 with clap's usage
//! trailer (`For more information, try '--help'.`), which no error of mcp-drift itself prints. Any
//! other outcome passes (exit 0 and 1 are findings; exit 2 without the trailer is a runtime error
//! such as a placeholder file like `tools.json` that does not exist, or a revision absent from this
//! clone), because a runtime error is only reached after clap has parsed every argument. A command
//! that does not end within a minute fails.
//!
//! Nothing may be written into the repository, no server started, no network reached. So, before
//! running, and without changing how clap parses the command (a value is replaced by another value
//! of the same option, and a missing option with a default is given explicitly):
//! - the values of `-o`/`--output`, `--per-tool`, `--audit` and `--record` are moved into a
//!   temporary directory (same file name); `lock` and `baseline` get `--output` there when they have
//!   none, and `verify --update` gets `--lock` there when it names none;
//! - for `capture` and `guard`, the server command after `--` (clap takes everything after `--` as
//!   raw values, so its words cannot affect parsing) becomes one program that does not exist, and a
//!   `--url` value becomes `http://127.0.0.1:9/mcp` (the discard port: refused at once). Both
//!   commands then stop with their own runtime error (`command ... not found`, a missing lock, an
//!   unset `--header-env` variable), after parsing.
//!
//! A block whose fence is preceded by `<!-- docs-test: skip (reason) -->` is not run; its commands
//! are counted as skipped, and more than [`MAX_SKIPS`] skipped commands fail the test. Synopses with
//! `[OPTIONS]` belong in `text` blocks, which are not run.

use assert_cmd::Command;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
/// How an option's value is replaced before the command runs: (value, move into the temporary directory).
type Replace = fn(&str, &dyn Fn(&str) -> String) -> String;
/// Commands in skipped blocks allowed in all pages together.
const MAX_SKIPS: usize = 3;
const SKIP_MARKER: &str = "<!-- docs-test: skip (";
/// A program that does not exist: what `capture` and `guard` are given to start.
const NO_SERVER: &str = "/nonexistent/mcp-drift-docs-test/server";

/// README.md and every docs/*.md, as paths relative to the repository root.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![PathBuf::from("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(Path::new(ROOT).join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .map(|p| p.strip_prefix(ROOT).unwrap().to_path_buf())
        .collect();
    docs.sort();
    assert!(!docs.is_empty(), "no docs/*.md");
    pages.extend(docs);
    pages
}

fn read(page: &Path) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(page)).unwrap_or_else(|e| panic!("{}: {e}", page.display()))
}

/// A fence line's marker (three or more backticks or tildes) and info string.
fn fence(line: &str) -> Option<(String, String)> {
    let t = line.trim_start();
    let c = t.chars().next()?;
    if c != '`' && c != '~' {
        return None;
    }
    let n = t.chars().take_while(|&x| x == c).count();
    (n >= 3).then(|| (c.to_string().repeat(n), t[n..].trim().to_owned()))
}

/// One line of a page with its number, and the code block it is in (`None` outside any).
struct Line<'a> {
    number: usize,
    text: &'a str,
    block: Option<usize>,
}

/// A fenced code block: its info string, and whether a skip marker precedes it.
struct Block {
    info: String,
    skip: bool,
    first_line: usize,
}

fn scan(text: &str) -> (Vec<Line<'_>>, Vec<Block>) {
    let mut lines = Vec::new();
    let mut blocks: Vec<Block> = Vec::new();
    let mut open: Option<String> = None;
    let mut last_text = "";
    for (i, l) in text.lines().enumerate() {
        match (&open, fence(l)) {
            (None, Some((marker, info))) => {
                let skip = last_text.trim_start().starts_with(SKIP_MARKER);
                blocks.push(Block { info, skip, first_line: i + 1 });
                open = Some(marker);
            }
            (Some(marker), Some((m, info))) if m.starts_with(marker.as_str()) && info.is_empty() => {
                open = None;
                last_text = "";
            }
            (Some(_), _) => lines.push(Line { number: i + 1, text: l, block: Some(blocks.len() - 1) }),
            (None, None) => {
                lines.push(Line { number: i + 1, text: l, block: None });
                if !l.trim().is_empty() {
                    last_text = l;
                }
            }
        }
    }
    (lines, blocks)
}

/// A line with its code spans removed (text between equal runs of backticks).
fn without_code_spans(line: &str) -> String {
    let mut out = String::new();
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'`' {
            let n = b[i..].iter().take_while(|&&c| c == b'`').count();
            let run = "`".repeat(n);
            if let Some(end) = line[i + n..].find(&run) {
                i += n + end + n;
                continue;
            }
            out.push_str(&run);
            i += n;
            continue;
        }
        let ch = line[i..].chars().next().unwrap();
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

/// GitHub's anchor for a heading's text.
fn slug(heading: &str) -> String {
    // Render the inline syntax that does not reach the anchor: links keep their text.
    let mut text = String::new();
    let mut rest = heading;
    while let Some(open) = rest.find('[') {
        let Some(mid) = rest[open..].find("](") else { break };
        let Some(close) = rest[open + mid..].find(')') else { break };
        text.push_str(&rest[..open]);
        text.push_str(&rest[open + 1..open + mid]);
        rest = &rest[open + mid + close + 1..];
    }
    text.push_str(rest);
    text.to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a page's headings.
fn anchors(text: &str) -> BTreeSet<String> {
    let (lines, _) = scan(text);
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    for l in lines.iter().filter(|l| l.block.is_none()) {
        let t = l.text.trim_start();
        let hashes = t.chars().take_while(|&c| c == '#').count();
        if !(1..=6).contains(&hashes) || !t[hashes..].starts_with(' ') {
            continue;
        }
        let s = slug(t[hashes..].trim().trim_end_matches('#').trim());
        let n = seen.entry(s.clone()).or_insert(0);
        out.insert(if *n == 0 { s.clone() } else { format!("{s}-{n}") });
        *n += 1;
    }
    out
}

/// Every link target of a page outside code, with its line number.
fn links(text: &str) -> Vec<(usize, String)> {
    let (lines, _) = scan(text);
    let mut out = Vec::new();
    for l in lines.iter().filter(|l| l.block.is_none()) {
        let line = without_code_spans(l.text);
        let mut rest = line.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            let target = after[..end].split_whitespace().next().unwrap_or("").trim_matches(['<', '>']);
            out.push((l.number, target.to_owned()));
            rest = &after[end..];
        }
    }
    out
}

#[test]
fn slugs_follow_github() {
    assert_eq!(slug("Pull-request CI: `diff` against the base branch"), "pull-request-ci-diff-against-the-base-branch");
    assert_eq!(slug("`mcp-drift.toml`"), "mcp-drifttoml");
    assert_eq!(slug("Descriptions and annotations (meaning drift)"), "descriptions-and-annotations-meaning-drift");
    assert_eq!(slug("See [the index](README.md) first"), "see-the-index-first");
    assert_eq!(anchors("# A\n## B\n```sh\n# not a heading\n```\n## B\n"), ["a", "b", "b-1"].map(String::from).into());
}

#[test]
fn every_relative_link_and_anchor_resolves() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let text = read(&page);
        let dir = page.parent().unwrap_or(Path::new(""));
        for (line, target) in links(&text) {
            if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (path, anchor) = match target.split_once('#') {
                Some((p, a)) => (p, Some(a)),
                None => (target.as_str(), None),
            };
            let file = if path.is_empty() { page.clone() } else { dir.join(path) };
            let full = Path::new(ROOT).join(&file);
            if !full.exists() {
                broken.push(format!("{}:{line}: `{target}`: {} does not exist", page.display(), file.display()));
                continue;
            }
            if let Some(anchor) = anchor {
                let is_markdown = full.extension().is_some_and(|x| x == "md");
                if !is_markdown || !anchors(&read(&file)).contains(anchor) {
                    broken.push(format!(
                        "{}:{line}: `{target}`: no heading `#{anchor}` in {}",
                        page.display(),
                        file.display()
                    ));
                }
            }
        }
    }
    println!("checked {checked} relative links");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    assert!(checked >= 50, "only {checked} relative links found: is the link parser broken?");
}

/// Shell words and list operators of one logical command line (after `$ ` for console blocks).
fn shell_segments(line: &str) -> Vec<Vec<String>> {
    let mut segments = vec![Vec::new()];
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    let end_word = |word: &mut String, in_word: &mut bool, segments: &mut Vec<Vec<String>>| {
        if *in_word {
            segments.last_mut().unwrap().push(std::mem::take(word));
            *in_word = false;
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    word.push(q);
                }
            }
            '"' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' if matches!(chars.peek(), Some('"' | '\\' | '$' | '`')) => {
                            word.push(chars.next().unwrap());
                        }
                        _ => word.push(q),
                    }
                }
            }
            '\\' => {
                if let Some(n) = chars.next() {
                    in_word = true;
                    word.push(n);
                }
            }
            '#' if !in_word => break,
            ' ' | '\t' => end_word(&mut word, &mut in_word, &mut segments),
            '&' | '|' | ';' => {
                end_word(&mut word, &mut in_word, &mut segments);
                if matches!(chars.peek(), Some('&' | '|')) {
                    chars.next();
                }
                segments.push(Vec::new());
            }
            '>' | '<' => {
                // A redirection: drop a file-descriptor number before it and the target after it.
                if in_word && word.chars().all(|d| d.is_ascii_digit()) {
                    word.clear();
                    in_word = false;
                }
                end_word(&mut word, &mut in_word, &mut segments);
                while matches!(chars.peek(), Some('>' | '&')) {
                    chars.next();
                }
                while matches!(chars.peek(), Some(' ')) {
                    chars.next();
                }
                while matches!(chars.peek(), Some(c) if !c.is_whitespace()) {
                    chars.next();
                }
            }
            _ => {
                in_word = true;
                word.push(c);
            }
        }
    }
    end_word(&mut word, &mut in_word, &mut segments);
    segments.retain(|s| !s.is_empty());
    segments
}

/// A command found in a page: where, its arguments after `mcp-drift`, and whether it is skipped.
struct Shown {
    place: String,
    args: Vec<String>,
    skip: bool,
}

fn commands(page: &Path, text: &str) -> Vec<Shown> {
    let (lines, blocks) = scan(text);
    let mut out = Vec::new();
    let mut pending = String::new();
    let mut start = 0;
    for l in &lines {
        let Some(b) = l.block else { continue };
        let block = &blocks[b];
        let lang = block.info.split_whitespace().next().unwrap_or("");
        let console = lang == "console";
        if !matches!(lang, "sh" | "bash" | "shell" | "console") {
            continue;
        }
        let text = if pending.is_empty() && console {
            match l.text.trim_start().strip_prefix("$ ") {
                Some(t) => t,
                None => continue,
            }
        } else {
            l.text
        };
        if pending.is_empty() {
            start = l.number;
        }
        if let Some(head) = text.strip_suffix('\\') {
            pending.push_str(head);
            pending.push(' ');
            continue;
        }
        pending.push_str(text);
        for words in shell_segments(&std::mem::take(&mut pending)) {
            if words[0] == "mcp-drift" {
                out.push(Shown {
                    place: format!("{}:{start} (block at line {})", page.display(), block.first_line),
                    args: words[1..].to_vec(),
                    skip: block.skip,
                });
            }
        }
    }
    out
}

/// The arguments to run: outputs moved into `tmp`, no server started, no network (see the module
/// documentation); clap parses them exactly as it parses the shown ones.
fn contained(args: &[String], tmp: &Path) -> Vec<String> {
    let moved = |value: &str| tmp.join(Path::new(value).file_name().unwrap_or("out".as_ref())).display().to_string();
    let mut out: Vec<String> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--" && matches!(args.first().map(String::as_str), Some("capture" | "guard")) {
            out.push(a.clone());
            out.push(NO_SERVER.into());
            break;
        }
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v)),
            _ => (a.as_str(), None),
        };
        let replace: Option<Replace> = match flag {
            "-o" | "--output" | "--per-tool" | "--audit" | "--record" => Some(|v, moved| moved(v)),
            "--url" => Some(|_, _| "http://127.0.0.1:9/mcp".into()),
            _ => None,
        };
        match (replace, inline) {
            (Some(f), Some(v)) => out.push(format!("{flag}={}", f(v, &moved))),
            (Some(f), None) => {
                out.push(a.clone());
                if let Some(v) = it.next() {
                    out.push(f(v, &moved));
                }
            }
            (None, _) => out.push(a.clone()),
        }
    }
    let has = |flag: &str| args.iter().any(|a| a == flag || a.starts_with(&format!("{flag}=")));
    let sub = args.first().map(String::as_str);
    let mut extra = Vec::new();
    if matches!(sub, Some("lock" | "baseline")) && !has("--output") {
        extra.extend([
            "--output".to_owned(),
            moved(if sub == Some("lock") { "mcp-tools.lock" } else { "baseline.json" }),
        ]);
    }
    if sub == Some("verify") && has("--update") && !has("--lock") {
        extra.extend(["--lock".to_owned(), moved("mcp-tools.lock")]);
    }
    // Options go before a `--` (none of these subcommands takes one) and after the subcommand.
    let at = out.iter().position(|a| a == "--").unwrap_or(out.len());
    out.splice(at..at, extra);
    out
}

fn top_level_entries() -> BTreeSet<String> {
    std::fs::read_dir(ROOT).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect()
}

#[test]
fn every_shown_command_parses() {
    let tmp = tempfile::tempdir().unwrap();
    let before = top_level_entries();
    let (mut run, mut skipped, mut rejected) = (0, Vec::new(), Vec::new());
    for page in pages() {
        for shown in commands(&page, &read(&page)) {
            if shown.skip {
                skipped.push(shown.place);
                continue;
            }
            let args = contained(&shown.args, tmp.path());
            let out = Command::cargo_bin("mcp-drift")
                .unwrap()
                .current_dir(ROOT)
                .args(&args)
                .env_remove("GITHUB_REPOSITORY")
                .write_stdin("")
                .timeout(Duration::from_mins(1))
                .output()
                .unwrap();
            run += 1;
            let stderr = String::from_utf8_lossy(&out.stderr);
            match out.status.code() {
                Some(2) if stderr.contains("For more information, try '--help'") => rejected.push(format!(
                    "{}: mcp-drift {}\n{}",
                    shown.place,
                    shown.args.join(" "),
                    stderr.lines().take(4).collect::<Vec<_>>().join("\n")
                )),
                Some(_) => {}
                None => {
                    rejected.push(format!("{}: mcp-drift {}: timed out or killed", shown.place, shown.args.join(" ")));
                }
            }
        }
    }
    println!("ran {run} shown commands, skipped {}: {skipped:?}", skipped.len());
    assert!(rejected.is_empty(), "commands that do not parse:\n{}", rejected.join("\n\n"));
    assert!(skipped.len() <= MAX_SKIPS, "{} commands skipped (at most {MAX_SKIPS}): {skipped:?}", skipped.len());
    assert!(run >= 20, "only {run} commands found: is the block parser broken?");
    let after = top_level_entries();
    let new: Vec<_> = after.difference(&before).collect();
    assert!(new.is_empty(), "a shown command wrote into the repository root: {new:?}");
}

#[test]
fn shell_words_are_read_as_a_shell_reads_them() {
    let s = |l: &str| shell_segments(l);
    assert_eq!(
        s(r#"mcp-drift diff a.json "b c.json" --format 'json' > out.json 2>&1 || status=$?  # comment"#),
        vec![vec!["mcp-drift", "diff", "a.json", "b c.json", "--format", "json"], vec!["status=$?"]]
    );
    assert_eq!(s("echo \"exit code $?\""), vec![vec!["echo", "exit code $?"]]);
    let args: Vec<String> =
        ["capture", "-o", "tools.json", "--url", "http://x/mcp", "--", "node", "i.js"].map(String::from).into();
    let out = contained(&args, Path::new("/t"));
    assert_eq!(out, ["capture", "-o", "/t/tools.json", "--url", "http://127.0.0.1:9/mcp", "--", NO_SERVER]);
    let out = contained(&["lock".to_owned(), "s.json".to_owned()], Path::new("/t"));
    assert_eq!(out, ["lock", "s.json", "--output", "/t/mcp-tools.lock"]);
}

/// The README shows the one command that runs the tests.
#[test]
fn readme_shows_the_test_command() {
    let readme = read(Path::new("README.md"));
    let (lines, blocks) = scan(&readme);
    assert!(
        lines.iter().any(|l| l.block.is_some_and(|b| blocks[b].info == "sh") && l.text.trim() == "cargo test"),
        "README.md has no `sh` block with `cargo test`"
    );
}
