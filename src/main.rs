//! The `mcp-drift` command line: parses arguments, runs the library, maps the result to an exit code
//! (0 clean, 1 findings at or above `--fail-on`, 2 usage or input error).

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use mcp_drift::catalog::{RuleId, Severity};
use mcp_drift::lint::Protocol;
use mcp_drift::load::{Limits, Select, Source};
use mcp_drift::policy::Policy;
use mcp_drift::report;

#[derive(Parser)]
#[command(name = "mcp-drift", version, about = "Direction-aware breaking-change analysis for MCP tools/list snapshots")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Compare two snapshots (files, directories of per-tool files, or `-` for stdin).
    Diff {
        /// The snapshot callers were built against (`REV:PATH` reads PATH at a git revision).
        old: String,
        /// The snapshot about to ship (omit it with `--base`).
        new: Option<String>,
        /// Compare OLD (a path) at this git revision with the same path in the working tree. The
        /// configuration (./mcp-drift.toml and the baseline it names) is read at REV too, unless
        /// --config names a file.
        #[arg(long, value_name = "REV")]
        base: Option<String>,
        #[command(flatten)]
        report: ReportArgs,
        #[command(flatten)]
        input: InputArgs,
    },
    /// Write release notes for the server's users (Keep a Changelog sections, Markdown) from the
    /// changes between OLD and NEW; same inputs, configuration and baseline as `diff`.
    Notes {
        old: String,
        new: Option<String>,
        #[arg(long, value_name = "REV")]
        base: Option<String>,
        /// Start the notes with a `## TEXT` heading.
        #[arg(long, value_name = "TEXT")]
        title: Option<String>,
        #[command(flatten)]
        report: ReportArgs,
        #[command(flatten)]
        input: InputArgs,
    },
    /// Check snapshots on their own before release (schema validity, MCP rules, hidden text, ...).
    Lint {
        #[command(flatten)]
        target: LintTarget,
        /// Read the configuration and the baseline it names as committed at this git revision (the
        /// snapshots are still the working tree's): a pull request cannot relax its own lint.
        #[arg(long, value_name = "REV")]
        base: Option<String>,
        #[command(flatten)]
        report: ReportArgs,
    },
    /// Record today's findings as accepted, so a team can adopt mcp-drift on a noisy history.
    Baseline {
        #[command(subcommand)]
        action: BaselineAction,
    },
    /// Record the contract of every tool of SNAPSHOT, hashed, in a lock file.
    Lock {
        snapshot: String,
        #[arg(long, default_value = mcp_drift::lock::LOCK_FILE)]
        output: std::path::PathBuf,
        #[command(flatten)]
        input: InputArgs,
    },
    /// Check SNAPSHOT against the lock: every drifted tool is explained with the diff's rules.
    Verify {
        snapshot: String,
        /// The lock: a file, `REV:PATH` (as committed at a git revision) or `-` (standard input). With
        /// --base, a relative path is read at REV (write `./PATH` for the working tree's file).
        #[arg(long, default_value = mcp_drift::lock::LOCK_FILE)]
        lock: String,
        /// Verify against the lock, configuration and baseline as committed at this git revision, so a
        /// pull request that rewrites the lock (`verify --update`) cannot pass its own change.
        #[arg(long, value_name = "REV")]
        base: Option<String>,
        /// Rewrite the lock after review.
        #[arg(long)]
        update: bool,
        #[command(flatten)]
        report: ReportArgs,
        #[command(flatten)]
        input: InputArgs,
    },
    /// Check recorded calls and results (JSON Lines) against NEW: which the new inputSchema rejects,
    /// which pass arguments it no longer declares, which results its outputSchema no longer describes.
    Replay(ReplayArgs),
    /// Put an MCP server (stdio `-- CMD`, or streamable HTTP `--url`) behind the lock: calls of a tool
    /// whose contract drifted are answered with an error result and never reach the server.
    Guard(GuardArgs),
    /// Start an MCP server (`-- CMD [ARGS...]`, stdio) or reach one (`--url`, streamable HTTP) and write
    /// its `tools/list` as a canonical snapshot.
    Capture(CaptureArgs),
    /// List every rule.
    Rules {
        #[arg(long, value_enum, default_value_t = FormatArg::Human)]
        format: FormatArg,
    },
    /// Print the documentation of one rule.
    Explain {
        /// A rule id, e.g. `input-required-added`.
        rule: String,
    },
}

/// `mcp-drift replay NEW --calls FILE... [--old OLD]`.
#[derive(clap::Args)]
struct ReplayArgs {
    /// The snapshot about to ship.
    new: String,
    /// Recorded traffic, JSON Lines (JSON-RPC messages, batches, wrapped messages, bare
    /// `{"tool", "arguments"}` records, guard --audit lines); `-` reads standard input.
    #[arg(long, required = true, num_args = 1.., value_name = "FILE")]
    calls: Vec<String>,
    /// The snapshot the calls were made against: each replay finding is tied to the diff finding that
    /// explains it, and each diff finding says how many recorded calls it affects.
    #[arg(long, value_name = "OLD")]
    old: Option<String>,
    /// Show recorded values (clipped to 40 characters) in examples instead of their kind and length.
    #[arg(long)]
    show_values: bool,
    /// The longest line read from a calls file; longer ones are skipped and counted.
    #[arg(long, value_name = "BYTES", value_parser = parse_size, default_value = "16MiB")]
    max_line_bytes: u64,
    #[command(flatten)]
    report: ReportArgs,
    #[command(flatten)]
    input: InputArgs,
}

/// `mcp-drift guard [OPTIONS] -- CMD [ARGS...]`.
#[derive(clap::Args)]
struct GuardArgs {
    /// The lock the server's tools are checked against.
    #[arg(long, default_value = mcp_drift::lock::LOCK_FILE)]
    lock: std::path::PathBuf,
    /// Append one JSON line per tools/call here (time, tool, hashes, decision, request id).
    #[arg(long, value_name = "FILE")]
    audit: Option<std::path::PathBuf>,
    /// Append every message of the session here, both directions, verbatim, one JSON line each: the
    /// recorded traffic `mcp-drift replay --calls` reads. It holds the calls' arguments and results.
    #[arg(long, value_name = "FILE")]
    record: Option<std::path::PathBuf>,
    /// Forward calls whose drift is only findings of these rules (repeatable, or comma-separated).
    #[arg(long, value_name = "RULE", num_args = 1.., value_delimiter = ',')]
    allow_drift: Vec<String>,
    /// Refuse a drifted tool's calls for findings at or above this severity [default: warning, or info
    /// when the configuration's fail-on is info or never]. A tool not in the lock, or whose drift no
    /// rule explains, is always refused.
    #[arg(long, value_enum, value_name = "SEVERITY")]
    block_on: Option<BlockOn>,
    /// The configuration whose fail-on and [severity] overrides the guard applies [default:
    /// mcp-drift.toml in the current directory, when there is one].
    #[arg(long, value_name = "FILE")]
    config: Option<std::path::PathBuf>,
    /// How long the server may take to answer the guard's own tools/list, every page of it: 30s, 500ms, 2m.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = mcp_drift::capture::plan::parse_timeout)]
    timeout: std::time::Duration,
    /// When the server's tools are listed and checked again: before every tools/call, or only before
    /// the first, after a list-changed notification and after the client's own listing.
    #[arg(long, value_enum, value_name = "WHEN", default_value = "every-call")]
    recheck: RecheckArg,
    /// Replace a result whose structuredContent the locked outputSchema rejects with an isError result
    /// saying why [default: pass it on, with a notice and an audit line].
    #[arg(long)]
    enforce_results: bool,
    /// The longest message read from the client or the server (e.g. 64MiB).
    #[arg(long, value_name = "BYTES", value_parser = parse_size, default_value = "64MiB")]
    max_message_bytes: u64,
    /// Serve the client over streamable HTTP at this loopback address (`127.0.0.1:PORT`, endpoint
    /// `/mcp`) instead of standard input and output; the session ends with the client's DELETE.
    #[arg(long, value_name = "ADDR")]
    listen: Option<std::net::SocketAddr>,
    /// A streamable HTTP server to guard instead of starting one: its MCP endpoint. No redirect is
    /// followed.
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    url: Option<String>,
    /// An HTTP header for every request to --url (repeatable). Its value is never printed.
    #[arg(long = "header", value_name = "NAME: VALUE", requires = "url")]
    headers: Vec<String>,
    /// An HTTP header whose value is read from the environment variable ENVVAR (repeatable).
    #[arg(long = "header-env", value_name = "NAME=ENVVAR", requires = "url")]
    header_env: Vec<String>,
    /// The server's command line (a stdio server), unless --url is given.
    #[arg(last = true, required_unless_present = "url", value_name = "CMD")]
    command: Vec<std::ffi::OsString>,
}

#[derive(Clone, Copy, ValueEnum)]
enum RecheckArg {
    EveryCall,
    OnNotify,
}

#[derive(Clone, Copy, ValueEnum)]
enum BlockOn {
    Error,
    Warning,
    Info,
}

/// `capture`: which server, where the snapshot goes.
#[derive(clap::Args)]
struct CaptureArgs {
    /// Write the snapshot to FILE (atomically) instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    output: Option<std::path::PathBuf>,
    /// Write one `<tool>.snap` file per tool into DIR instead (replacing an earlier capture there).
    #[arg(long, value_name = "DIR", conflicts_with = "output")]
    per_tool: Option<std::path::PathBuf>,
    /// Talk streamable HTTP to the server at this URL instead of starting a command.
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    url: Option<String>,
    /// An HTTP header for every request (repeatable). Its value is never printed.
    #[arg(long = "header", value_name = "NAME: VALUE", requires = "url")]
    headers: Vec<String>,
    /// An HTTP header whose value is read from the environment variable ENVVAR (repeatable).
    #[arg(long = "header-env", value_name = "NAME=ENVVAR", requires = "url")]
    header_env: Vec<String>,
    /// How long each step (initialize, each tools/list page) may take: 30s, 500ms, 2m.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = mcp_drift::capture::plan::parse_timeout)]
    timeout: std::time::Duration,
    /// How long the whole capture may take, every step and page together: 2m, 90s.
    #[arg(long, value_name = "DURATION", default_value = "2m", value_parser = mcp_drift::capture::plan::parse_timeout)]
    deadline: std::time::Duration,
    /// Keep the tools' `_meta` (left out by default: servers put volatile data there).
    #[arg(long)]
    keep_meta: bool,
    /// Do not pass the server's stderr through.
    #[arg(long)]
    quiet: bool,
    /// The stdio server to start: program and arguments, after `--`.
    #[arg(last = true, value_name = "CMD")]
    command: Vec<String>,
}

#[derive(Subcommand)]
enum BaselineAction {
    /// Write every current finding of `diff OLD NEW` to the baseline file.
    Write {
        old: String,
        new: String,
        #[command(flatten)]
        out: BaselineOut,
        #[command(flatten)]
        input: InputArgs,
    },
    /// Write every current finding of `lint SNAPSHOT...` to the baseline file.
    Lint {
        #[command(flatten)]
        target: LintTarget,
        #[command(flatten)]
        out: BaselineOut,
    },
}

/// What `lint` reads and against which protocol revision.
#[derive(clap::Args)]
struct LintTarget {
    /// Snapshot files or directories (`REV:PATH` reads PATH at a git revision, `-` reads stdin).
    #[arg(required = true)]
    snapshots: Vec<String>,
    /// Also check against the Tool definition of this MCP protocol revision (2025-06-18, 2025-11-25, 2026-07-28).
    #[arg(long, value_name = "VERSION", value_parser = parse_protocol)]
    protocol: Option<Protocol>,
    #[command(flatten)]
    input: InputArgs,
}

impl LintTarget {
    /// The revision whose policy judges a lint without `--base`: the one every `REV:PATH` snapshot
    /// is read at, as `diff REV:PATH ...` reads the old side's (a lint of files at a revision takes
    /// that revision's configuration, not the working tree's). Snapshots at two revisions are a usage
    /// error without `--base` or `--config`.
    fn judge_rev(&self) -> Result<Option<String>, mcp_drift::Error> {
        let mut revs = Vec::new();
        for s in &self.snapshots {
            if let Source::Git { rev, .. } = Source::parse(s)?
                && !revs.contains(&rev)
            {
                revs.push(rev);
            }
        }
        if revs.len() > 1 {
            return Err(mcp_drift::Error::Usage(
                "snapshots at two revisions: give --base REV (or --config FILE) to say whose configuration \
                 and baseline apply"
                    .into(),
            ));
        }
        Ok(revs.pop())
    }

    fn run(&self, config: &mcp_drift::policy::Config) -> Result<mcp_drift::Analysis, mcp_drift::Error> {
        let sources = self.snapshots.iter().map(|s| Source::parse(s)).collect::<Result<Vec<_>, _>>()?;
        if sources.iter().filter(|s| **s == Source::Stdin).count() > 1 {
            return Err(mcp_drift::Error::Usage("only one snapshot can be read from standard input".into()));
        }
        let options = mcp_drift::lint::Options { protocol: self.protocol };
        mcp_drift::lint_selected(&sources, options, self.input.limits(), &self.input.select(config)?)
    }
}

/// How much one run may read, and which snapshot files.
#[derive(clap::Args, Clone)]
struct InputArgs {
    /// The most bytes read from one snapshot file, standard input, git blob or lock file (e.g. 64MiB).
    /// Configuration and baseline files are capped at 16 MiB.
    #[arg(long, value_name = "BYTES", value_parser = parse_size, default_value = "256MiB")]
    max_input_bytes: u64,
    /// The most bytes read for one side in all: every snapshot file of a directory or git tree
    /// together, each path counted (hard links and entries sharing one blob too).
    #[arg(long, value_name = "BYTES", value_parser = parse_size, default_value = "256MiB")]
    max_total_bytes: u64,
    /// The most tools one side may hold: a file of a million tiny tools is under every byte cap and
    /// would make the run large.
    #[arg(long, value_name = "N", default_value_t = mcp_drift::load::DEFAULT_MAX_TOOLS)]
    max_tools: usize,
    /// Read only snapshot files matching this glob (repeatable; gitignore-style `**`), matched against
    /// the path relative to the directory given, or a single file's own path. Same at git revisions.
    #[arg(long, value_name = "GLOB")]
    include: Vec<String>,
    /// Skip snapshot files matching this glob (repeatable); an exclude wins over an include.
    #[arg(long, value_name = "GLOB")]
    exclude: Vec<String>,
}

impl InputArgs {
    fn limits(&self) -> Limits {
        Limits { max_input_bytes: self.max_input_bytes }
    }

    /// The files to read: these flags with the configuration's `include`/`exclude`.
    fn select(&self, config: &mcp_drift::policy::Config) -> Result<Select, mcp_drift::Error> {
        Ok(Select::with_config(&self.include, &self.exclude, &config.include, &config.exclude)?
            .with_max_total_bytes(self.max_total_bytes)
            .with_max_tools(self.max_tools))
    }
}

fn parse_size(s: &str) -> Result<u64, String> {
    mcp_drift::load::read::parse_size(s)
}

/// Where a baseline goes and what it records.
#[derive(clap::Args)]
struct BaselineOut {
    /// Where to write it.
    #[arg(long, default_value = mcp_drift::policy::BASELINE_FILE)]
    output: std::path::PathBuf,
    /// The reason recorded with each accepted finding.
    #[arg(long, default_value = "accepted when adopting mcp-drift (baseline)")]
    reason: String,
    #[arg(long)]
    config: Option<std::path::PathBuf>,
}

/// How findings are reported and judged: shared by `diff`, `lint` and `verify`.
#[derive(clap::Args)]
struct ReportArgs {
    #[arg(long, value_enum, default_value_t = FormatArg::Human)]
    format: FormatArg,
    /// Exit 1 when a finding is at or above this severity [default: the config's `fail-on`, else error].
    #[arg(long, value_enum)]
    fail_on: Option<FailOn>,
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    color: Color,
    /// Configuration file [default: ./mcp-drift.toml when it exists; with --base, ./mcp-drift.toml at REV].
    #[arg(long)]
    config: Option<std::path::PathBuf>,
    /// Read the configuration and the baseline it names as committed at this git revision, not the
    /// working tree's (for two snapshot files on disk: the pull request cannot choose its own policy).
    #[arg(long, value_name = "REV", conflicts_with = "config")]
    config_from: Option<String>,
    /// A baseline of accepted findings (written by `mcp-drift baseline write`).
    #[arg(long)]
    baseline: Option<std::path::PathBuf>,
    /// Write the report to this file instead of standard output (atomically: a finished file or none).
    #[arg(long, value_name = "FILE")]
    output: Option<std::path::PathBuf>,
    /// Print `info` findings in full (human format); by default each rule's infos are counted on one line.
    #[arg(long, short = 'v')]
    show_infos: bool,
}

fn parse_protocol(s: &str) -> Result<Protocol, String> {
    s.parse()
}

#[derive(Clone, Copy, ValueEnum)]
enum FormatArg {
    Human,
    Json,
    Sarif,
    Github,
    Markdown,
    Junit,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum FailOn {
    Error,
    Warning,
    Info,
    Never,
}

#[derive(Clone, Copy, ValueEnum)]
enum Color {
    Auto,
    Always,
    Never,
}

impl FailOn {
    fn threshold(self) -> Option<Severity> {
        match self {
            FailOn::Error => Some(Severity::Error),
            FailOn::Warning => Some(Severity::Warning),
            FailOn::Info => Some(Severity::Info),
            FailOn::Never => None,
        }
    }
}

fn use_color(choice: Color) -> bool {
    match choice {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && std::io::stdout().is_terminal(),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(code) => code,
        Err(e) => {
            // A configuration error lists every problem, one neutral line each.
            for line in e.to_string().lines() {
                say(&format!("error: {line}"));
            }
            ExitCode::from(2)
        }
    }
}

/// A path or name from the command line or the input, as one neutral line for standard error.
fn neutral(s: &dyn std::fmt::Display) -> String {
    mcp_drift::text::line(&s.to_string())
}

/// SIGINT, SIGTERM, SIGHUP and SIGQUIT remove the files being written, end the servers `capture` and
/// `guard` start (their own process groups), then this process.
fn stop_servers_on_signals() {
    let grace = std::time::Duration::from_secs(2);
    match mcp_drift::mcp::groups::stop_on_signals(grace, mcp_drift::policy::remove_pending) {
        Ok(()) => mcp_drift::policy::signals_handled_elsewhere(),
        Err(e) => say(&format!("note: cannot handle signals ({e}); a signal would leave the server running")),
    }
}

/// One line to standard error. A closed standard error (`2>&1 | head -c1`) is no reason to panic, and
/// the guard's notices come from its proxy threads, which must go on.
fn say(line: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{line}");
}

fn print(text: &str) -> Result<(), mcp_drift::Error> {
    let mut out = std::io::stdout().lock();
    // A closed pipe (`| head`) is not an error worth a message.
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(mcp_drift::Error::Io { path: "<stdout>".into(), message: e.to_string() })
        }
        _ => Ok(()),
    }
}

fn render(
    format: FormatArg,
    analysis: &mcp_drift::Analysis,
    color: Color,
    fail_on: FailOn,
    run: report::human::Run<'_>,
    show_infos: bool,
) -> String {
    match format {
        FormatArg::Human => report::human::render_shown(analysis, use_color(color), run, show_infos),
        FormatArg::Json => report::json::render(analysis),
        FormatArg::Sarif => report::sarif::render(analysis),
        FormatArg::Github => report::github::render(analysis),
        FormatArg::Markdown => {
            report::markdown::render_with(analysis, &report::links::Links::from_env(|k| std::env::var(k).ok()))
        }
        FormatArg::Junit => report::junit::render(analysis, fail_on.threshold()),
    }
}

/// The team's policy (config and baseline) and the effective `--fail-on`, read before the analysis so
/// that a bad configuration is reported before any snapshot is loaded. With a `base` revision and no
/// `--config`, the configuration is the revision's, not the working tree's (which the pull request
/// under judgement wrote); `--baseline` is read as given.
fn policy(args: &ReportArgs, base: Option<&str>) -> Result<(Policy, FailOn), mcp_drift::Error> {
    let mut policy = match (&args.config, args.config_from.as_deref().or(base)) {
        (None, Some(rev)) => Policy::load_at(rev)?,
        (config, _) => Policy::load(config.as_deref())?,
    };
    if let Some(b) = &args.baseline {
        policy = policy.with_baseline(b)?;
    }
    let fail_on = args.fail_on.unwrap_or(match policy.config.fail_on {
        Some(mcp_drift::policy::FailOn::Warning) => FailOn::Warning,
        Some(mcp_drift::policy::FailOn::Info) => FailOn::Info,
        Some(mcp_drift::policy::FailOn::Never) => FailOn::Never,
        _ => FailOn::Error,
    });
    Ok((policy, fail_on))
}

/// Applies the policy, prints the report (or writes it to `--output`) and maps the findings to the exit
/// code.
fn report(
    mut analysis: mcp_drift::Analysis,
    args: &ReportArgs,
    (policy, fail_on): (Policy, FailOn),
    run: report::human::Run<'_>,
) -> Result<ExitCode, mcp_drift::Error> {
    analysis.apply_policy(&policy);
    match &args.output {
        Some(path) => {
            // A file gets no terminal colours unless they are asked for.
            let color = if matches!(args.color, Color::Always) { Color::Always } else { Color::Never };
            mcp_drift::policy::write_atomically(
                path,
                &render(args.format, &analysis, color, fail_on, run, args.show_infos),
            )?;
        }
        None => print(&render(args.format, &analysis, args.color, fail_on, run, args.show_infos))?,
    }
    let failed = fail_on.threshold().is_some_and(|t| analysis.findings.iter().any(|f| f.severity >= t));
    // The process ends here: freeing millions of parsed values one by one is wasted time.
    std::mem::forget(analysis);
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// Accepts every current finding (except ignored and `off` ones) in a baseline file, atomically.
fn write_baseline(mut analysis: mcp_drift::Analysis, out: &BaselineOut) -> Result<ExitCode, mcp_drift::Error> {
    // The baseline the configuration names is the one being replaced: it need not exist yet.
    let policy = Policy::load_config(out.config.as_deref())?;
    analysis.apply_policy(&Policy { accepted: Vec::new(), ..policy });
    let baseline = mcp_drift::policy::baseline_of(&analysis.findings, &out.reason);
    let mut text = serde_json::to_string_pretty(&baseline).unwrap_or_default();
    text.push('\n');
    mcp_drift::policy::write_atomically(&out.output, &text)?;
    eprintln!("wrote {} accepted finding(s) to {}", baseline.accepted.len(), neutral(&out.output.display()));
    Ok(ExitCode::SUCCESS)
}

/// `mcp-drift lock`: every tool of SNAPSHOT, hashed, written atomically to OUTPUT.
fn lock_command(snapshot: &str, output: &std::path::Path, input: &InputArgs) -> Result<ExitCode, mcp_drift::Error> {
    let mut sources = mcp_drift::load::Sources::default();
    let snap = mcp_drift::load::load_selected(
        &Source::parse(snapshot)?,
        &mut sources,
        mcp_drift::load::Mode::Contract,
        input.limits(),
        // The files `verify` will read: the configuration's selection applies here too.
        &input.select(&Policy::load_config(None)?.config)?,
    )?;
    // A lock pins contracts: a tool that has none (no usable `inputSchema`, no name, a repeated
    // name) cannot be pinned, and leaving it out would fail the next `verify` of the same file.
    if let Some(p) = snap.problems.first() {
        let file = sources.get(p.tool.file);
        let (line, column) = p.tool.start_in(file).map_or((1, 1), |o| file.line_column(o));
        let name = if p.tool.name.is_empty() { "a tool".to_owned() } else { format!("tool `{}`", p.tool.name) };
        return Err(mcp_drift::Error::Input {
            file: file.name.clone(),
            line,
            column,
            message: format!(
                "{name} cannot be locked: {} ({} tool(s) in all); fix it, or (in a directory) leave its file out with --exclude",
                if p.kind == mcp_drift::load::ProblemKind::NameDuplicate {
                    format!("its name is taken by an earlier tool{}", p.detail)
                } else {
                    p.detail.clone()
                },
                snap.problems.len()
            ),
        });
    }
    mcp_drift::policy::write_atomically_with(output, |w| mcp_drift::lock::write(&snap, w))?;
    eprintln!("locked {} tool(s) in {}", snap.tools.len(), neutral(&output.display()));
    // The process ends here: freeing every tool one by one is wasted time (see `report`).
    std::mem::forget(snap);
    Ok(ExitCode::SUCCESS)
}

/// `mcp-drift verify`: the lock (a file, at a revision, or standard input), the snapshot, the report.
fn verify_command(
    snapshot: &str,
    lock: &str,
    base: Option<&str>,
    update: bool,
    r: &ReportArgs,
    input: &InputArgs,
) -> Result<ExitCode, mcp_drift::Error> {
    let explicit = ["./", "../", "/"].iter().any(|p| lock.starts_with(p));
    let lock = match (base, Source::parse(lock)?) {
        (Some(rev), Source::Path(_)) if !explicit => Source::Git { rev: rev.to_owned(), path: lock.to_owned() },
        (_, source) => source,
    };
    // The lock's revision judges, as the old side's does for diff.
    let judge_rev = match (base, &lock) {
        (Some(rev), _) => Some(rev),
        (None, Source::Git { rev, .. }) => Some(rev.as_str()),
        _ => None,
    };
    let update_path = match (&lock, update) {
        (Source::Path(p), true) => Some(p),
        (_, false) => None,
        (other, true) => {
            return Err(mcp_drift::Error::Usage(format!(
                "--update rewrites a lock file in the working tree, and `{}` is not one; give --lock FILE without --base",
                neutral(&other.label())
            )));
        }
    };
    let judged = policy(r, judge_rev)?;
    let (analysis, locked, current) =
        mcp_drift::verify_selected(&Source::parse(snapshot)?, &lock, input.limits(), &input.select(&judged.0.config)?)?;
    let drifted = mcp_drift::lock::drifted(&locked, &current);
    if let Some(path) = update_path {
        mcp_drift::policy::write_atomically_with(path, |w| mcp_drift::lock::write(&analysis.new, w))?;
        eprintln!("updated {} ({} tool(s) changed)", neutral(&path.display()), drifted.len());
        return Ok(ExitCode::SUCCESS);
    }
    if !drifted.is_empty() && analysis.findings.is_empty() {
        eprintln!(
            "hash changed for {} tool(s) without a contract finding: {}",
            drifted.len(),
            neutral(&drifted.join(", "))
        );
    }
    let lock = lock.label();
    std::mem::forget((locked, current));
    report(analysis, r, judged, report::human::Run::Verify { lock: &lock, drifted: drifted.len() })
}

/// `mcp-drift guard`: the settings, then the session; the exit code is the server's.
fn guard_command(args: GuardArgs) -> Result<ExitCode, mcp_drift::Error> {
    stop_servers_on_signals();
    let allow = args
        .allow_drift
        .iter()
        .map(|r| {
            RuleId::from_id(r).ok_or_else(|| {
                let hint = mcp_drift::catalog::closest(r).map(|c| format!("; did you mean `{c}`?")).unwrap_or_default();
                mcp_drift::Error::Usage(format!(
                    "--allow-drift: unknown rule `{r}`{hint} (`mcp-drift rules` lists them)"
                ))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    // The team's policy: what its CI fails on blocks here too, with its severity overrides; a change
    // that can alter what a call means (warning: a description whose meaning changed) blocks whatever
    // CI fails on, and a configuration that never fails says nothing about what may run.
    let config = mcp_drift::policy::Policy::load_config(args.config.as_deref())?.config;
    let block_on = match args.block_on {
        Some(BlockOn::Error) => Severity::Error,
        Some(BlockOn::Warning) => Severity::Warning,
        Some(BlockOn::Info) => Severity::Info,
        None => match config.fail_on.map(mcp_drift::policy::FailOn::threshold) {
            None => Severity::Warning,
            Some(threshold) => threshold.map_or(Severity::Info, |t| t.min(Severity::Warning)),
        },
    };
    let block_on = Some(block_on);
    let severity = config
        .severity
        .iter()
        .filter_map(|(rule, level)| {
            let level = match level {
                mcp_drift::policy::Level::Error => Some(Severity::Error),
                mcp_drift::policy::Level::Warning => Some(Severity::Warning),
                mcp_drift::policy::Level::Info => Some(Severity::Info),
                mcp_drift::policy::Level::Off => None,
            };
            RuleId::from_id(rule).map(|id| (id, level))
        })
        .collect();
    let bounds = mcp_drift::guard::Bounds {
        max_message_bytes: usize::try_from(args.max_message_bytes).unwrap_or(usize::MAX),
        timeout: args.timeout,
        ..mcp_drift::guard::Bounds::default()
    };
    let listen = args.listen;
    let server = match args.url {
        Some(url) => {
            mcp_drift::capture::plan::check_url(&url)?;
            let mut headers = args
                .headers
                .iter()
                .map(|h| mcp_drift::capture::plan::parse_header(h))
                .collect::<Result<Vec<_>, _>>()?;
            for spec in &args.header_env {
                headers.push(mcp_drift::capture::plan::parse_header_env(spec, |k| std::env::var(k).ok())?);
            }
            mcp_drift::guard::Upstream::Url { url, headers }
        }
        None => mcp_drift::guard::Upstream::Command(args.command),
    };
    let options = mcp_drift::guard::Options {
        lock: args.lock,
        audit: args.audit,
        record: args.record,
        policy: mcp_drift::guard::Policy { allow, block_on, severity },
        enforce_results: args.enforce_results,
        recheck: match args.recheck {
            RecheckArg::EveryCall => mcp_drift::guard::Recheck::EveryCall,
            RecheckArg::OnNotify => mcp_drift::guard::Recheck::OnNotify,
        },
        server,
        bounds,
    };
    let notice: mcp_drift::guard::Notice =
        std::sync::Arc::new(|s: &str| say(&format!("mcp-drift guard: {}", neutral(&s))));
    let code = match listen {
        Some(addr) => {
            let (client_in, client_out, bound) =
                mcp_drift::guard::listen::bind(addr, options.bounds.max_message_bytes)?;
            notice(&format!("listening on http://{bound}/mcp"));
            mcp_drift::guard::run(options, client_in, client_out, notice)?
        }
        None => mcp_drift::guard::run(options, std::io::stdin(), std::io::stdout(), notice)?,
    };
    Ok(ExitCode::from(u8::try_from(code).unwrap_or(1)))
}

/// `mcp-drift capture`: validated settings to the library, its outcome to standard error.
fn capture_command(args: CaptureArgs) -> Result<ExitCode, mcp_drift::Error> {
    use mcp_drift::capture::plan::{self, Output, Plan, Target};
    stop_servers_on_signals();
    let target = match (args.url, args.command.is_empty()) {
        (Some(url), true) => {
            plan::check_url(&url)?;
            let mut headers = args.headers.iter().map(|h| plan::parse_header(h)).collect::<Result<Vec<_>, _>>()?;
            for spec in &args.header_env {
                headers.push(plan::parse_header_env(spec, |k| std::env::var(k).ok())?);
            }
            Target::Url { url, headers }
        }
        (None, false) => Target::Command(args.command),
        _ => {
            return Err(mcp_drift::Error::Usage(
                "capture needs a server: `capture -- CMD [ARGS...]` or `capture --url URL`".into(),
            ));
        }
    };
    let output = match (args.output, args.per_tool) {
        (Some(file), _) => Output::File(file),
        (None, Some(dir)) => Output::Dir(dir),
        (None, None) => Output::Stdout,
    };
    let shown = match &output {
        Output::File(p) | Output::Dir(p) => neutral(&p.display()),
        Output::Stdout => "standard output".into(),
    };
    let stderr: Option<mcp_drift::mcp::stdio::StderrSink> =
        if args.quiet { None } else { Some(Box::new(|line: &str| say(&format!("server: {line}")))) };
    let done = plan::run(Plan {
        target,
        output,
        keep_meta: args.keep_meta,
        limits: mcp_drift::capture::Limits::default(),
        transport: mcp_drift::mcp::Limits { timeout: args.timeout, ..mcp_drift::mcp::Limits::default() },
        deadline: args.deadline,
        stderr,
    })?;
    let server = &done.capture.server;
    if server.protocol.is_none() {
        let known: Vec<&str> = Protocol::ALL.iter().map(|p| p.as_str()).collect();
        say(&format!(
            "note: the server answered protocol version `{}`, which mcp-drift does not know (it offered {}; it knows {}); the snapshot was taken anyway",
            neutral(&server.protocol_version),
            mcp_drift::mcp::newest_protocol().as_str(),
            known.join(", ")
        ));
    }
    if let Some(text) = &done.stdout {
        print(text)?;
    }
    let name = if server.name.is_empty() { "the server".to_owned() } else { format!("`{}`", neutral(&server.name)) };
    let version = if server.version.is_empty() { String::new() } else { format!(" {}", neutral(&server.version)) };
    say(&format!(
        "captured {} tool(s) from {name}{version} (protocol {}, {} page(s)) to {shown}",
        done.capture.tools.len(),
        neutral(&server.protocol_version),
        done.capture.pages,
    ));
    Ok(ExitCode::SUCCESS)
}

/// `mcp-drift replay`: NEW (and the diff from OLD), the calls files, the report; the rate to stderr.
fn replay_command(args: &ReplayArgs) -> Result<ExitCode, mcp_drift::Error> {
    let new = Source::parse(&args.new)?;
    let old = args.old.as_deref().map(Source::parse).transpose()?;
    // As for diff: the old side's revision judges, so the change under review cannot relax its policy.
    let judge_rev = match &old {
        Some(Source::Git { rev, .. }) => Some(rev.as_str()),
        _ => None,
    };
    let judged = policy(&args.report, judge_rev)?;
    let select = args.input.select(&judged.0.config)?;
    let calls: Vec<mcp_drift::replay::Calls> = args.calls.iter().map(|c| mcp_drift::replay::Calls::parse(c)).collect();
    let stdin_calls = calls.iter().filter(|c| matches!(c, mcp_drift::replay::Calls::Stdin)).count();
    if stdin_calls + usize::from(new == Source::Stdin) + usize::from(old == Some(Source::Stdin)) > 1 {
        return Err(mcp_drift::Error::Usage("only one input can be read from standard input".into()));
    }
    let mut analysis = match &old {
        Some(old) => mcp_drift::diff_selected(old, &new, args.input.limits(), &select)?,
        None => mcp_drift::replay_target(&new, args.input.limits(), &select)?,
    };
    let options = mcp_drift::replay::Options {
        show_values: args.show_values,
        max_line_bytes: usize::try_from(args.max_line_bytes).unwrap_or(usize::MAX),
        ..mcp_drift::replay::Options::default()
    };
    let started = std::time::Instant::now();
    let stats = mcp_drift::replay::replay(&mut analysis, &calls, &options)?;
    let seconds = started.elapsed().as_secs_f64();
    #[allow(clippy::cast_precision_loss, reason = "a rate for people, not an exact count")]
    let rate = if seconds > 0.0 { stats.calls as f64 / seconds } else { 0.0 };
    eprintln!(
        "replayed {} call(s) and {} result(s) from {} line(s) in {seconds:.2} s ({rate:.0} calls/s)",
        stats.calls, stats.results, stats.lines
    );
    report(analysis, &args.report, judged, report::human::Run::Replay)
}

/// `diff` and `notes`: the two sides (with `--base`, OLD at REV and in the working tree), the policy
/// judged at the old side's revision, the analysis.
fn diff_analysis(
    old: String,
    new: Option<String>,
    base: Option<&String>,
    r: &ReportArgs,
    input: &InputArgs,
) -> Result<(mcp_drift::Analysis, (Policy, FailOn)), mcp_drift::Error> {
    let (old, new) = match (base, new) {
        (Some(rev), None) => {
            if rev.is_empty() || rev.starts_with('-') {
                return Err(mcp_drift::Error::Usage(format!("`{rev}` is not a revision")));
            }
            if mcp_drift::load::git::is_bare() {
                return Err(mcp_drift::Error::Usage(format!(
                    "--base compares `{rev}` with the working tree, and this repository is bare (it has \
                     none); compare two revisions instead: `diff {rev}:{old} HEAD:{old}`"
                )));
            }
            // Built here, not spelled `REV:PATH` and parsed: the old side is read from git
            // whatever files the working tree holds.
            (Source::Git { rev: rev.clone(), path: old.clone() }, Source::Path(old.into()))
        }
        (None, Some(new)) => (Source::parse(&old)?, Source::parse(&new)?),
        (Some(_), Some(_)) => {
            return Err(mcp_drift::Error::Usage(
                "with --base, give one PATH (compared at REV and in the working tree)".into(),
            ));
        }
        (None, None) => return Err(mcp_drift::Error::Usage("give OLD and NEW, or --base REV PATH".into())),
    };
    // The old side's revision judges: with `--base REV`, or with OLD given as `REV:PATH`, the
    // configuration and baseline are read at REV, so the change under review cannot relax them.
    let judge_rev = match (base, &old) {
        (Some(rev), _) | (None, Source::Git { rev, .. }) => Some(rev.as_str()),
        _ => None,
    };
    let judged = policy(r, judge_rev)?;
    let select = input.select(&judged.0.config)?;
    Ok((mcp_drift::diff_selected(&old, &new, input.limits(), &select)?, judged))
}

fn run(command: Command) -> Result<ExitCode, mcp_drift::Error> {
    match command {
        Command::Replay(args) => replay_command(&args),
        // A signal ends these with its own status: the server it stopped must not end them first.
        Command::Guard(args) => {
            let result = guard_command(args);
            mcp_drift::mcp::groups::wait_if_signalled();
            result
        }
        Command::Capture(args) => {
            let result = capture_command(args);
            mcp_drift::mcp::groups::wait_if_signalled();
            result
        }
        Command::Diff { old, new, base, report: r, input } => {
            let (analysis, judged) = diff_analysis(old, new, base.as_ref(), &r, &input)?;
            report(analysis, &r, judged, report::human::Run::Diff)
        }
        Command::Notes { old, new, base, title, report: r, input } => {
            let (mut analysis, (policy, _)) = diff_analysis(old, new, base.as_ref(), &r, &input)?;
            analysis.apply_policy(&policy);
            let notes = report::changelog::render(&analysis, title.as_deref());
            match &r.output {
                Some(path) => mcp_drift::policy::write_atomically(path, &notes)?,
                None => print(&notes)?,
            }
            std::mem::forget(analysis);
            Ok(ExitCode::SUCCESS)
        }
        Command::Lint { target, base, report: r } => {
            let at = match (&base, &r.config, &r.config_from) {
                (None, None, None) => target.judge_rev()?,
                _ => None,
            };
            let judged = policy(&r, base.as_deref().or(at.as_deref()))?;
            let analysis = target.run(&judged.0.config)?;
            report(analysis, &r, judged, report::human::Run::Lint)
        }
        Command::Baseline { action: BaselineAction::Write { old, new, out, input } } => {
            let (old, new) = (Source::parse(&old)?, Source::parse(&new)?);
            let config = Policy::load_config(out.config.as_deref())?.config;
            write_baseline(mcp_drift::diff_selected(&old, &new, input.limits(), &input.select(&config)?)?, &out)
        }
        Command::Baseline { action: BaselineAction::Lint { target, out } } => {
            let config = Policy::load_config(out.config.as_deref())?.config;
            write_baseline(target.run(&config)?, &out)
        }
        Command::Lock { snapshot, output, input } => lock_command(&snapshot, &output, &input),
        Command::Verify { snapshot, lock, base, update, report: r, input } => {
            verify_command(&snapshot, &lock, base.as_deref(), update, &r, &input)
        }
        Command::Rules { format } => {
            print(&match format {
                FormatArg::Json => mcp_drift::catalog::json(),
                _ => mcp_drift::catalog::table(),
            })?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Explain { rule } => {
            let Some(id) = RuleId::from_id(&rule) else {
                let hint =
                    mcp_drift::catalog::closest(&rule).map(|r| format!("; did you mean `{r}`?")).unwrap_or_default();
                return Err(mcp_drift::Error::Usage(format!(
                    "unknown rule `{rule}`{hint} (`mcp-drift rules` lists them)"
                )));
            };
            print(&mcp_drift::catalog::explain(id))?;
            Ok(ExitCode::SUCCESS)
        }
    }
}
