//! The layers of `src/` (docs/ARCHITECTURE.md, "Layers"): every top-level module is listed in
//! [`LAYERS`], bottom first, and imports only modules listed before it. The test reads the
//! sources, finds every `crate::x` path (in `use` lines and inline; test code left out) and fails
//! naming each edge that points up, and each module the list does not place.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The top-level modules, bottom first, grouped by layer. A module may import only the modules
/// before it (its own layer's earlier ones included).
const LAYERS: &[(&str, &[&str])] = &[
    (
        "base types and codecs",
        &[
            "units",
            "codec",
            "durable",
            "ids",
            "marks",
            "memory",
            "budget",
            "sqlite_heap",
            "shutdown",
            "turns",
            "logging",
            "histogram",
            "instruments",
            "counters",
            "record",
            "dictionary",
            "proto",
        ],
    ),
    (
        "ingest",
        &[
            "decode",
            "ring",
            "pool",
            "rewrite",
            "intern",
            "receiver",
            "activation",
        ],
    ),
    ("the report engine", &["report"]),
    ("config", &["config"]),
    ("core state and taps", &["tap", "state"]),
    ("merger", &["merger"]),
    (
        "consumers and persistence",
        &[
            "ndjson", "stream", "sink", "history", "reqlog", "snapshot", "pending", "ticklog",
            "status", "metrics",
        ],
    ),
    ("front ends", &["dashboard", "sql", "api"]),
    ("wiring and CLI", &["corpus", "app", "cli"]),
];

/// The modules in order, each with its layer's name.
fn order() -> Vec<(&'static str, &'static str)> {
    LAYERS
        .iter()
        .flat_map(|(layer, mods)| mods.iter().map(move |m| (*m, *layer)))
        .collect()
}

#[test]
fn no_module_imports_one_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let order = order();
    let rank = |m: &str| order.iter().position(|(n, _)| *n == m);
    let mut unplaced = BTreeSet::new();
    let mut up = BTreeSet::new();
    let mut modules = BTreeSet::new();
    for file in rust_files(&src) {
        let rel = file.strip_prefix(&src).unwrap();
        let Some(module) = top_module(rel) else {
            continue;
        };
        if is_test_file(rel) {
            continue;
        }
        modules.insert(module.clone());
        let Some(from) = rank(&module) else {
            unplaced.insert(module.clone());
            continue;
        };
        let code = without_tests(&strip(&std::fs::read_to_string(&file).unwrap()));
        for target in crate_paths(&code) {
            if target == module {
                continue;
            }
            match rank(&target) {
                Some(to) if to > from => {
                    up.insert(format!(
                        "{module} ({}) imports {target} ({}) in {}",
                        order[from].1,
                        order[to].1,
                        rel.display()
                    ));
                }
                _ => {}
            }
        }
    }
    assert!(
        unplaced.is_empty(),
        "top-level modules missing from LAYERS (tests/integration/layers.rs and \
         docs/ARCHITECTURE.md): {unplaced:?}"
    );
    let gone: Vec<_> = order
        .iter()
        .filter(|(m, _)| !modules.contains(*m))
        .map(|(m, _)| *m)
        .collect();
    assert!(
        gone.is_empty(),
        "LAYERS lists modules src/ does not have: {gone:?}"
    );
    assert!(
        up.is_empty(),
        "edges that point up a layer (move the item down, or invert the dependency):\n{}",
        up.into_iter().collect::<Vec<_>>().join("\n")
    );
}

/// `src/lib.rs`, the crate's map, lists the modules in the layers' order, bottom first.
#[test]
fn lib_rs_lists_the_modules_bottom_up() {
    let lib =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap();
    let listed: Vec<&str> = lib
        .lines()
        .filter_map(|l| l.strip_prefix("pub mod ")?.strip_suffix(';'))
        .collect();
    let want: Vec<&str> = order().into_iter().map(|(m, _)| m).collect();
    assert_eq!(listed, want, "src/lib.rs's modules, against LAYERS' order");
}

/// The checker itself: paths in `use` groups and inline are found, comments, strings and test
/// code are not.
#[test]
fn the_checker_sees_paths_and_only_paths() {
    let code = r##"
        use crate::a::X;
        use crate::{b::Y, c::{Z, W}, d};
        pub use crate::e as f;
        fn g() { crate::h::call(); let s = "crate::not_a_path"; } // crate::comment
        /* crate::block /* nested crate::x */ */
        let r = r#"crate::raw"#; let c = 'c'; fn l<'a>(x: &'a str) {}
        #[cfg(test)]
        fn only_tests() { crate::t::x(); }
        #[cfg(test)]
        mod tests { use crate::u; }
        fn after() { pinbad::v::w(); }
    "##;
    let found = crate_paths(&without_tests(&strip(code)));
    let want: BTreeSet<String> = ["a", "b", "c", "d", "e", "h", "v"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(found, want);
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// The top-level module a file of `src/` belongs to (`None`: the crate root and the binaries).
fn top_module(rel: &Path) -> Option<String> {
    let first = rel.components().next()?.as_os_str().to_str()?;
    match first {
        "lib.rs" | "main.rs" | "bin" => None,
        f => Some(f.strip_suffix(".rs").unwrap_or(f).to_string()),
    }
}

/// Whether a file holds only test code: `tests.rs`, or anything under a `tests/` folder.
fn is_test_file(rel: &Path) -> bool {
    rel.file_name().is_some_and(|f| f == "tests.rs")
        || rel.components().any(|c| c.as_os_str() == "tests")
}

/// The code without comments, string and character literals (a small Rust lexer: enough for
/// paths).
fn strip(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        let rest = &src[i..];
        if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
        } else if rest.starts_with("/*") {
            let mut depth = 0;
            while i < b.len() {
                if src[i..].starts_with("/*") {
                    depth += 1;
                    i += 2;
                } else if src[i..].starts_with("*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if let Some(hashes) = raw_string_start(src, i) {
            let open = 2 + hashes + usize::from(b[i] == b'b');
            let close = format!("\"{}", "#".repeat(hashes));
            i = src[i + open..]
                .find(&close)
                .map_or(b.len(), |at| i + open + at + close.len());
            out.push_str("\"\"");
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if b[i] == b'\'' {
            // A character literal ('x', '\n', '\u{..}'); else a lifetime, kept.
            match char_literal_len(&src[i..]) {
                Some(n) => {
                    i += n;
                    out.push_str("' '");
                }
                None => {
                    out.push('\'');
                    i += 1;
                }
            }
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// At `i`, a raw string (`r"`, `r#"`, `br#"`...) that is not the end of an identifier: its
/// number of `#`.
fn raw_string_start(src: &str, i: usize) -> Option<usize> {
    let b = src.as_bytes();
    if i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_') {
        return None;
    }
    let at = match (b.get(i), b.get(i + 1)) {
        (Some(b'r'), _) => i + 1,
        (Some(b'b'), Some(b'r')) => i + 2,
        _ => return None,
    };
    let hashes = b[at..].iter().take_while(|&&c| c == b'#').count();
    (b.get(at + hashes) == Some(&b'"')).then_some(hashes)
}

/// The length of the character literal `s` starts with, if it starts with one.
fn char_literal_len(s: &str) -> Option<usize> {
    let mut chars = s.char_indices().skip(1);
    let (_, c) = chars.next()?;
    if c == '\\' {
        let end = s[2..].find('\'')?;
        return (end <= 10).then_some(end + 3);
    }
    let (at, close) = chars.next()?;
    (close == '\'').then_some(at + 1)
}

/// The code without the items marked `#[cfg(test)]` (each to the end of its block or `;`).
fn without_tests(code: &str) -> String {
    const MARK: &str = "#[cfg(test)]";
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find(MARK) {
        out.push_str(&rest[..at]);
        let item = &rest[at + MARK.len()..];
        let mut depth = 0usize;
        let mut end = item.len();
        for (i, c) in item.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = i + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = i + 1;
                    break;
                }
                _ => {}
            }
        }
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

/// The top-level modules named by `crate::x` or `pinbad::x` paths, `use crate::{x, y::z}` groups
/// included.
fn crate_paths(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for root in ["crate::", "pinbad::"] {
        let mut from = 0;
        while let Some(at) = code[from..].find(root) {
            let start = from + at;
            from = start + root.len();
            let before = code[..start].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let rest = &code[from..];
            if let Some(group) = rest.strip_prefix('{') {
                out.extend(group_heads(group));
            } else {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    out.insert(name);
                }
            }
        }
    }
    out
}

/// The first segment of each path in a `{a, b::c, d::{e}}` group (`group` starts after `{`).
fn group_heads(group: &str) -> Vec<String> {
    let mut heads = Vec::new();
    let mut depth = 0usize;
    let mut at_start = true;
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => at_start = true,
            c if at_start && (c.is_alphanumeric() || c == '_') => {
                let name: String = group[i..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                heads.push(name);
                at_start = false;
            }
            _ => {}
        }
    }
    heads
}
