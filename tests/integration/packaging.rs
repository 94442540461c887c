//! Packaging: `--version` names the git revision, the systemd unit passes `systemd-analyze
//! verify`, the sysctl file covers the receive buffer asked for, the Dockerfile copies files that
//! exist. (Docker itself cannot run in CI: the image is not built by the tests.)

use std::path::Path;
use std::process::Command;

use crate::common::BIN;

const MANIFEST_DIR: &str = env!("CARGO_MANIFEST_DIR");

#[test]
fn version_names_the_git_revision() {
    let out = Command::new(BIN).arg("--version").output().unwrap();
    assert!(out.status.success());
    let version = String::from_utf8(out.stdout).unwrap();
    let prefix = format!("pinbad {} (git ", env!("CARGO_PKG_VERSION"));
    assert!(version.starts_with(&prefix), "{version}");
    let rev = version[prefix.len()..].trim_end().trim_end_matches(')');
    let head = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(MANIFEST_DIR)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    match (head, std::env::var("PINBAD_GIT_REV")) {
        (_, Ok(given)) if !given.is_empty() => assert_eq!(rev, given.trim()),
        (Some(head), _) => assert_eq!(rev, head, "built from {head}: {version}"),
        (None, _) => assert_eq!(rev, "unknown", "{version}"),
    }
}

#[test]
fn systemd_unit_is_sandboxed_and_verifies() {
    let unit =
        std::fs::read_to_string(Path::new(MANIFEST_DIR).join("contrib/systemd/pinbad.service"))
            .unwrap();
    for setting in [
        "ExecStart=/usr/local/bin/pinbad --config /etc/pinbad/pinbad.toml",
        "DynamicUser=yes",
        "StateDirectory=pinbad",
        "LogsDirectory=pinbad",
        "NoNewPrivileges=yes",
        "ProtectSystem=strict",
        "ProtectHome=yes",
        "PrivateTmp=yes",
        "CapabilityBoundingSet=\n",
    ] {
        assert!(unit.contains(setting), "the unit lacks {setting:?}");
    }
    // The documented file sink (docs/stream-and-sinks.md) writes where the unit lets pinbad write (ProtectSystem=strict makes
    // everything else read-only: the sink's start failed).
    let readme =
        std::fs::read_to_string(Path::new(MANIFEST_DIR).join("docs/stream-and-sinks.md")).unwrap();
    let sink_paths: Vec<&str> = readme
        .lines()
        .filter_map(|l| l.strip_prefix("path = \""))
        .filter_map(|l| l.split('"').next())
        .collect();
    assert!(
        !sink_paths.is_empty(),
        "docs/stream-and-sinks.md has a file sink example"
    );
    for p in sink_paths {
        assert!(
            p.starts_with("/var/log/pinbad/") || p.starts_with("/var/lib/pinbad/"),
            "{p} is outside LogsDirectory= and StateDirectory="
        );
    }
    // The socket unit listens where pinbad does by default, with its receive buffer.
    let socket =
        std::fs::read_to_string(Path::new(MANIFEST_DIR).join("contrib/systemd/pinbad.socket"))
            .unwrap();
    let values = |key: &str| -> Vec<String> {
        socket
            .lines()
            .filter_map(|l| l.strip_prefix(key)?.strip_prefix('='))
            .map(str::to_string)
            .collect()
    };
    let defaults = pinbad::config::Config::default();
    assert_eq!(values("ListenDatagram"), defaults.udp.listen);
    assert_eq!(values("ListenStream"), vec![defaults.http.listen.clone()]);
    assert_eq!(values("BindIPv6Only"), vec!["ipv6-only"]);
    let buffer = values("ReceiveBuffer");
    let mib: u64 = buffer[0].strip_suffix('M').unwrap().parse().unwrap();
    assert!(mib << 20 >= defaults.udp.recv_buffer.0, "{buffer:?}");
    let analyze = Command::new("systemd-analyze").arg("--version").output();
    if analyze.is_err() {
        assert!(
            std::env::var_os("PINBAD_REQUIRE_SYSTEMD").is_none(),
            "PINBAD_REQUIRE_SYSTEMD is set but systemd-analyze is missing"
        );
        eprintln!("SKIPPED: systemd-analyze is not installed (apt-get install systemd)");
        return;
    }
    // Verified as installed, except that ExecStart points at the binary under test (verify
    // checks that the command exists).
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pinbad.service");
    std::fs::write(&path, unit.replace("/usr/local/bin/pinbad", BIN)).unwrap();
    let socket_path = dir.path().join("pinbad.socket");
    std::fs::write(&socket_path, &socket).unwrap();
    let out = Command::new("systemd-analyze")
        .args(["verify", "--man=no"])
        .arg(&path)
        .arg(&socket_path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "systemd-analyze verify failed: {stderr}"
    );
    // It only warns (exit 0) about unknown or misplaced settings: none may concern our units.
    assert!(
        !stderr.contains("pinbad.service") && !stderr.contains("pinbad.socket"),
        "systemd-analyze verify warns about the units: {stderr}"
    );
}

/// Without capabilities (the unit's dynamic user, Docker) the kernel caps the UDP receive buffer
/// at `net.core.rmem_max`; the sysctl file shipped beside the unit must let pinbad have what the
/// built-in default and the shipped config ask for.
#[test]
fn sysctl_file_lets_an_unprivileged_pinbad_have_its_receive_buffer() {
    let root = Path::new(MANIFEST_DIR);
    let sysctl = std::fs::read_to_string(root.join("contrib/sysctl/90-pinbad.conf")).unwrap();
    let rmem_max: u64 = sysctl
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .find_map(|l| {
            l.split_once('=')
                .filter(|(k, _)| k.trim() == "net.core.rmem_max")
        })
        .map(|(_, v)| v.trim().parse().expect("a number of bytes"))
        .expect("the file sets net.core.rmem_max");
    let shipped = std::fs::read_to_string(root.join("config/pinbad.toml")).unwrap();
    for (what, text) in [
        ("built-in default", ""),
        ("config/pinbad.toml", shipped.as_str()),
    ] {
        let asked = pinbad::config::Config::parse(text)
            .unwrap()
            .udp
            .recv_buffer
            .0;
        assert!(
            rmem_max >= asked,
            "{what} asks for {asked} bytes, net.core.rmem_max gives {rmem_max}"
        );
    }
    let unit = std::fs::read_to_string(root.join("contrib/systemd/pinbad.service")).unwrap();
    assert!(
        unit.contains("contrib/sysctl/90-pinbad.conf"),
        "the unit's install steps name the sysctl file"
    );
}

#[test]
fn dockerfile_copies_only_what_exists_and_builds_the_daemon() {
    let text = std::fs::read_to_string(Path::new(MANIFEST_DIR).join("Dockerfile")).unwrap();
    let mut copies = 0;
    for line in text.lines().map(str::trim) {
        let Some(args) = line.strip_prefix("COPY ") else {
            continue;
        };
        if args.starts_with("--from=") {
            continue;
        }
        let words: Vec<&str> = args.split_whitespace().collect();
        for source in &words[..words.len() - 1] {
            assert!(
                Path::new(MANIFEST_DIR).join(source).exists(),
                "the Dockerfile copies `{source}`, which is not in the repository"
            );
            copies += 1;
        }
    }
    assert!(copies >= 5, "{text}");
    // The dependency step's stubs must name every bench the manifest declares, or cargo cannot
    // read it there ("can't find `taps` bench"): that step's shell, run on the manifest alone.
    let stubs = text
        .split("RUN mkdir -p")
        .nth(1)
        .and_then(|rest| rest.split("&& cargo build").next())
        .expect("the dependency step");
    let dir = tempfile::tempdir().unwrap();
    for f in ["Cargo.toml", "Cargo.lock"] {
        std::fs::copy(Path::new(MANIFEST_DIR).join(f), dir.path().join(f)).unwrap();
    }
    let script = format!("mkdir -p {}", stubs.replace("\\\n", " "));
    let sh = std::process::Command::new("sh")
        .args(["-c", &script])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(sh.status.success(), "{script}: {sh:?}");
    let manifest: toml::Table = std::fs::read_to_string(dir.path().join("Cargo.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let benches = manifest["bench"].as_array().unwrap();
    assert!(benches.len() >= 5, "{benches:?}");
    for b in benches {
        let stub = format!("benches/{}.rs", b["name"].as_str().unwrap());
        assert!(
            dir.path().join(&stub).exists(),
            "the Dockerfile's dependency step makes no `{stub}`: cargo cannot read the manifest"
        );
    }
    // The dependency step builds the dependencies: the vendored ones (path dependencies) must be
    // copied in before it, or cargo cannot find them there.
    let before_build = text.split("RUN mkdir -p").next().unwrap();
    let copied_first: Vec<&str> = before_build
        .lines()
        .filter_map(|l| l.trim().strip_prefix("COPY "))
        .flat_map(|args| {
            let words: Vec<&str> = args.split_whitespace().collect();
            words[..words.len() - 1].to_vec()
        })
        .collect();
    let own: toml::Table = std::fs::read_to_string(Path::new(MANIFEST_DIR).join("Cargo.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let paths: Vec<&str> = own["dependencies"]
        .as_table()
        .unwrap()
        .values()
        .filter_map(|d| d.get("path")?.as_str())
        .collect();
    assert!(
        paths.contains(&"vendor/opensrv-mysql"),
        "the vendored protocol library: {paths:?}"
    );
    for path in paths {
        assert!(
            copied_first
                .iter()
                .any(|c| Path::new(path).starts_with(c.trim_end_matches('/'))),
            "the Dockerfile's dependency step lacks `{path}` (copied before it: {copied_first:?})"
        );
    }
    assert!(text.contains("cargo build --release --locked --bin pinbad"));
    assert!(text.contains("COPY --from=build /src/target/release/pinbad /usr/local/bin/pinbad"));
    let ignore = std::fs::read_to_string(Path::new(MANIFEST_DIR).join(".dockerignore")).unwrap();
    assert!(
        ignore.lines().any(|l| l == "target"),
        "target/ must stay out of the build context"
    );
}

/// The release binary stays lean (Cargo.toml's profiles: line tables for pinbad's own code only,
/// split out to `pinbad.dwp`; build.rs: debug sections compressed) and a panic's backtrace still
/// names pinbad's files: the line tables are in the binary. Checked on release builds only (a
/// debug build carries full debug information by design).
#[test]
fn the_release_binary_is_lean_and_keeps_its_line_tables() {
    if cfg!(debug_assertions) {
        eprintln!("SKIPPED: a debug build; the size bound is the release binary's");
        return;
    }
    // About 32 MB: .text ~16.5 MB, the rest the line tables, symbols and unwind tables that
    // backtraces read. A bound with room for features, not for full debug information (~98 MB),
    // which is what it exists to catch.
    let bytes = std::fs::metadata(BIN).unwrap().len();
    assert!(bytes <= 36_000_000, "{BIN} is {bytes} bytes, over 36 MB");
    let out = match Command::new("readelf").args(["-S", "-W", BIN]).output() {
        Ok(out) if out.status.success() => out,
        _ => {
            eprintln!("SKIPPED: readelf (binutils) is not installed; the size was checked");
            return;
        }
    };
    let sections = String::from_utf8_lossy(&out.stdout);
    assert!(
        sections.lines().any(|l| l.contains(".debug_line ")),
        "no line tables in {BIN}:\n{sections}"
    );
}
