//! The action's install steps (`id: install` and `id: build` in action.yml), run as the runner runs
//! them: bash, with the step's literal environment and the runner's variables. A local directory of
//! wheels stands in for the package index (pip never goes to the network here), and a fake `cargo` on PATH records
//! how it was called. tests/packaging/run.sh runs the pip path once more with the real wheel.
#![cfg(unix)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

const VERSION: &str = env!("CARGO_PKG_VERSION");
/// A well-formed hash no wheel here has.
const UNKNOWN: &str = "sha256:0000000000000000000000000000000000000000000000000000000000000000";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The step with `id: ID`: its literal `env:` entries (those with no `${{ }}`) and its `run: |` script.
fn step(id: &str) -> (Vec<(String, String)>, String) {
    let text = std::fs::read_to_string(root().join("action.yml")).unwrap();
    let at = text.find(&format!("\n      id: {id}\n")).unwrap_or_else(|| panic!("step {id}"));
    let body = &text[at + 1..];
    let body = &body[..body.find("\n    - ").unwrap_or(body.len())];
    let (mut env, mut script, mut mode) = (Vec::new(), String::new(), "");
    for line in body.lines() {
        match line {
            "      env:" => mode = "env",
            "      run: |" => mode = "run",
            _ if mode == "env" && line.starts_with("        ") && !line.trim_start().starts_with('#') => {
                if let Some((k, v)) = line.trim().split_once(": ")
                    && !v.contains("${{")
                {
                    env.push((k.to_owned(), v.to_owned()));
                }
            }
            _ if mode == "run" && (line.starts_with("        ") || line.is_empty()) => {
                script.push_str(line.strip_prefix("        ").unwrap_or(line));
                script.push('\n');
            }
            _ if !line.starts_with("        ") => mode = "",
            _ => {}
        }
    }
    (env, script)
}

struct Runner {
    dir: tempfile::TempDir,
}

struct Ran {
    code: i32,
    log: String,
    outputs: Vec<(String, String)>,
}

impl Ran {
    fn output(&self, key: &str) -> Option<&str> {
        self.outputs.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
}

impl Runner {
    /// A runner temp directory with `wheels/` (the stand-in for the package index) and `fakebin/cargo`, which
    /// writes its working directory, arguments and toolchain variables to `cargo.calls` and installs
    /// a stand-in binary under `--root`.
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("wheels")).unwrap();
        std::fs::create_dir(dir.path().join("fakebin")).unwrap();
        let cargo = dir.path().join("fakebin/cargo");
        let calls = dir.path().join("cargo.calls");
        std::fs::write(
            &cargo,
            format!(
                "#!/bin/sh\n{{ echo \"cwd=$(pwd)\"; echo \"args=$*\"; echo \"RUSTUP_TOOLCHAIN=$RUSTUP_TOOLCHAIN\"; \
                 echo \"CARGO_TARGET_DIR=$CARGO_TARGET_DIR\"; }} >> '{}'\n\
                 while [ $# -gt 0 ]; do if [ \"$1\" = --root ]; then mkdir -p \"$2/bin\"; \
                 printf '#!/bin/sh\\necho \"mcp-drift built\"\\n' > \"$2/bin/mcp-drift\"; chmod +x \"$2/bin/mcp-drift\"; fi; shift; done\n",
                calls.display()
            ),
        )
        .unwrap();
        make_executable(&cargo);
        Self { dir }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// A wheel of mcp-drift `version` whose `mcp-drift` prints `prints` for `--version`.
    fn wheel(&self, version: &str, prints: &str) {
        let script = format!("#!/bin/sh\necho '{prints}'\n");
        let status = Command::new("python3")
            .arg("-c")
            .arg(
                "import sys, zipfile\n\
                 out, version, script = sys.argv[1:]\n\
                 name = f'mcp_drift-{version}'\n\
                 with zipfile.ZipFile(f'{out}/{name}-py3-none-any.whl', 'w') as z:\n\
                 \x20   files = {f'{name}.data/scripts/mcp-drift': script,\n\
                 \x20            f'{name}.dist-info/METADATA': f'Metadata-Version: 2.1\\nName: mcp-drift\\nVersion: {version}\\n',\n\
                 \x20            f'{name}.dist-info/WHEEL': 'Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: false\\nTag: py3-none-any\\n'}\n\
                 \x20   for path, text in files.items():\n\
                 \x20       info = zipfile.ZipInfo(path)\n\
                 \x20       info.external_attr = 0o100755 << 16\n\
                 \x20       z.writestr(info, text)\n\
                 \x20   z.writestr(f'{name}.dist-info/RECORD', ''.join(f'{p},,\\n' for p in files) + f'{name}.dist-info/RECORD,,\\n')\n",
            )
            .arg(self.path("wheels"))
            .arg(version)
            .arg(script)
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// `sha256:HEX` of the wheel [`Runner::wheel`] wrote for `version`.
    fn wheel_hash(&self, version: &str) -> String {
        let bytes = std::fs::read(self.path(&format!("wheels/mcp_drift-{version}-py3-none-any.whl"))).unwrap();
        Sha256::digest(bytes).iter().fold("sha256:".to_owned(), |mut hex, b| {
            let _ = write!(hex, "{b:02x}");
            hex
        })
    }

    fn cargo_calls(&self) -> String {
        std::fs::read_to_string(self.path("cargo.calls")).unwrap_or_default()
    }

    /// Runs step `id` with the runner's variables, `env` on top, and the fake cargo first on PATH.
    fn run(&self, id: &str, action_path: &Path, env: &[(&str, &str)]) -> Ran {
        let (literal, script) = step(id);
        let output = self.path(&format!("{id}.output"));
        std::fs::write(&output, "").unwrap();
        let mut cmd = Command::new("bash");
        cmd.arg("--noprofile").arg("--norc").arg("-eo").arg("pipefail").arg("-c").arg(script);
        cmd.current_dir(self.dir.path()).envs(literal);
        let path = format!("{}:{}", self.path("fakebin").display(), std::env::var("PATH").unwrap_or_default());
        cmd.env("PATH", path)
            .env("RUNNER_TEMP", self.dir.path())
            .env("RUNNER_OS", "Linux")
            .env("RUNNER_ARCH", "X64")
            .env("GITHUB_OUTPUT", &output)
            .env("GITHUB_ACTION_PATH", action_path)
            .env("GITHUB_ACTION_REF", "v9.9.9")
            .env("MCP_DRIFT_ROOT", self.path("mcp-drift"))
            .env("MCP_DRIFT_BUILD", self.path("mcp-drift-build"))
            .env("INSTALL", "auto")
            .env("PIP_NO_INDEX", "1")
            .env("PIP_FIND_LINKS", self.path("wheels"))
            .env("PIP_CONFIG_FILE", "/dev/null");
        cmd.envs(env.iter().copied());
        let out = cmd.output().unwrap();
        let log = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        let outputs = std::fs::read_to_string(&output)
            .unwrap()
            .lines()
            .filter_map(|l| l.split_once('=').map(|(k, v)| (k.to_owned(), v.to_owned())))
            .collect();
        Ran { code: out.status.code().unwrap_or(-1), log, outputs }
    }
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn first_line(command: &str) -> String {
    let out = Command::new(command).arg("--version").output().unwrap();
    String::from_utf8_lossy(&out.stdout).lines().next().unwrap_or_default().to_owned()
}

/// `in N s` with N digits, after `prefix`.
fn says_seconds(log: &str, prefix: &str) -> bool {
    log.lines().any(|l| {
        l.strip_prefix(prefix)
            .and_then(|rest| rest.strip_suffix(" s"))
            .and_then(|rest| rest.strip_prefix(" in "))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    })
}

#[test]
fn the_pinned_wheel_is_installed_with_pip_and_the_log_says_so() {
    let runner = Runner::new();
    runner.wheel(VERSION, &format!("mcp-drift {VERSION}"));
    let hash = runner.wheel_hash(VERSION);
    let ran = runner.run("install", &root(), &[("MCP_DRIFT_WHEEL_HASHES", &hash)]);
    assert_eq!(ran.code, 0, "{}", ran.log);
    assert!(
        says_seconds(&ran.log, &format!("mcp-drift action: installed mcp-drift {VERSION} with pip (released wheel)")),
        "{}",
        ran.log
    );
    assert_eq!(ran.output("path"), Some("pip"), "{}", ran.log);
    let bin = ran.output("bin").unwrap();
    assert!(bin.starts_with(runner.path("mcp-drift").to_str().unwrap()), "outside the workspace: {bin}");
    assert_eq!(first_line(bin), format!("mcp-drift {VERSION}"));
    assert_eq!(runner.cargo_calls(), "", "nothing is built");
}

#[test]
fn without_the_wheel_the_action_builds_with_a_cache_keyed_on_cargo_lock_and_the_ref() {
    let runner = Runner::new();
    let ran = runner.run("install", &root(), &[("MCP_DRIFT_WHEEL_HASHES", UNKNOWN)]);
    assert_eq!(ran.code, 0, "{}", ran.log);
    assert!(ran.log.contains(&format!("mcp-drift action: no wheel of mcp-drift {VERSION} through pip")), "{}", ran.log);
    assert!(ran.log.contains("  pip: "), "pip's reason is shown: {}", ran.log);
    assert_eq!(ran.output("path"), Some("cargo"));
    assert_eq!(ran.output("bin"), None);
    let lock = Sha256::digest(std::fs::read(root().join("Cargo.lock")).unwrap());
    let lock = lock.iter().take(8).fold(String::new(), |mut hex, b| {
        let _ = write!(hex, "{b:02x}");
        hex
    });
    let prefix = format!("mcp-drift-build-Linux-X64-{lock}-");
    assert_eq!(ran.output("cache-restore-key"), Some(prefix.as_str()));
    let key = ran.output("cache-key").unwrap();
    let sources = key.strip_prefix(&format!("{prefix}v9.9.9-")).unwrap_or_else(|| panic!("{key}"));
    assert!(sources.len() == 16 && sources.bytes().all(|b| b.is_ascii_hexdigit()), "{key}");
}

#[test]
fn a_wheel_that_is_not_the_pinned_version_is_not_used() {
    let runner = Runner::new();
    runner.wheel(VERSION, "mcp-drift 9.9.9");
    let hash = runner.wheel_hash(VERSION);
    let ran = runner.run("install", &root(), &[("MCP_DRIFT_WHEEL_HASHES", &hash)]);
    assert_eq!(ran.code, 0, "{}", ran.log);
    assert!(ran.log.contains("got `mcp-drift 9.9.9`"), "{}", ran.log);
    assert_eq!(ran.output("path"), Some("cargo"));
}

#[test]
fn install_pip_fails_without_the_wheel_install_cargo_skips_pip_and_other_values_are_refused() {
    let runner = Runner::new();
    let ran = runner.run("install", &root(), &[("INSTALL", "pip"), ("MCP_DRIFT_WHEEL_HASHES", UNKNOWN)]);
    assert_eq!(ran.code, 1, "{}", ran.log);
    assert_eq!(ran.output("path"), None);
    runner.wheel(VERSION, &format!("mcp-drift {VERSION}"));
    let ran = runner.run("install", &root(), &[("INSTALL", "cargo")]);
    assert_eq!(ran.code, 0, "{}", ran.log);
    assert_eq!(ran.output("path"), Some("cargo"), "{}", ran.log);
    assert!(!ran.log.contains("pip"), "{}", ran.log);
    let ran = runner.run("install", &root(), &[("INSTALL", "pip; touch pwned")]);
    assert_eq!(ran.code, 2, "{}", ran.log);
}

/// A copy of the sources the cache key hashes.
fn copy_sources(to: &Path) {
    for entry in walkdir::WalkDir::new(root()) {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(root()).unwrap();
        let top = rel.components().next().map(|c| c.as_os_str().to_string_lossy().into_owned()).unwrap_or_default();
        if !["Cargo.toml", "Cargo.lock", "build.rs", "src", "rules"].contains(&top.as_str()) {
            continue;
        }
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(to.join(rel)).unwrap();
        } else {
            std::fs::copy(entry.path(), to.join(rel)).unwrap();
        }
    }
}

#[test]
fn the_cache_key_follows_the_sources_so_a_moving_ref_never_reuses_a_stale_binary() {
    let runner = Runner::new();
    let action = runner.path("action");
    copy_sources(&action);
    let env = [("INSTALL", "cargo")];
    let before = runner.run("install", &action, &env);
    assert_eq!(before.output("cache-key"), runner.run("install", &root(), &env).output("cache-key"));
    let main = action.join("src/main.rs");
    let text = std::fs::read_to_string(&main).unwrap();
    std::fs::write(&main, format!("{text}\n// changed\n")).unwrap();
    let after = runner.run("install", &action, &env);
    assert_ne!(before.output("cache-key"), after.output("cache-key"));
    assert_eq!(before.output("cache-restore-key"), after.output("cache-restore-key"), "the same Cargo.lock");
}

#[test]
fn the_build_runs_cargo_install_in_the_action_directory_with_the_toolchain_named_there() {
    let runner = Runner::new();
    let ran = runner.run("build", &root(), &[("CACHE_HIT", ""), ("CACHE_MATCHED", "")]);
    assert_eq!(ran.code, 0, "{}", ran.log);
    let build = runner.path("mcp-drift-build");
    let calls = runner.cargo_calls();
    assert_eq!(
        calls,
        format!(
            "cwd={}\nargs=install --locked --path . --root {}/root\nRUSTUP_TOOLCHAIN=stable\nCARGO_TARGET_DIR={}/target\n",
            root().display(),
            build.display(),
            build.display()
        )
    );
    assert!(
        says_seconds(
            &ran.log,
            "mcp-drift action: built mcp-drift from the action's directory with cargo install (build cache: none)"
        ),
        "{}",
        ran.log
    );
    let bin = ran.output("bin").unwrap();
    assert_eq!(bin, format!("{}/root/bin/mcp-drift", build.display()));
    assert_eq!(first_line(bin), "mcp-drift built");

    // A partial match of the cache (same Cargo.lock, another ref) still builds, and says what it reused.
    let ran = runner.run("build", &root(), &[("CACHE_HIT", "false"), ("CACHE_MATCHED", "mcp-drift-build-x")]);
    assert!(ran.log.contains("(build cache: mcp-drift-build-x)"), "{}", ran.log);
    assert_eq!(runner.cargo_calls().matches("args=").count(), 2);

    // An exact hit is the build of these very sources: used as it is.
    let ran = runner.run("build", &root(), &[("CACHE_HIT", "true"), ("CACHE_MATCHED", "k")]);
    assert_eq!(ran.code, 0, "{}", ran.log);
    assert!(
        says_seconds(
            &ran.log,
            "mcp-drift action: built mcp-drift from the action's directory with the cached build of these sources"
        ),
        "{}",
        ran.log
    );
    assert_eq!(runner.cargo_calls().matches("args=").count(), 2, "no third build");

    // A hit whose binary is missing builds again.
    std::fs::remove_file(build.join("root/bin/mcp-drift")).unwrap();
    let ran = runner.run("build", &root(), &[("CACHE_HIT", "true"), ("CACHE_MATCHED", "k")]);
    assert_eq!(ran.code, 0, "{}", ran.log);
    assert_eq!(runner.cargo_calls().matches("args=").count(), 3);
}

#[test]
fn only_a_wheel_pinned_by_hash_is_installed() {
    // As committed (`none`: no release yet), pip is never run, even with the right wheel at hand.
    let runner = Runner::new();
    runner.wheel(VERSION, &format!("mcp-drift {VERSION}"));
    let ran = runner.run("install", &root(), &[]);
    assert_eq!(ran.code, 0, "{}", ran.log);
    assert!(ran.log.contains("is pinned by hash in this ref of the action"), "{}", ran.log);
    assert_eq!(ran.output("path"), Some("cargo"), "{}", ran.log);
    let ran = runner.run("install", &root(), &[("INSTALL", "pip")]);
    assert_eq!(ran.code, 1, "{}", ran.log);
    // A wheel of the right name and version but another hash (someone else's upload) is refused.
    let ran = runner.run("install", &root(), &[("MCP_DRIFT_WHEEL_HASHES", UNKNOWN)]);
    assert_eq!(ran.code, 0, "{}", ran.log);
    assert_eq!(ran.output("path"), Some("cargo"), "{}", ran.log);
    assert!(ran.log.contains("  pip: "), "{}", ran.log);
    // Anything but `sha256:...` is refused before pip runs.
    let ran = runner.run("install", &root(), &[("MCP_DRIFT_WHEEL_HASHES", "md5:00")]);
    assert_eq!(ran.code, 2, "{}", ran.log);
}
