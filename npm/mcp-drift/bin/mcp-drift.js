#!/usr/bin/env node
// The `mcp-drift` command of the npm package (esbuild's and biome's layout): the binary comes in an
// optional dependency for this platform only (`@mcp-drift/cli-<platform>-<arch>`), which npm installs
// by its `os`/`cpu`/`libc` fields. This file finds it and runs it with the same arguments and the same
// standard streams, forwards the signals the launcher receives, and exits as the binary did (its exit
// code, or the signal that ended it). It prints only when it cannot run the binary: one message on
// stderr and exit code 2 (the binary's code for "could not run"; 1 means findings).
"use strict";

const { spawn } = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");

const PACKAGES = {
  "darwin-arm64": "@mcp-drift/cli-darwin-arm64",
  "darwin-x64": "@mcp-drift/cli-darwin-x64",
  "linux-arm64": "@mcp-drift/cli-linux-arm64",
  "linux-x64": "@mcp-drift/cli-linux-x64",
  "win32-x64": "@mcp-drift/cli-win32-x64",
};

const OTHER_WAYS =
  "Install it another way: `pip install mcp-drift` (or `uvx mcp-drift`), or build it with " +
  "`cargo install --locked --git https://github.com/mcp-drift/mcp-drift`; or set MCP_DRIFT_BINARY " +
  "to the path of an mcp-drift binary.";

function fail(message) {
  process.stderr.write(`mcp-drift: ${message}\n`);
  process.exit(2);
}

// The packages are built against glibc; a musl Linux (Alpine) has no package and is named as such.
function platformKey() {
  let key = `${process.platform}-${process.arch}`;
  if (process.platform === "linux") {
    const report = typeof process.report?.getReport === "function" ? process.report.getReport() : null;
    if (report && !report.header?.glibcVersionRuntime) key += "-musl";
  }
  return key;
}

function binaryPath() {
  const override = process.env.MCP_DRIFT_BINARY;
  if (override) return override;
  const key = platformKey();
  const pkg = PACKAGES[key];
  if (!pkg) {
    fail(`no prebuilt binary for this platform (${key}); there are packages for ${Object.keys(PACKAGES).join(", ")}. ${OTHER_WAYS}`);
  }
  let dir;
  try {
    dir = path.dirname(require.resolve(`${pkg}/package.json`));
  } catch {
    fail(
      `the package ${pkg}, which holds the binary for ${key}, is not installed. It is an optional ` +
        "dependency of mcp-drift: reinstall without --omit=optional / --no-optional (and with the " +
        `lock file made on any platform, npm installs the one it needs). ${OTHER_WAYS}`,
    );
  }
  const exe = path.join(dir, process.platform === "win32" ? "mcp-drift.exe" : "mcp-drift");
  if (!fs.existsSync(exe)) fail(`${pkg} is installed but has no binary at ${exe}; reinstall it. ${OTHER_WAYS}`);
  return exe;
}

const child = spawn(binaryPath(), process.argv.slice(2), { stdio: "inherit" });

// A signal sent to the launcher alone (a CI timeout, `kill`) reaches the binary too. A Ctrl-C in a
// terminal reaches both already; a second SIGINT is harmless.
const FORWARDED = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGBREAK"];
const forwarders = {};
for (const signal of FORWARDED) {
  forwarders[signal] = () => {
    try {
      child.kill(signal);
    } catch {
      // The child is gone or the signal does not exist here: its exit is reported below.
    }
  };
  try {
    process.on(signal, forwarders[signal]);
  } catch {
    // This platform cannot listen for that signal.
  }
}

child.on("error", (err) => fail(`cannot run ${child.spawnfile}: ${err.message}`));

child.on("exit", (code, signal) => {
  if (signal) {
    // End the same way, so the caller's shell sees "killed by SIGTERM" (exit 143), not a plain code.
    for (const s of FORWARDED) if (forwarders[s]) process.removeListener(s, forwarders[s]);
    try {
      process.kill(process.pid, signal);
    } catch {
      // Not raisable here: fall through to the conventional code.
    }
    process.exit(128 + (os.constants.signals[signal] || 0));
  }
  process.exit(code ?? 2);
});
