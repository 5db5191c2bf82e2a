//! Typed errors of the library. Nothing in the library prints; `main.rs` renders these and maps them to
//! exit code 2.

use std::fmt;

/// Everything that stops an analysis before it produces findings.
#[derive(Debug)]
pub enum Error {
    /// A file or directory could not be read.
    Io { path: String, message: String },
    /// The input was read but is not a usable snapshot. `line` and `column` are 1-based; 0 means the
    /// position is unknown (for example an empty directory).
    Input { file: String, line: usize, column: usize, message: String },
    /// The command line or configuration asks for something impossible.
    Usage(String),
    /// Every problem found in one configuration file, in file order (at least one).
    Config { file: String, problems: Vec<Problem> },
    /// A live server failed (`capture`): what it did, already neutral, one or more lines.
    Server(crate::mcp::Failure),
}

impl From<crate::mcp::Failure> for Error {
    fn from(f: crate::mcp::Failure) -> Error {
        Error::Server(f)
    }
}

/// One problem in a configuration file: 1-based line and column, and what is wrong there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl Error {
    pub(crate) fn input(file: &str, line: usize, column: usize, message: impl Into<String>) -> Error {
        Error::Input { file: file.to_owned(), line, column, message: message.into() }
    }
}

/// Every part of a message can come from the input (a file name, a JSON key, a config key, a revision),
/// so the whole message goes through [`crate::text::line`]: one line, no control or bidi character, no
/// workflow command.
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match self {
            Error::Io { path, message } => format!("{path}: {message}"),
            Error::Input { file, line: 0, message, .. } => format!("{file}: {message}"),
            Error::Input { file, line, column, message } => format!("{file}:{line}:{column}: {message}"),
            Error::Usage(message) => message.clone(),
            // One neutral line per problem: a line break in the output only ever separates problems.
            Error::Config { file, problems } => {
                let lines: Vec<String> = problems
                    .iter()
                    .map(|p| crate::text::line(&format!("{file}:{}:{}: {}", p.line, p.column, p.message)))
                    .collect();
                return f.write_str(&lines.join("\n"));
            }
            // Its Display escapes every part that came from the server.
            Error::Server(failure) => return failure.fmt(f),
        };
        f.write_str(&crate::text::line(&text))
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_is_one_neutral_line() {
        let e = Error::input("x\n::error::forged\u{1b}]52;\u{202e}.json", 1, 2, "duplicate key `k\r##[warning]w`");
        let shown = e.to_string();
        assert_eq!(shown, "x\\n::error::forged\\u{1b}]52;\\u{202e}.json:1:2: duplicate key `k\\r##\\[warning]w`");
        let e = Error::Usage("::error::usage\u{2028}".into());
        assert_eq!(e.to_string(), "\\::error::usage\\u{2028}");
    }

    #[test]
    fn config_errors_are_one_neutral_line_each() {
        let problem = |line, message: &str| Problem { line, column: 1, message: message.into() };
        let e = Error::Config {
            file: "mcp-drift.toml".into(),
            problems: vec![problem(1, "unknown key `a\n::error::x`"), problem(3, "bad")],
        };
        assert_eq!(e.to_string(), "mcp-drift.toml:1:1: unknown key `a\\n::error::x`\nmcp-drift.toml:3:1: bad");
    }
}
