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
}

impl Error {
    pub(crate) fn input(file: &str, line: usize, column: usize, message: impl Into<String>) -> Error {
        Error::Input { file: file.to_owned(), line, column, message: message.into() }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { path, message } => write!(f, "{path}: {message}"),
            Error::Input { file, line: 0, message, .. } => write!(f, "{file}: {message}"),
            Error::Input { file, line, column, message } => write!(f, "{file}:{line}:{column}: {message}"),
            Error::Usage(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {}
