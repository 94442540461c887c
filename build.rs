//! Build script: bakes the git revision into the binary for `pinbad --version`, and has the
//! linker compress the binaries' debug sections.
//!
//! `PINBAD_GIT_REV` in the environment wins (a Docker build, where `.git` is not copied in, passes
//! it as a build argument); otherwise `git rev-parse --short=12 HEAD` in the source directory;
//! otherwise (no git, or a source tarball from crates.io) `unknown`. No crate needed.

use std::path::Path;
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !text.is_empty()).then_some(text)
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    // The binaries' debug sections (line tables for backtraces; see Cargo.toml's profiles) are
    // stored compressed: a third of their size, and backtraces, gdb and addr2line read them as
    // they are.
    println!("cargo:rustc-link-arg-bins=-Wl,--compress-debug-sections=zlib");
    println!("cargo:rerun-if-env-changed=PINBAD_GIT_REV");
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    let dir = Path::new(&dir);
    let rev = match std::env::var("PINBAD_GIT_REV") {
        Ok(rev) if !rev.trim().is_empty() => rev.trim().to_string(),
        _ => {
            // Only a source directory that is itself a git checkout (not one nested inside an
            // unrelated repository, as an unpacked crate may be) gives its revision.
            let top = git(dir, &["rev-parse", "--show-toplevel"]);
            let own =
                top.is_some_and(|t| Path::new(&t).canonicalize().ok() == dir.canonicalize().ok());
            let rev = own
                .then(|| git(dir, &["rev-parse", "--short=12", "HEAD"]))
                .flatten();
            if rev.is_some() {
                // Rebuild when HEAD moves: HEAD itself, the branch it points to, packed refs
                // (paths resolved by git, so a worktree's shared refs are found too).
                let mut watched = vec!["HEAD".to_string(), "packed-refs".to_string()];
                if let Some(branch) = git(dir, &["symbolic-ref", "-q", "HEAD"]) {
                    watched.push(branch);
                }
                for w in watched {
                    if let Some(path) = git(dir, &["rev-parse", "--git-path", &w]) {
                        // A missing file would count as changed on every build.
                        let path = dir.join(path);
                        if path.exists() {
                            println!("cargo:rerun-if-changed={}", path.display());
                        }
                    }
                }
            }
            rev.unwrap_or_else(|| "unknown".to_string())
        }
    };
    println!("cargo:rustc-env=PINBAD_GIT_REV={rev}");
}
