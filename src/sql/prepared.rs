//! Server-side prepared statements (`COM_STMT_PREPARE`, `EXECUTE`, `CLOSE`): a statement's `?`
//! placeholders found once, and each execution's parameters written into its text as MySQL
//! literals, so that an executed statement is answered exactly as the same text sent as a query
//! (one path for both: the same translation, slots, bounds and errors).
//!
//! Why text and not SQLite's own binding: a statement is translated from MySQL's dialect before
//! SQLite sees it, and a placeholder's MySQL meaning (a string compared case-insensitively, an
//! integer divided as a decimal) is the translation's to decide, from the literal in its place.
//! Parameters are literals, never SQL: a string is quoted with every quote and backslash
//! escaped, a number is written by its value, so no parameter can change the statement's shape.

use opensrv_mysql::{ParamValue, ValueInner};

/// Most statements a session keeps prepared (MySQL's `max_prepared_stmt_count` is per server;
/// this bounds one session's memory): a client that prepares without closing gets error 1461.
pub const MAX_PREPARED_PER_SESSION: usize = 1024;

/// The comment around a bound parameter's literal (`translate` names it `?`).
pub const PARAMETER: &str = "/*?*/";

/// A prepared statement: its text and where its placeholders are.
#[derive(Clone, Debug)]
pub struct Prepared {
    pub sql: String,
    /// Byte offsets of its `?` placeholders, in order.
    pub placeholders: Vec<usize>,
}

impl Prepared {
    pub fn new(sql: &str) -> Prepared {
        Prepared {
            sql: sql.to_string(),
            placeholders: placeholders(sql),
        }
    }

    /// The statement's text with `literals` in its placeholders' places (as many as it has),
    /// each between two [`PARAMETER`] comments: the translation names a select list item by
    /// the text written, and MySQL's is `?` where a parameter is, not its value.
    pub fn bind(&self, literals: &[String]) -> String {
        let mut out = String::with_capacity(
            self.sql.len()
                + literals
                    .iter()
                    .map(|l| l.len() + 2 * PARAMETER.len())
                    .sum::<usize>(),
        );
        let mut at = 0;
        for (&p, lit) in self.placeholders.iter().zip(literals) {
            out.push_str(&self.sql[at..p]);
            out.push_str(PARAMETER);
            out.push_str(lit);
            out.push_str(PARAMETER);
            at = p + 1;
        }
        out.push_str(&self.sql[at..]);
        out
    }

    /// The text with `NULL` for every placeholder: what the statement's columns are found from at
    /// prepare time.
    pub fn probe(&self) -> String {
        self.bind(&vec!["NULL".to_string(); self.placeholders.len()])
    }
}

/// Byte offsets of the `?` placeholders of `sql`: outside string literals ('…', "…", with
/// backslash escapes and doubled quotes), quoted identifiers (`…`) and comments (`-- `, `#`,
/// `/* */`), as MySQL's parser finds them.
pub fn placeholders(sql: &str) -> Vec<usize> {
    let b = sql.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            q @ (b'\'' | b'"' | b'`') => {
                i += 1;
                while i < b.len() {
                    if b[i] == b'\\' && q != b'`' {
                        i += 2;
                        continue;
                    }
                    if b[i] == q {
                        if b.get(i + 1) == Some(&q) {
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    i += 1;
                }
                i += 1;
            }
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'-' if b.get(i + 1) == Some(&b'-')
                && b.get(i + 2).is_none_or(|c| c.is_ascii_whitespace()) =>
            {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i += 2;
            }
            b'?' => {
                out.push(i);
                i += 1;
            }
            _ => i += 1,
        }
    }
    out
}

/// A parameter as a MySQL literal: `NULL`, a number, or a quoted string (the binary protocol's
/// dates and times as MySQL's text form of them). `None`: bytes that are not UTF-8.
pub fn literal(p: ParamValue<'_>) -> Option<String> {
    Some(match p.value.into_inner() {
        ValueInner::NULL => "NULL".into(),
        ValueInner::Int(i) => i.to_string(),
        ValueInner::UInt(u) => u.to_string(),
        ValueInner::Double(f) if f.is_finite() => format!("{f:?}"),
        ValueInner::Double(_) => "NULL".into(),
        ValueInner::Bytes(b) => string(std::str::from_utf8(b).ok()?),
        ValueInner::Date(b) | ValueInner::Datetime(b) => string(&datetime(b)),
        ValueInner::Time(b) => string(&time(b)),
    })
}

/// `s` as a MySQL string literal: quotes and backslashes escaped.
pub fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\'' => out.push_str("''"),
            '\\' => out.push_str("\\\\"),
            '\0' => out.push_str("\\0"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// The binary protocol's `DATE`/`DATETIME`/`TIMESTAMP` (length 0, 4, 7 or 11 bytes) as
/// `YYYY-MM-DD[ HH:MM:SS[.ffffff]]`.
fn datetime(b: &[u8]) -> String {
    let at = |i: usize| b.get(i).copied().unwrap_or(0) as u32;
    let year = at(0) | at(1) << 8;
    let mut s = format!("{year:04}-{:02}-{:02}", at(2), at(3));
    if b.len() >= 7 {
        s += &format!(" {:02}:{:02}:{:02}", at(4), at(5), at(6));
    }
    if b.len() >= 11 {
        let micros = at(7) | at(8) << 8 | at(9) << 16 | at(10) << 24;
        s += &format!(".{micros:06}");
    }
    s
}

/// The binary protocol's `TIME` (length 0, 8 or 12 bytes) as `[-]HHH:MM:SS[.ffffff]`.
fn time(b: &[u8]) -> String {
    let at = |i: usize| b.get(i).copied().unwrap_or(0) as u32;
    let negative = at(0) == 1;
    let days = at(1) | at(2) << 8 | at(3) << 16 | at(4) << 24;
    let hours = days * 24 + at(5);
    let mut s = format!(
        "{}{hours:02}:{:02}:{:02}",
        if negative { "-" } else { "" },
        at(6),
        at(7)
    );
    if b.len() >= 12 {
        let micros = at(8) | at(9) << 8 | at(10) << 16 | at(11) << 24;
        s += &format!(".{micros:06}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_outside_literals_identifiers_and_comments() {
        let sql = "SELECT ?, '?', \"a\\\"?\", `?`, 'it''s ?' -- ?\n# ?\n/* ? */ FROM t WHERE a = ? AND b-?";
        let found: Vec<&str> = placeholders(sql).iter().map(|&p| &sql[p..p + 1]).collect();
        assert_eq!(found, ["?", "?", "?"]);
        let p = Prepared::new(sql);
        assert_eq!(p.placeholders.len(), 3);
        assert!(p
            .bind(&["1".into(), "2".into(), "3".into()])
            .starts_with("SELECT /*?*/1/*?*/, '?'"));
        assert!(p
            .bind(&["1".into(), "2".into(), "3".into()])
            .ends_with("WHERE a = /*?*/2/*?*/ AND b-/*?*/3/*?*/"));
        assert_eq!(Prepared::new("SELECT 1").probe(), "SELECT 1");
        assert_eq!(
            Prepared::new("SELECT ? + ?").probe(),
            "SELECT /*?*/NULL/*?*/ + /*?*/NULL/*?*/"
        );
    }

    #[test]
    fn strings_cannot_leave_their_quotes() {
        assert_eq!(string("a'b\\c"), "'a''b\\\\c'");
        let p = Prepared::new("SELECT * FROM request WHERE script_name = ?");
        let bound = p.bind(&[string("x' OR '1'='1")]);
        assert_eq!(
            bound,
            "SELECT * FROM request WHERE script_name = /*?*/'x'' OR ''1''=''1'/*?*/"
        );
        // The bound text has no placeholder left, and one literal where the `?` was.
        assert!(placeholders(&bound).is_empty());
    }

    #[test]
    fn binary_dates_and_times_as_text() {
        assert_eq!(datetime(&[0xea, 0x07, 11, 26]), "2026-11-26");
        assert_eq!(
            datetime(&[0xea, 0x07, 11, 26, 9, 5, 7]),
            "2026-11-26 09:05:07"
        );
        assert_eq!(
            datetime(&[0xea, 0x07, 11, 26, 9, 5, 7, 0x40, 0xe2, 0x01, 0]),
            "2026-11-26 09:05:07.123456"
        );
        assert_eq!(time(&[1, 1, 0, 0, 0, 2, 3, 4]), "-26:03:04");
    }
}
