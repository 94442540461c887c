"""The differential test's client (tests/integration/sql_mariadb.rs): copies pinbad's raw tables
into a real MariaDB, runs every statement of the corpus on both through PyMySQL, and prints one
JSON object per statement: {"sql", "outcome", "detail"}, where outcome is `equal`, `different`,
`pinbad_error` or `mariadb_error`. A statement marked `=` is one both must refuse: equal when
pinbad's error code is MariaDB's.

Usage: compare.py PINBAD_PORT MARIADB_SOCKET CORPUS [--meta] (generate.py imports its
comparison); `--meta` prints the classes of the columns' definitions' differences instead.

Answers are compared as a client sees them: the same columns, the same rows (in order where the
statement has an ORDER BY outside parentheses, else as multisets), NULL where MariaDB has NULL,
text where it has text, numbers where it has numbers. Numbers compare by value: a DECIMAL
with digits after the point against pinbad's DECIMAL of the same scale (`7/2` is 3.5000 to a
client), rounded to it, a whole DECIMAL against any number of its value, a DOUBLE within 1e-9
relative, after rounding pinbad's to the decimals MariaDB shows of it; DATETIME, DATE and TIME
as MySQL writes them. Each column's definition is compared too: its type code, and its flags
(those clients read), decimals, length and charset, unless PINBAD_SQL_COMPARE_META names fewer
of them or a named rule of META_EXCLUSIONS leaves the difference out.
"""

import datetime
import decimal
import json
import os
import re
import sys
import unicodedata

import pymysql
import pymysql.converters
from pymysql.constants import FIELD_TYPE

class Shown(float):
    """A DOUBLE as a client reads it: its value, and the text the server sent (`1.50`)."""

    def __new__(cls, text):
        value = float.__new__(cls, text)
        value.text = text
        return value


# Both servers' DOUBLEs and FLOATs keep the text they were sent as (PHP's mysqli and PDO
# hand a client that text).
CONVERSIONS = dict(pymysql.converters.conversions)
CONVERSIONS[FIELD_TYPE.DOUBLE] = Shown
CONVERSIONS[FIELD_TYPE.FLOAT] = Shown
CONVERSIONS[Shown] = pymysql.converters.escape_float


def connect(port, socket):
    """pinbad's and MariaDB's cursors, MariaDB holding what pinbad's raw tables hold in a
    database `pinba` of the default collation, in UTC. The tables have pinbad's column types,
    FLOAT as FLOAT: a FLOAT column's value is copied as `x + 0` (a DOUBLE, all of its digits),
    since the FLOAT's own six digits would not read back as the same 32-bit float."""
    pinbad = pymysql.connect(host="127.0.0.1", port=port, user="diff", database="pinba",
                             conv=CONVERSIONS)
    maria = pymysql.connect(unix_socket=socket, user="root", autocommit=True, conv=CONVERSIONS)
    mc = maria.cursor()
    mc.execute("DROP DATABASE IF EXISTS pinba")
    mc.execute("CREATE DATABASE pinba CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci")
    mc.execute("USE pinba")
    mc.execute("SET time_zone = '+00:00'")
    pc = pinbad.cursor()
    for table in ["request", "timer", "timertag", "tag"]:
        pc.execute(
            "SELECT COLUMN_NAME, COLUMN_TYPE FROM information_schema.COLUMNS "
            "WHERE TABLE_NAME = %s ORDER BY ORDINAL_POSITION",
            (table,),
        )
        columns = pc.fetchall()
        mc.execute(
            "CREATE TABLE `%s` (%s)"
            % (table, ", ".join("`%s` %s" % (n, t) for n, t in columns))
        )
        pc.execute("SELECT %s FROM `%s`" % (exact_columns(columns), table))
        rows = pc.fetchall()
        if rows:
            mc.executemany(
                "INSERT INTO `%s` VALUES (%s)" % (table, ", ".join(["%s"] * len(columns))),
                rows,
            )
    return pc, mc


def exact_columns(columns):
    """A select list of `columns` ((name, type) pairs) that reads each value exactly: a FLOAT
    as a DOUBLE."""
    return ", ".join(("`%s` + 0" if t == "float" else "`%s`") % n for n, t in columns)


def normal(v):
    """A value as the comparison sees it: (kind, value)."""
    if v is None:
        return ("null", None)
    if isinstance(v, bool):
        return ("number", int(v))
    if isinstance(v, (int, float, decimal.Decimal)):
        return ("number", v)
    if isinstance(v, (bytes, bytearray)):
        v = bytes(v).decode("utf-8", "replace")
    if isinstance(v, datetime.datetime):
        return ("text", v.isoformat(" ", "microseconds" if v.microsecond else "seconds"))
    if isinstance(v, datetime.date):
        return ("text", v.isoformat())
    if isinstance(v, datetime.timedelta):
        s = int(v.total_seconds())
        sign = "-" if s < 0 else ""
        s = abs(s)
        return ("text", "%s%02d:%02d:%02d" % (sign, s // 3600, s // 60 % 60, s % 60))
    return ("text", str(v))


def same_value(m, p, shown):
    """Whether pinbad's `p` is MariaDB's `m`; `shown` is the decimals MariaDB shows of a DOUBLE
    (its column's scale; None where it shows them all)."""
    with decimal.localcontext() as ctx:
        # Digits enough for any double's value to quantize (1e308 has 309).
        ctx.prec = 1000
        return _same_value(m, p, shown)


def _same_value(m, p, shown):
    (mk, mv), (pk, pv) = normal(m), normal(p)
    if mk != pk:
        return False
    if mk != "number":
        return mv == pv
    if isinstance(mv, int) and isinstance(pv, int):
        return mv == pv
    if isinstance(mv, decimal.Decimal):
        exp = mv.as_tuple().exponent
        if exp < 0 and not (isinstance(pv, decimal.Decimal) and pv.as_tuple().exponent == exp):
            # A client sees a DECIMAL's scale (`3.5000`): pinbad must send the same digits.
            return False
        try:
            ours = decimal.Decimal(repr(float(pv)) if isinstance(pv, float) else pv)
            if exp < 0:
                ours = ours.quantize(decimal.Decimal(1).scaleb(exp), rounding=decimal.ROUND_HALF_UP)
            else:
                ours = ours.quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP)
        except decimal.InvalidOperation:
            return False
        return ours == mv
    if shown is not None and isinstance(mv, Shown) and isinstance(pv, Shown):
        # A DOUBLE of fixed decimals is sent with them (`PI()` is 3.141593, `ROUND(x, 2)`
        # 1.50): a client sees that text. Of the same shape, the last digit may differ by one
        # where the engines summed doubles in another order (a variance over a group's rows,
        # which MariaDB may meet sorted by the group).
        if mv.text == pv.text:
            return True
        shape = lambda t: (t.split(".")[1:] and len(t.split(".")[1]), t.startswith("-"))
        a, b = float(mv), float(pv)
        return (shape(mv.text) == shape(pv.text) and abs(a - b) <= 1.5 * 10.0 ** -shown
                and abs(a - b) <= 1e-9 * max(abs(a), abs(b)))
    a, b = float(mv), float(pv)
    return a == b or abs(a - b) <= 1e-9 * max(abs(a), abs(b))


def ordered(sql):
    """Whether the statement orders its rows: ORDER BY outside parentheses and literals."""
    depth, i, quote, text = 0, 0, None, []
    while i < len(sql):
        c = sql[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "'\"`":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif depth == 0:
            text.append(c)
        i += 1
    return "ORDER BY" in " ".join("".join(text).upper().split())


def folded(value):
    """A value as the default collation (utf8mb4_general_ci) sorts it: a string without case,
    accents or trailing spaces."""
    if not isinstance(value, str):
        return value
    bare = "".join(c for c in unicodedata.normalize("NFD", value) if not unicodedata.combining(c))
    return bare.casefold().rstrip(" ")


def ties_reordered(m_rows, p_rows, shown, limited):
    """Ordered rows that differ only in the order of rows the default collation holds equal
    (`'s'` and `'S'`): SQL leaves the order of rows of equal sort keys to the engine, and
    MariaDB's filesort is no stable sort. The same rows, in an order that folds to the same;
    under a LIMIT, which of the tied rows are kept is the engine's too."""
    if [tuple(map(folded, r)) for r in m_rows] != [tuple(map(folded, r)) for r in p_rows]:
        return False
    return limited or all(all(same_value(a, b, d) for a, b, d in zip(mr, pr, shown))
               for mr, pr in zip(sorted(m_rows, key=key), sorted(p_rows, key=key)))


def key(row):
    # -0.0 sorts as 0.0: the values compare equal, so the rows must meet in the same order.
    return [repr(normal(v + 0.0 if isinstance(v, float) else v)) for v in row]


DOUBLE, FLOAT = 5, 4


def run(cursor, sql):
    cursor.execute(sql)
    names = [d[0] for d in cursor.description or []]
    # The decimals MariaDB shows of each DOUBLE column (31: all of them).
    shown = [d[5] if d[1] in (DOUBLE, FLOAT) and d[5] is not None and d[5] < 31 else None
             for d in cursor.description or []]
    run.kinds = [declared_kind(d[1]) for d in cursor.description or []]
    run.metas = [Meta.of(f) for f in getattr(cursor._result, "fields", None) or []]
    return names, [list(r) for r in cursor.fetchall()], shown


# The temporal column types by what a client makes of them (MariaDB sends DATE as DATE,
# NEWDATE inside only; TIMESTAMP is read as DATETIME is).
TEMPORAL_KINDS = {10: "DATE", 14: "DATE", 12: "DATETIME", 7: "DATETIME", 11: "TIME"}


def declared_kind(code):
    """What a column's type code is compared as: every type code (LONG against LONGLONG, …),
    or with PINBAD_SQL_COMPARE_TYPES=temporal only its temporal kind (what a client reads as a
    date or time), to look past the type codes at the values."""
    if os.environ.get("PINBAD_SQL_COMPARE_TYPES") == "temporal" or declared_kind.temporal:
        return TEMPORAL_KINDS.get(code) or "not temporal"
    return TYPE_NAMES.get(SAME_TYPE.get(code, code), code)


# Set by the generator for a statement whose declared types it leaves out (an exclusion that
# hides only them): its values are compared, and its columns only as temporal or not.
declared_kind.temporal = False


# Column type codes by name, and the ones a client reads alike: MariaDB's copy of pinbad's
# FLOAT columns is DOUBLE (so that nothing rounds), TIMESTAMP reads as DATETIME, NEWDATE as DATE.
TYPE_NAMES = {0: "DECIMAL", 1: "TINY", 2: "SHORT", 3: "LONG", 4: "FLOAT", 5: "DOUBLE", 6: "NULL",
              7: "TIMESTAMP", 8: "LONGLONG", 9: "INT24", 10: "DATE", 11: "TIME", 12: "DATETIME",
              13: "YEAR", 14: "NEWDATE", 15: "VARCHAR", 16: "BIT", 245: "JSON", 246: "NEWDECIMAL",
              247: "ENUM", 248: "SET", 249: "TINY_BLOB", 250: "MEDIUM_BLOB", 251: "LONG_BLOB",
              252: "BLOB", 253: "VAR_STRING", 254: "STRING", 255: "GEOMETRY"}
SAME_TYPE = {4: 5, 7: 12, 14: 10}


def kinds_differ(m_kinds, p_kinds):
    """Where a column is declared temporal on one side and not (or another) on the other: what
    a client reads as a date or time (a `datetime`, Grafana's time column) against a string."""
    for i, (m, p) in enumerate(zip(m_kinds, p_kinds)):
        if m != p:
            return "column %d declared: mariadb %s, pinbad %s" % (i, m, p)
    return None


# The column flags a client reads (mysql_com.h's): JDBC's `isNullable` and `isSigned`, a
# driver's bytes-or-text choice (BINARY, BLOB), ENUM and SET. PRI_KEY, AUTO_INCREMENT and the
# like describe a table's column, which no result here comes from.
FLAG_NAMES = {1: "NOT_NULL", 16: "BLOB", 32: "UNSIGNED", 64: "ZEROFILL", 128: "BINARY",
              256: "ENUM", 2048: "SET"}
FLAGS_READ = sum(FLAG_NAMES)


class Meta:
    """A column's definition as the wire carries it: type code, flags (those clients read),
    length, decimals, charset."""

    def __init__(self, code, flags, length, decimals, charset):
        self.code, self.flags, self.length = code, flags & FLAGS_READ, length
        self.decimals, self.charset = decimals, charset

    @staticmethod
    def of(field):
        return Meta(field.type_code, field.flags, field.length, field.scale, field.charsetnr)

    def flag_names(self):
        return "|".join(n for b, n in sorted(FLAG_NAMES.items()) if self.flags & b) or "-"


def type_name(code):
    return TYPE_NAMES.get(code, str(code))


def meta_differences(m_metas, p_metas):
    """Each (column, aspect, MariaDB's, pinbad's, MariaDB's type name, pinbad's definition)
    where the definitions differ in flags, decimals, length or charset. MariaDB's copy of a
    FLOAT column is a DOUBLE (22 characters, pinbad's FLOAT 12): its length is not compared."""
    out = []
    for i, (m, p) in enumerate(zip(m_metas, p_metas)):
        t = type_name(m.code)
        pd = "%s %d/%d %s" % (type_name(p.code), p.length, p.decimals, p.flag_names())
        if m.flags != p.flags:
            out.append((i, "flags", m.flag_names(), p.flag_names(), t, pd))
        if m.decimals != p.decimals:
            out.append((i, "decimals", m.decimals, p.decimals, t, pd))
        if m.length != p.length and not (p.code == FLOAT and m.code == DOUBLE):
            out.append((i, "length", m.length, p.length, t, pd))
        if m.charset != p.charset:
            out.append((i, "charset", m.charset, p.charset, t, pd))
    return out


def meta_aspects():
    """The aspects of a column's definition that fail a comparison: all of them, or those
    PINBAD_SQL_COMPARE_META lists (`flags,decimals,length,charset`; `off`: none), or none where
    the generator leaves the declared types of a statement out."""
    if declared_kind.temporal or meta_aspects.skip:
        return set()
    v = os.environ.get("PINBAD_SQL_COMPARE_META", "flags,decimals,length,charset")
    return set() if v == "off" else set(v.split(","))


# The definitions pinbad gives a column no rule of `src/sql/coldef.rs` follows: by its type
# alone, or by its values (a `SHOW`'s, a window function's).
NOT_FOLLOWED = {"VAR_STRING 1024/39 -", "LONGLONG 21/0 -", "LONGLONG 21/0 BINARY",
                "DOUBLE 23/31 -"}
STRING_TYPES = {"VAR_STRING", "STRING", "BLOB", "MEDIUM_BLOB", "LONG_BLOB", "TINY_BLOB"}


def _union_or_derived(sql):
    u = " ".join(sql.upper().split())
    return re.search(r"\bUNION\b", u) is not None or "FROM (SELECT" in u or "JOIN (SELECT" in u


# What pinbad still declares otherwise than MariaDB, each a named rule over a statement and
# one column's difference (aspect, MariaDB's, pinbad's, MariaDB's type name, pinbad's
# definition), docs/testing.md lists them: left out of the comparison.
META_EXCLUSIONS = [
    # A column no rule follows (`SHOW`, `information_schema`, window functions, `UNHEX`, …).
    ("not_followed", lambda sql, a, m, p, t, pd: pd in NOT_FOLLOWED),
    # A UNION's or a derived table's columns: pinbad declares its first select's, MariaDB
    # merges every select's into its temporary table's.
    ("union_and_derived_columns", lambda sql, a, m, p, t, pd: _union_or_derived(sql)),
    # Strings' lengths: MariaDB's per function (characters times 4, a function's own bound);
    # pinbad follows them for numbers, temporals and `DATE_FORMAT`, not yet for every string
    # function.
    ("string_lengths", lambda sql, a, m, p, t, pd: a == "length" and t in STRING_TYPES),
    # A DECIMAL's length (its precision and a sign): MariaDB's arithmetic gives a digit more
    # or less (`0.1 + 0.2` 5, `ROUND(1.5, 3)` 6) than pinbad's typing; the DECIMAL arithmetic
    # (issue 80, item 1) decides it.
    ("decimal_lengths", lambda sql, a, m, p, t, pd: a == "length" and t == "NEWDECIMAL"),
    # A temporal read as a number and rounded (`FLOOR(DATE …)` UNSIGNED of 8, `TRUNCATE(ABS(
    # TIMESTAMP …), 5)` NOT_NULL), or moved by a number (`DATE '…' + 0.5`).
    ("numbers_of_temporals", lambda sql, a, m, p, t, pd: t in NUMBER_TYPES and a in (
        "flags", "length") and re.search(r"(DATE|TIMESTAMP) '|FROM_UNIXTIME\(|DATE\(", sql)),
    # `STR_TO_DATE` with a NULL format and `TIME` of a string that is no time: MariaDB
    # declares 6 fraction digits (it reads the string as the query runs), pinbad none.
    ("temporals_of_unread_strings", lambda sql, a, m, p, t, pd: t in ("DATETIME", "TIME")
     and a in ("decimals", "length") and ("STR_TO_DATE(" in sql or "TIME('" in sql)),
    # A FLOAT column merged with numbers, negated or averaged: MariaDB's copy of it is a DOUBLE
    # of 22 characters (`COALESCE(NULL, req_time, 1)` 22, `-req_time`, `AVG(req_time)` and
    # `IFNULL(MAX(req_time), 0)` 23), pinbad's a FLOAT of 12 (12, 13, 16 and 12, as MariaDB's of
    # a FLOAT column).
    ("float_columns_merged", lambda sql, a, m, p, t, pd: a == "length" and t == "DOUBLE"
     and (m, p) in ((22, 23), (23, 16), (22, 12), (23, 13), (23, 12))),
    # A GROUP BY of a column `WHERE` makes constant (`WHERE tt.value = 'GET' GROUP BY
    # tt.value`): MariaDB groups without a temporary table.
    ("grouped_by_a_constant_column", lambda sql, a, m, p, t, pd: a == "flags" and any(
        re.search(r"\b%s\s*=\s*'" % re.escape(g), sql)
        for g in re.findall(r"GROUP BY ([\w.]+)", sql))),
    # A string function of NULL (`UPPER(NULL)`): a binary string in MariaDB (NULL's charset),
    # text here.
    ("string_functions_of_null", lambda sql, a, m, p, t, pd: t in STRING_TYPES and (
        (a == "flags" and "BINARY" in m and "BINARY" not in p) or (a == "charset" and m == 63))
     and "(NULL" in sql),
    # A string made of one of a binary collation (`JSON_UNQUOTE`'s, `utf8mb4_bin`) that wins
    # the collations' aggregation (`CONCAT(JSON_UNQUOTE(…), 'b')`): flagged BINARY in MariaDB;
    # pinbad flags only `JSON_UNQUOTE` itself, its typing knowing no derivations.
    ("binary_collation_merged", lambda sql, a, m, p, t, pd: t in STRING_TYPES and a == "flags"
     and "BINARY" in m and "BINARY" not in p and ("JSON_UNQUOTE(" in sql or "_bin" in sql)),
]
NUMBER_TYPES = {"TINY", "SHORT", "LONG", "LONGLONG", "INT24", "NEWDECIMAL", "DOUBLE", "FLOAT"}


# Set by the generator for a statement a `meta` exclusion matches: its definitions' flags,
# decimals, lengths and charsets are left out (its type codes and values still compared).
meta_aspects.skip = False


def meta_excluded(sql, d):
    """The name of the exclusion that leaves difference `d` of `sql` out, or None."""
    for name, rule in META_EXCLUSIONS:
        if rule(sql, *d[1:]):
            return name
    return None


def meta_report(results):
    """The classes of the definitions' differences on the corpus: per aspect, the statements
    with one, and each (aspect, MariaDB's type, MariaDB's, pinbad's) with its count and first
    statements; what an exclusion leaves out is counted under its name."""
    lines, classes, per_aspect, excluded = [], {}, {}, {}
    for r in results:
        for d in r.get("meta") or []:
            col, aspect, m, p, t, _ = d
            name = meta_excluded(r["sql"], d)
            if name:
                excluded.setdefault(name, set()).add(r["sql"])
                continue
            per_aspect.setdefault(aspect, set()).add(r["sql"])
            classes.setdefault((aspect, t, str(m), str(p)), []).append(r["sql"])
    answered = sum(1 for r in results if r["outcome"] in ("equal", "different"))
    differing = set().union(*per_aspect.values()) if per_aspect else set()
    lines.append("%d statements answered; %d with a column of another definition" % (
        answered, len(differing)))
    for aspect in ("flags", "decimals", "length", "charset"):
        lines.append("  %s: %d statements" % (aspect, len(per_aspect.get(aspect, ()))))
    for name, sqls in sorted(excluded.items()):
        lines.append("  excluded %s: %d statements" % (name, len(sqls)))
    for (aspect, t, m, p), sqls in sorted(classes.items(), key=lambda kv: -len(set(kv[1]))):
        uniq = list(dict.fromkeys(sqls))
        lines.append("%4d  %-8s %-11s mariadb %-22s pinbad %s" % (len(uniq), aspect, t, m, p))
        for sql in uniq[:3]:
            lines.append("        %s" % sql)
    return "\n".join(lines)


def meta_detail(diffs):
    return "; ".join("column %d %s: mariadb %s, pinbad %s (%s; pinbad's %s)" % d for d in diffs)


class Pinbad:
    """pinbad's cursor, opened again after a statement that lost the connection."""

    def __init__(self, port, cursor):
        self.port, self.cursor = port, cursor

    def reopen_after(self, e):
        if isinstance(e, pymysql.err.OperationalError) and e.args[0] in (2006, 2013):
            conn = pymysql.connect(host="127.0.0.1", port=self.port, user="diff", database="pinba",
                                   conv=CONVERSIONS)
            self.cursor = conn.cursor()


def compare(mc, pinbad, sql):
    """One statement on both: a dict with `outcome` (`equal`, `different`, `pinbad_error`,
    `mariadb_error`), `detail` (what differs, or the error) and `names` (the column names where
    they differ)."""
    result = {}
    try:
        m_names, m_rows, shown = run(mc, sql)
    except pymysql.MySQLError as e:
        result.update(outcome="mariadb_error", detail=str(e))
        return result
    m_kinds, m_metas = run.kinds, run.metas
    try:
        p_names, p_rows, _ = run(pinbad.cursor, sql)
    except pymysql.MySQLError as e:
        result.update(outcome="pinbad_error", detail=str(e))
        pinbad.reopen_after(e)
        return result
    p_kinds, p_metas = run.kinds, run.metas
    if not ordered(sql):
        m_rows.sort(key=key)
        p_rows.sort(key=key)
    detail = None
    if len(m_names) != len(p_names):
        detail = "columns: mariadb %r, pinbad %r" % (m_names, p_names)
    elif len(m_rows) != len(p_rows):
        detail = "rows: mariadb %d, pinbad %d; first: %r vs %r" % (
            len(m_rows), len(p_rows), m_rows[:3], p_rows[:3])
    else:
        detail = kinds_differ(m_kinds, p_kinds)
    if detail is None and len(m_rows) == len(p_rows):
        for i, (mr, pr) in enumerate(zip(m_rows, p_rows)):
            if not all(same_value(a, b, d) for a, b, d in zip(mr, pr, shown)):
                detail = "row %d: mariadb %r, pinbad %r" % (i, mr, pr)
                break
        if detail is not None and ordered(sql) and ties_reordered(
                m_rows, p_rows, shown, "LIMIT" in sql.upper()):
            detail = None
    names = None if m_names == p_names else "mariadb %r, pinbad %r" % (m_names, p_names)
    meta = meta_differences(m_metas, p_metas) if len(m_names) == len(p_names) else []
    failing = [d for d in meta if d[1] in meta_aspects() and not meta_excluded(sql, d)]
    if detail is None and failing:
        detail = meta_detail(failing)
    result.update(outcome="different" if detail else "equal", detail=detail, names=names,
                  meta=[list(d) for d in meta])
    return result


def both_refuse(mc, pinbad, sql):
    """A statement both must refuse: equal when pinbad's error code is MariaDB's."""
    codes = []
    for cursor in (mc, pinbad.cursor):
        try:
            run(cursor, sql)
            codes.append(None)
        except pymysql.MySQLError as e:
            codes.append(e.args[0])
    same = codes[0] is not None and codes[0] == codes[1]
    return {"outcome": "equal" if same else "different",
            "detail": None if same else "errors: mariadb %r, pinbad %r" % tuple(codes)}


def main():
    port, socket, corpus = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    pc, mc = connect(port, socket)
    pinbad = Pinbad(port, pc)
    out = []
    for line in open(corpus, encoding="utf-8"):
        line = line.strip()
        if not line or line.startswith("--"):
            continue
        sql = line.lstrip("!~=").strip()
        result = {"sql": sql, "known_error": line.startswith("!"),
                  "known_difference": line.startswith("~")}
        if line.startswith("="):
            result.update(both_refuse(mc, pinbad, sql))
        else:
            result.update(compare(mc, pinbad, sql))
        out.append(result)
    if "--meta" in sys.argv[4:]:
        print(meta_report(out))
        return
    for r in out:
        print(json.dumps(r, default=str))


if __name__ == "__main__":
    main()
