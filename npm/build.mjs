#!/usr/bin/env node
// Builds the npm packages for one platform: `mcp-drift` (the launcher, npm/mcp-drift) and
// `@mcp-drift/cli-<platform>` (the binary, from the template npm/<platform>), packed with `npm pack`.
//
//   node npm/build.mjs [--binary PATH] [--platform KEY] [--out DIR]
//
// --binary   the mcp-drift binary to ship (default: `cargo build --release --locked`, stripped)
// --platform the package to fill, e.g. linux-x64 (default: this machine's; another needs --binary)
// --out      where the packages and tarballs go (default: target/npm)
//
// Before anything is built it checks that every version agrees with Cargo.toml's: both package.json
// files, the pins in optionalDependencies, and that every template is a dependency and the reverse.
// A binary for this machine must print `mcp-drift <version>` for --version. Exit 1 on any mismatch.
// Prints the tarballs' paths, one a line, on stdout; everything else goes to stderr.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const npmDir = path.join(root, "npm");

function die(message) {
  process.stderr.write(`npm/build.mjs: ${message}\n`);
  process.exit(1);
}

function parseArgs(argv) {
  const args = { binary: null, platform: null, out: path.join(root, "target", "npm") };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (!["--binary", "--platform", "--out"].includes(flag) || value === undefined) {
      die(`usage: node npm/build.mjs [--binary PATH] [--platform KEY] [--out DIR] (got ${JSON.stringify(flag)})`);
    }
    args[flag.slice(2)] = flag === "--platform" ? value : path.resolve(value);
  }
  return args;
}

/** The `version` of Cargo.toml's `[package]` table. */
function cargoVersion() {
  const text = fs.readFileSync(path.join(root, "Cargo.toml"), "utf8");
  const table = text.split(/^\[/m).find((t) => t.startsWith("package]"));
  const match = table && /^version\s*=\s*"([^"]+)"/m.exec(table);
  if (!match) die("Cargo.toml has no [package] version");
  return match[1];
}

const readJson = (file) => JSON.parse(fs.readFileSync(file, "utf8"));

/** Every version and dependency pin agrees with Cargo.toml; returns the platform templates by key. */
function checkVersions(version) {
  const problems = [];
  const main = readJson(path.join(npmDir, "mcp-drift", "package.json"));
  if (main.version !== version) problems.push(`npm/mcp-drift/package.json: version ${main.version}`);
  const templates = {};
  for (const entry of fs.readdirSync(npmDir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === "mcp-drift") continue;
    const pkg = readJson(path.join(npmDir, entry.name, "package.json"));
    templates[entry.name] = pkg;
    if (pkg.version !== version) problems.push(`npm/${entry.name}/package.json: version ${pkg.version}`);
    if (pkg.name !== `@mcp-drift/cli-${entry.name}`) problems.push(`npm/${entry.name}/package.json: name ${pkg.name}`);
  }
  const deps = main.optionalDependencies ?? {};
  for (const [name, pin] of Object.entries(deps)) {
    if (pin !== version) problems.push(`npm/mcp-drift/package.json: optionalDependencies ${name}@${pin}`);
    if (!Object.values(templates).some((t) => t.name === name)) problems.push(`${name} has no template in npm/`);
  }
  for (const t of Object.values(templates)) {
    if (!(t.name in deps)) problems.push(`${t.name} is not in mcp-drift's optionalDependencies`);
  }
  if (problems.length) die(`versions disagree with Cargo.toml's ${version}:\n  ${problems.join("\n  ")}`);
  return templates;
}

function hostKey() {
  let key = `${process.platform}-${process.arch}`;
  if (process.platform === "linux" && !process.report.getReport().header.glibcVersionRuntime) key += "-musl";
  return key;
}

function buildBinary(windows) {
  process.stderr.write("npm/build.mjs: cargo build --release --locked (stripped)\n");
  execFileSync("cargo", ["build", "--release", "--locked", "--bin", "mcp-drift"], {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, CARGO_PROFILE_RELEASE_STRIP: "symbols" },
  });
  return path.join(root, "target", "release", windows ? "mcp-drift.exe" : "mcp-drift");
}

function pack(dir, out) {
  const json = execFileSync("npm", ["pack", "--json", "--pack-destination", out], {
    cwd: dir,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    shell: process.platform === "win32",
  });
  return path.join(out, JSON.parse(json)[0].filename);
}

const args = parseArgs(process.argv.slice(2));
const version = cargoVersion();
const templates = checkVersions(version);
const host = hostKey();
const key = args.platform ?? host;
const template = templates[key];
if (!template) die(`no package template npm/${key}/ (templates: ${Object.keys(templates).join(", ")})`);
if (key !== host && !args.binary) die(`--platform ${key} is not this machine (${host}): give its --binary`);
const windows = template.os.includes("win32");
const binary = args.binary ?? buildBinary(windows);
if (!fs.existsSync(binary)) die(`no binary at ${binary}`);
if (key === host) {
  const first = execFileSync(binary, ["--version"], { encoding: "utf8" }).split("\n")[0];
  if (first !== `mcp-drift ${version}`) die(`${binary} --version prints ${JSON.stringify(first)}, not "mcp-drift ${version}"`);
}

fs.mkdirSync(args.out, { recursive: true });
const platformOut = path.join(args.out, key);
const mainOut = path.join(args.out, "mcp-drift");
for (const dir of [platformOut, mainOut]) fs.rmSync(dir, { recursive: true, force: true });
fs.cpSync(path.join(npmDir, key), platformOut, { recursive: true });
const exe = path.join(platformOut, windows ? "mcp-drift.exe" : "mcp-drift");
fs.copyFileSync(binary, exe);
fs.chmodSync(exe, 0o755);
fs.cpSync(path.join(npmDir, "mcp-drift"), mainOut, { recursive: true });
fs.copyFileSync(path.join(root, "README.md"), path.join(mainOut, "README.md"));
fs.chmodSync(path.join(mainOut, "bin", "mcp-drift.js"), 0o755);

for (const dir of [mainOut, platformOut]) {
  const tarball = pack(dir, args.out);
  process.stderr.write(`npm/build.mjs: ${path.relative(root, tarball)} (${fs.statSync(tarball).size} bytes)\n`);
  process.stdout.write(`${tarball}\n`);
}
