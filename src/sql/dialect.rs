//! MySQL's dialect as the SQL front end reads it: sqlparser's `MySqlDialect` with MySQL's
//! operator precedences and the operators it does not parse.
//!
//! sqlparser's MySQL dialect takes the generic precedences for `^`, `<<`/`>>`, `XOR` and `||`,
//! which are not MySQL's: `3 ^ 5 + 1` is `(3 ^ 5) + 1` in MySQL, `a = 1 XOR b > 2` is
//! `(a = 1) XOR (b > 2)`, and `||` is OR (`sql_mode` without `PIPES_AS_CONCAT`), not a
//! concatenation binding tighter than `>=`. It also refuses `10 MOD 4`, `!x`, composite
//! interval units (`INTERVAL '1:30' HOUR_MINUTE`) and `TRIM(LEADING FROM s)`. [`MySql`]
//! is that dialect with those fixed, the way sqlparser lets a dialect be wrapped: every method
//! `MySqlDialect` defines is handed to it, and `dialect()` answers `MySqlDialect`'s type, so
//! that the parser's own MySQL cases apply. A test checks that it parses the differential
//! corpus as `MySqlDialect` does where none of those operators is involved.

use std::any::TypeId;
use std::borrow::Cow;

use sqlparser::ast::{
    BinaryOperator, DateTimeField, Expr, Ident, Interval, Statement, TrimWhereField, UnaryOperator,
};
use sqlparser::dialect::{BindPlaceholderStyle, Dialect, MySqlDialect, Precedence};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

/// MySQL's dialect, precedences and all.
#[derive(Debug, Default)]
pub struct MySql;

/// `sql` as MySQL's default `sql_mode` reads what the session's reads: under `ANSI_QUOTES` a
/// `"…"` is an identifier (written `` `…` ``), under `NO_BACKSLASH_ESCAPES` a backslash in a
/// string is itself (written `\\`). Strings, quoted identifiers and comments are skipped as
/// MySQL's lexer skips them; an executable comment's text (`/*!40101 … */`) is read as
/// statement text. The statement is then parsed, translated and typed as any other, so each
/// flag acts in one place. (Under `NO_BACKSLASH_ESCAPES` MySQL's `LIKE` has no escape
/// character unless one is given; here it keeps `\`.)
pub fn in_default_mode(sql: &str, ansi_quotes: bool, no_backslash_escapes: bool) -> Cow<'_, str> {
    let quoted = ansi_quotes && sql.contains('"');
    let escaped = no_backslash_escapes && sql.contains('\\');
    if !quoted && !escaped {
        return Cow::Borrowed(sql);
    }
    let chars: Vec<char> = sql.chars().collect();
    let mut out = String::with_capacity(sql.len() + 8);
    let mut i = 0;
    // The end of a run quoted by `q` that starts at `i` (after the opening quote): the index of
    // its closing quote, a doubled quote inside being one; a backslash escapes the next
    // character where `escapes`.
    let closing = |mut i: usize, q: char, escapes: bool| -> usize {
        while i < chars.len() {
            match chars[i] {
                '\\' if escapes => i += 2,
                c if c == q && chars.get(i + 1) == Some(&q) => i += 2,
                c if c == q => return i,
                _ => i += 1,
            }
        }
        chars.len()
    };
    while i < chars.len() {
        let c = chars[i];
        match c {
            '"' if ansi_quotes => {
                let end = closing(i + 1, '"', false);
                let name: String = chars[i + 1..end.min(chars.len())].iter().collect();
                out.push('`');
                out.push_str(&name.replace("\"\"", "\"").replace('`', "``"));
                out.push('`');
                i = end + 1;
            }
            '\'' | '"' => {
                let end = closing(i + 1, c, !no_backslash_escapes);
                out.push(c);
                for &k in &chars[i + 1..end.min(chars.len())] {
                    if k == '\\' && no_backslash_escapes {
                        out.push('\\');
                    }
                    out.push(k);
                }
                if end < chars.len() {
                    out.push(c);
                }
                i = end + 1;
            }
            '`' => {
                let end = closing(i + 1, '`', false);
                out.extend(&chars[i..(end + 1).min(chars.len())]);
                i = end + 1;
            }
            // A comment, as it is (an executable one's text is statement text).
            '/' if chars.get(i + 1) == Some(&'*')
                && !matches!(chars.get(i + 2), Some('!') | Some('M')) =>
            {
                let end = (i + 2..chars.len().saturating_sub(1))
                    .find(|&k| chars[k] == '*' && chars[k + 1] == '/')
                    .map_or(chars.len(), |k| k + 2);
                out.extend(&chars[i..end]);
                i = end;
            }
            '#' => {
                let end = (i..chars.len())
                    .find(|&k| chars[k] == '\n')
                    .unwrap_or(chars.len());
                out.extend(&chars[i..end]);
                i = end;
            }
            '-' if chars.get(i + 1) == Some(&'-')
                && chars.get(i + 2).is_none_or(|c| c.is_whitespace()) =>
            {
                let end = (i..chars.len())
                    .find(|&k| chars[k] == '\n')
                    .unwrap_or(chars.len());
                out.extend(&chars[i..end]);
                i = end;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Cow::Owned(out)
}

/// How tightly `^` binds: above `*` and `/` (sqlparser's 40), below `::` (50).
const CARET: u8 = 45;
/// `<<` and `>>`: between `+`/`-` (30) and `&` (23).
const SHIFT: u8 = 25;
/// `XOR`: between `OR` (5) and `AND` (10).
const XOR: u8 = 7;
/// `!x`'s operand: a primary (no infix operator binds tighter).
const BANG_OPERAND: u8 = 50;

/// `INTERVAL '1:30' HOUR_MINUTE`: MySQL's composite units, which sqlparser does not know (the
/// unit is kept by name); `None` (nothing consumed) for any other `INTERVAL`, sqlparser's.
fn composite_interval(parser: &mut Parser) -> Result<Option<Expr>, ParserError> {
    parser.maybe_parse(|p| {
        p.expect_keyword(Keyword::INTERVAL)?;
        let value = p.parse_expr()?;
        let unit = match &p.peek_token_ref().token {
            Token::Word(w) if w.quote_style.is_none() && w.value.contains('_') => {
                w.value.to_ascii_uppercase()
            }
            _ => return Err(ParserError::ParserError("not a composite unit".into())),
        };
        if !super::translate::UNITS.contains(&unit.as_str()) {
            return Err(ParserError::ParserError("not a composite unit".into()));
        }
        p.next_token();
        Ok(Expr::Interval(Interval {
            value: Box::new(value),
            leading_field: Some(DateTimeField::Custom(Ident::new(unit))),
            leading_precision: None,
            last_field: None,
            fractional_seconds_precision: None,
        }))
    })
}

/// The word at the parser's position, upper-cased, with its span, where it is a bare word.
fn word_at(parser: &Parser, n: usize) -> Option<Ident> {
    let t = parser.peek_nth_token_ref(n);
    match &t.token {
        Token::Word(w) if w.quote_style.is_none() => {
            Some(Ident::with_span(t.span, w.value.clone()))
        }
        _ => None,
    }
}

/// MySQL's function `INTERVAL(n, a, b, …)` (two arguments or more), which sqlparser reads as
/// the start of an `INTERVAL` value; `None` (nothing consumed) for anything else.
fn interval_function(parser: &mut Parser) -> Result<Option<Expr>, ParserError> {
    parser.maybe_parse(|p| {
        let name = word_at(p, 0).ok_or_else(|| ParserError::ParserError("no word".into()))?;
        p.next_token();
        p.expect_token(&Token::LParen)?;
        let args = p.parse_comma_separated(Parser::parse_expr)?;
        p.expect_token(&Token::RParen)?;
        if args.len() < 2 {
            return Err(ParserError::ParserError("an INTERVAL value".into()));
        }
        Ok(super::translate::call(name, args))
    })
}

/// `GET_FORMAT(DATE|TIME|DATETIME|TIMESTAMP, locale)`: the type word, a keyword sqlparser would
/// read as a typed literal, made the string of its name (`GET_FORMAT('DATE', locale)`).
fn get_format(parser: &mut Parser) -> Result<Option<Expr>, ParserError> {
    parser.maybe_parse(|p| {
        let name = word_at(p, 0).ok_or_else(|| ParserError::ParserError("no word".into()))?;
        p.next_token();
        p.expect_token(&Token::LParen)?;
        let kind = word_at(p, 0)
            .map(|w| w.value.to_ascii_uppercase())
            .filter(|w| ["DATE", "TIME", "DATETIME", "TIMESTAMP"].contains(&w.as_str()))
            .ok_or_else(|| ParserError::ParserError("GET_FORMAT's type".into()))?;
        p.next_token();
        p.expect_token(&Token::Comma)?;
        let locale = p.parse_expr()?;
        p.expect_token(&Token::RParen)?;
        let kind = Expr::Value(sqlparser::ast::Value::SingleQuotedString(kind).into());
        Ok(super::translate::call(name, vec![kind, locale]))
    })
}

/// `EXTRACT(YEAR_MONTH FROM x)` and MySQL's other composite units, which sqlparser does not
/// know (kept by name, as `INTERVAL`'s are: `dates` extracts them); `None` (nothing consumed)
/// for any other `EXTRACT`, sqlparser's.
fn composite_extract(parser: &mut Parser) -> Result<Option<Expr>, ParserError> {
    parser.maybe_parse(|p| {
        p.expect_keyword(Keyword::EXTRACT)?;
        p.expect_token(&Token::LParen)?;
        let unit = word_at(p, 0)
            .map(|w| w.value.to_ascii_uppercase())
            .filter(|u| u.contains('_') && super::translate::UNITS.contains(&u.as_str()))
            .ok_or_else(|| ParserError::ParserError("not a composite unit".into()))?;
        p.next_token();
        p.expect_keyword(Keyword::FROM)?;
        let expr = p.parse_expr()?;
        p.expect_token(&Token::RParen)?;
        Ok(Expr::Extract {
            field: DateTimeField::Custom(Ident::new(unit)),
            syntax: sqlparser::ast::ExtractSyntax::From,
            expr: Box::new(expr),
        })
    })
}

impl Dialect for MySql {
    fn dialect(&self) -> TypeId {
        TypeId::of::<MySqlDialect>()
    }

    fn get_next_precedence(&self, parser: &Parser) -> Option<Result<u8, ParserError>> {
        Some(Ok(match &parser.peek_token_ref().token {
            Token::Caret => CARET,
            Token::ShiftLeft | Token::ShiftRight => SHIFT,
            Token::StringConcat => self.prec_value(Precedence::Or),
            Token::Overlap => self.prec_value(Precedence::And),
            Token::Word(w) if w.keyword == Keyword::XOR => XOR,
            Token::Word(w) if w.keyword == Keyword::MOD => self.prec_value(Precedence::MulDivModOp),
            _ => return MySqlDialect {}.get_next_precedence(parser),
        }))
    }

    fn parse_prefix(&self, parser: &mut Parser) -> Option<Result<Expr, ParserError>> {
        let paren_next = parser.peek_nth_token_ref(1).token == Token::LParen;
        if matches!(&parser.peek_token_ref().token, Token::Word(w) if w.keyword == Keyword::INTERVAL)
        {
            if paren_next {
                match interval_function(parser) {
                    Ok(None) => {}
                    found => return found.transpose(),
                }
            }
            return composite_interval(parser).transpose();
        }
        if paren_next {
            let made = match &parser.peek_token_ref().token {
                Token::Word(w) if w.keyword == Keyword::EXTRACT => composite_extract(parser),
                Token::Word(w)
                    if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("GET_FORMAT") =>
                {
                    get_format(parser)
                }
                _ => Ok(None),
            };
            if let Some(e) = made.transpose() {
                return Some(e);
            }
        }
        if let Some(side) = trim_side(parser) {
            return Some(trim_spaces(parser, side));
        }
        // `BINARY x` binds as tightly as MySQL's unary operators (`BINARY 'a' = 'A'` compares
        // `BINARY 'a'` with `'A'`); sqlparser's reads the whole expression after it.
        if matches!(&parser.peek_token_ref().token, Token::Word(w) if w.keyword == Keyword::BINARY)
        {
            parser.next_token();
            return Some(parser.parse_subexpr(BANG_OPERAND).map(|e| Expr::Cast {
                kind: sqlparser::ast::CastKind::Cast,
                expr: Box::new(e),
                data_type: sqlparser::ast::DataType::Binary(None),
                format: None,
            }));
        }
        // `-x`, `+x` and `~x` bind tighter than `^`, as MySQL's unary operators do (`-7 ^ 5` is
        // `(-7) ^ 5`); sqlparser's read `^` into their operand.
        let unary = match &parser.peek_token_ref().token {
            Token::Minus => Some(UnaryOperator::Minus),
            Token::Plus => Some(UnaryOperator::Plus),
            Token::Tilde => Some(UnaryOperator::BitwiseNot),
            _ => None,
        };
        if let Some(op) = unary {
            parser.next_token();
            return Some(parser.parse_subexpr(CARET).map(|e| Expr::UnaryOp {
                op,
                expr: Box::new(e),
            }));
        }
        if parser.peek_token_ref().token != Token::ExclamationMark {
            return None;
        }
        parser.next_token();
        Some(parser.parse_subexpr(BANG_OPERAND).map(|e| Expr::UnaryOp {
            op: UnaryOperator::Not,
            expr: Box::new(e),
        }))
    }

    fn parse_infix(
        &self,
        parser: &mut Parser,
        expr: &Expr,
        precedence: u8,
    ) -> Option<Result<Expr, ParserError>> {
        if parser.parse_keyword(Keyword::MOD) {
            return Some(
                parser
                    .parse_subexpr(precedence)
                    .map(|right| Expr::BinaryOp {
                        left: Box::new(expr.clone()),
                        op: BinaryOperator::Modulo,
                        right: Box::new(right),
                    }),
            );
        }
        MySqlDialect {}.parse_infix(parser, expr, precedence)
    }

    fn supports_string_literal_table_alias(&self, explicit: bool) -> bool {
        MySqlDialect {}.supports_string_literal_table_alias(explicit)
    }

    fn is_identifier_start(&self, ch: char) -> bool {
        MySqlDialect {}.is_identifier_start(ch)
    }

    fn is_identifier_part(&self, ch: char) -> bool {
        MySqlDialect {}.is_identifier_part(ch)
    }

    fn is_delimited_identifier_start(&self, ch: char) -> bool {
        MySqlDialect {}.is_delimited_identifier_start(ch)
    }

    fn identifier_quote_style(&self, identifier: &str) -> Option<char> {
        MySqlDialect {}.identifier_quote_style(identifier)
    }

    fn ordered_bind_placeholder_style(&self) -> Option<BindPlaceholderStyle> {
        MySqlDialect {}.ordered_bind_placeholder_style()
    }

    fn supports_string_literal_backslash_escape(&self) -> bool {
        MySqlDialect {}.supports_string_literal_backslash_escape()
    }

    fn supports_string_literal_concatenation(&self) -> bool {
        MySqlDialect {}.supports_string_literal_concatenation()
    }

    fn ignores_wildcard_escapes(&self) -> bool {
        MySqlDialect {}.ignores_wildcard_escapes()
    }

    fn supports_numeric_prefix(&self) -> bool {
        MySqlDialect {}.supports_numeric_prefix()
    }

    fn supports_literal_prefix_in_qualified_name(&self) -> bool {
        MySqlDialect {}.supports_literal_prefix_in_qualified_name()
    }

    fn supports_bitwise_shift_operators(&self) -> bool {
        MySqlDialect {}.supports_bitwise_shift_operators()
    }

    fn supports_singular_value_keyword(&self) -> bool {
        MySqlDialect {}.supports_singular_value_keyword()
    }

    fn supports_multiline_comment_hints(&self) -> bool {
        MySqlDialect {}.supports_multiline_comment_hints()
    }

    fn parse_statement(&self, parser: &mut Parser) -> Option<Result<Statement, ParserError>> {
        MySqlDialect {}.parse_statement(parser)
    }

    fn require_interval_qualifier(&self) -> bool {
        MySqlDialect {}.require_interval_qualifier()
    }

    fn supports_limit_comma(&self) -> bool {
        MySqlDialect {}.supports_limit_comma()
    }

    fn supports_create_table_select(&self) -> bool {
        MySqlDialect {}.supports_create_table_select()
    }

    fn supports_insert_set(&self) -> bool {
        MySqlDialect {}.supports_insert_set()
    }

    fn supports_user_host_grantee(&self) -> bool {
        MySqlDialect {}.supports_user_host_grantee()
    }

    fn is_table_factor_alias(&self, explicit: bool, kw: &Keyword, parser: &mut Parser) -> bool {
        MySqlDialect {}.is_table_factor_alias(explicit, kw, parser)
    }

    fn supports_table_hints(&self) -> bool {
        MySqlDialect {}.supports_table_hints()
    }

    fn requires_single_line_comment_whitespace(&self) -> bool {
        MySqlDialect {}.requires_single_line_comment_whitespace()
    }

    fn supports_hash_comment(&self) -> bool {
        MySqlDialect {}.supports_hash_comment()
    }

    fn supports_match_against(&self) -> bool {
        MySqlDialect {}.supports_match_against()
    }

    fn supports_select_modifiers(&self) -> bool {
        MySqlDialect {}.supports_select_modifiers()
    }

    fn supports_set_names(&self) -> bool {
        MySqlDialect {}.supports_set_names()
    }

    fn supports_comma_separated_set_assignments(&self) -> bool {
        MySqlDialect {}.supports_comma_separated_set_assignments()
    }

    fn supports_alter_column_position(&self) -> bool {
        MySqlDialect {}.supports_alter_column_position()
    }

    fn supports_update_order_by(&self) -> bool {
        MySqlDialect {}.supports_update_order_by()
    }

    fn supports_data_type_signed_suffix(&self) -> bool {
        MySqlDialect {}.supports_data_type_signed_suffix()
    }

    fn supports_data_type_zerofill_suffix(&self) -> bool {
        MySqlDialect {}.supports_data_type_zerofill_suffix()
    }

    fn supports_cross_join_constraint(&self) -> bool {
        MySqlDialect {}.supports_cross_join_constraint()
    }

    fn supports_double_ampersand_operator(&self) -> bool {
        MySqlDialect {}.supports_double_ampersand_operator()
    }

    fn supports_binary_kw_as_cast(&self) -> bool {
        MySqlDialect {}.supports_binary_kw_as_cast()
    }

    fn supports_table_partitions(&self) -> bool {
        MySqlDialect {}.supports_table_partitions()
    }

    fn supports_comment_optimizer_hint(&self) -> bool {
        MySqlDialect {}.supports_comment_optimizer_hint()
    }

    fn supports_constraint_keyword_without_name(&self) -> bool {
        MySqlDialect {}.supports_constraint_keyword_without_name()
    }

    fn supports_key_column_option(&self) -> bool {
        MySqlDialect {}.supports_key_column_option()
    }

    fn supports_group_by_with_modifier(&self) -> bool {
        MySqlDialect {}.supports_group_by_with_modifier()
    }

    fn supports_left_associative_joins_without_parens(&self) -> bool {
        MySqlDialect {}.supports_left_associative_joins_without_parens()
    }
}

/// `TRIM(LEADING FROM s)` (and `TRAILING`, `BOTH`), which sqlparser reads only with the
/// characters to trim: the side, where the next tokens are that form.
fn trim_side(parser: &Parser) -> Option<TrimWhereField> {
    let [trim, open, side, from] = parser.peek_tokens::<4>();
    let keyword = |t: &Token, k: Keyword| matches!(t, Token::Word(w) if w.keyword == k);
    if !keyword(&trim, Keyword::TRIM) || open != Token::LParen || !keyword(&from, Keyword::FROM) {
        return None;
    }
    [
        (Keyword::LEADING, TrimWhereField::Leading),
        (Keyword::TRAILING, TrimWhereField::Trailing),
        (Keyword::BOTH, TrimWhereField::Both),
    ]
    .into_iter()
    .find(|(k, _)| keyword(&side, *k))
    .map(|(_, field)| field)
}

/// The `TRIM(side FROM s)` [`trim_side`] found: spaces trimmed from that side.
fn trim_spaces(parser: &mut Parser, side: TrimWhereField) -> Result<Expr, ParserError> {
    for _ in 0..4 {
        parser.next_token();
    }
    let expr = parser.parse_expr()?;
    parser.expect_token(&Token::RParen)?;
    Ok(Expr::Trim {
        expr: Box::new(expr),
        trim_where: Some(side),
        trim_what: None,
        trim_characters: None,
    })
}

/// The directions a query's `GROUP BY` items were written with (MariaDB's `GROUP BY x DESC`),
/// by where their SELECT's keyword starts: `Some(true)` for `DESC`, `Some(false)` for `ASC`,
/// `None` for an item written without one.
pub type GroupDirections = Vec<(sqlparser::tokenizer::Location, Vec<Option<bool>>)>;

/// The tokens of a statement with what MySQL reads and sqlparser does not taken out, and what
/// they said: ODBC's outer join escape `{oj t1 LEFT OUTER JOIN t2 ON …}` is the join it holds
/// (Excel's and MS Query's), `LOCK IN SHARE MODE` locks nothing (pinbad's tables take no
/// writes), and a `GROUP BY` item's `ASC`/`DESC` (MariaDB's, which sorts the groups so where
/// no ORDER BY does) is returned by the SELECT it belongs to. Every other token keeps its place
/// and span.
pub fn mysql_clauses(
    tokens: Vec<sqlparser::tokenizer::TokenWithSpan>,
) -> (Vec<sqlparser::tokenizer::TokenWithSpan>, GroupDirections) {
    use sqlparser::tokenizer::TokenWithSpan;
    let is = |t: &TokenWithSpan, k: Keyword| matches!(&t.token, Token::Word(w) if w.keyword == k && w.quote_style.is_none());
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    let mut directions: GroupDirections = Vec::new();
    // The SELECT keyword's place at each parenthesis depth, and the open `{oj` braces' depths.
    let mut selects: Vec<Option<sqlparser::tokenizer::Location>> = vec![None];
    let mut odbc: Vec<usize> = Vec::new();
    let mut braces = 0usize;
    // In a GROUP BY at this depth: its SELECT's entry in `directions`.
    let mut grouping: Option<(usize, usize)> = None;
    let significant = |ts: &[TokenWithSpan], from: usize| {
        ts[from..]
            .iter()
            .position(|t| !matches!(t.token, Token::Whitespace(_)))
            .map(|p| from + p)
    };
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i];
        let depth = selects.len() - 1;
        match &t.token {
            Token::LParen => selects.push(None),
            Token::RParen => {
                if selects.len() > 1 {
                    selects.pop();
                }
                if grouping.is_some_and(|(d, _)| d > selects.len() - 1) {
                    grouping = None;
                }
            }
            Token::LBrace => {
                let next = significant(&tokens, i + 1);
                if next.is_some_and(|n| matches!(&tokens[n].token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("oj")))
                {
                    odbc.push(braces);
                    braces += 1;
                    i = next.unwrap_or(i) + 1;
                    continue;
                }
                braces += 1;
            }
            Token::RBrace => {
                braces = braces.saturating_sub(1);
                if odbc.last() == Some(&braces) {
                    odbc.pop();
                    i += 1;
                    continue;
                }
            }
            Token::SemiColon => grouping = None,
            // `0b101`, MySQL's other form of `b'101'`, which the tokenizer reads as a word (an
            // identifier may start with digits).
            Token::Word(w)
                if w.quote_style.is_none()
                    && w.value.strip_prefix("0b").is_some_and(|bits| {
                        !bits.is_empty() && bits.bytes().all(|b| b == b'0' || b == b'1')
                    }) =>
            {
                out.push(TokenWithSpan {
                    token: Token::SingleQuotedByteStringLiteral(w.value[2..].to_string()),
                    span: t.span,
                });
                i += 1;
                continue;
            }
            // `value` (timertag's column) is a name wherever MySQL's SELECT has it; sqlparser
            // reads the keyword after any word of a function's arguments as JSON's named
            // argument (`SUM(CASE value WHEN 'GET' …)` did not parse).
            Token::Word(w) if w.quote_style.is_none() && w.keyword == Keyword::VALUE => {
                out.push(TokenWithSpan {
                    token: Token::Word(sqlparser::tokenizer::Word {
                        keyword: Keyword::NoKeyword,
                        ..w.clone()
                    }),
                    span: t.span,
                });
                i += 1;
                continue;
            }
            Token::Word(w) if w.quote_style.is_none() => {
                if w.keyword == Keyword::SELECT {
                    selects[depth] = Some(t.span.start);
                    if grouping.is_some_and(|(d, _)| d == depth) {
                        grouping = None;
                    }
                } else if w.keyword == Keyword::GROUP {
                    let by = significant(&tokens, i + 1);
                    if let (Some(by), Some(at)) = (by, selects[depth]) {
                        if is(&tokens[by], Keyword::BY) {
                            directions.push((at, vec![None]));
                            grouping = Some((depth, directions.len() - 1));
                            out.extend(tokens[i..=by].iter().cloned());
                            i = by + 1;
                            continue;
                        }
                    }
                } else if w.keyword == Keyword::LOCK {
                    let words: Vec<usize> =
                        std::iter::successors(Some(i), |&p| significant(&tokens, p + 1))
                            .skip(1)
                            .take(3)
                            .collect();
                    if let [a, b, c] = words[..] {
                        if is(&tokens[a], Keyword::IN)
                            && is(&tokens[b], Keyword::SHARE)
                            && is(&tokens[c], Keyword::MODE)
                        {
                            i = c + 1;
                            continue;
                        }
                    }
                } else if let Some((_, entry)) = grouping.filter(|(d, _)| *d == depth) {
                    // One direction an item: a second (`GROUP BY a DESC DESC`) is left in
                    // place, MariaDB's syntax error (1064) as the parser's.
                    let last = directions[entry].1.last_mut();
                    if matches!(w.keyword, Keyword::ASC | Keyword::DESC)
                        && last.as_ref().is_some_and(|l| l.is_none())
                    {
                        if let Some(last) = last {
                            *last = Some(w.keyword == Keyword::DESC);
                        }
                        i += 1;
                        continue;
                    }
                    if matches!(
                        w.keyword,
                        Keyword::WITH
                            | Keyword::HAVING
                            | Keyword::ORDER
                            | Keyword::LIMIT
                            | Keyword::WINDOW
                            | Keyword::UNION
                            | Keyword::EXCEPT
                            | Keyword::INTERSECT
                            | Keyword::FOR
                            | Keyword::INTO
                            | Keyword::PROCEDURE
                    ) {
                        grouping = None;
                    }
                }
            }
            Token::Comma => {
                if let Some((_, entry)) = grouping.filter(|(d, _)| *d == depth) {
                    directions[entry].1.push(None);
                }
            }
            _ => {}
        }
        out.push(t.clone());
        i += 1;
    }
    directions.retain(|(_, d)| d.iter().any(Option::is_some));
    (out, directions)
}

/// The version MySQL's executable comments are gated by: pinbad says it is 8.0.30.
pub const COMMENT_VERSION: u32 = 80030;

/// `sql` with MySQL's executable comments read as MySQL reads them: `/*!body*/` and
/// `/*!NNNNN body*/` are `body` to a server of version NNNNN or later ([`COMMENT_VERSION`]) and
/// nothing to an older one; `/*M!…*/` is MariaDB's, a comment to MySQL. String literals, quoted
/// names and other comments are left as they are. Borrowed when there is none.
pub fn executable_comments(sql: &str) -> std::borrow::Cow<'_, str> {
    if !sql.contains("/*!") {
        return std::borrow::Cow::Borrowed(sql);
    }
    let b = sql.as_bytes();
    let mut out = String::with_capacity(sql.len());
    let mut i = 0;
    let mut copied = 0;
    while i < b.len() {
        match b[i] {
            q @ (b'\'' | b'"' | b'`') => {
                i += 1;
                while i < b.len() && b[i] != q {
                    i += if b[i] == b'\\' && q != b'`' { 2 } else { 1 };
                }
                i += 1;
            }
            b'#' => i += sql[i..].find('\n').unwrap_or(sql.len() - i),
            b'-' if sql[i..].starts_with("-- ") => {
                i += sql[i..].find('\n').unwrap_or(sql.len() - i)
            }
            b'/' if sql[i..].starts_with("/*!") => {
                let body_end = sql[i + 3..].find("*/").map(|e| i + 3 + e);
                let Some(end) = body_end else { break };
                let digits = b[i + 3..end]
                    .iter()
                    .take_while(|c| c.is_ascii_digit())
                    .count();
                let digits = if digits >= 5 { digits.min(6) } else { 0 };
                let version: u32 = sql[i + 3..i + 3 + digits].parse().unwrap_or(0);
                out.push_str(&sql[copied..i]);
                out.push(' ');
                if version <= COMMENT_VERSION {
                    out.push_str(&sql[i + 3 + digits..end]);
                    out.push(' ');
                }
                i = end + 2;
                copied = i;
            }
            b'/' if sql[i..].starts_with("/*") => {
                i += sql[i + 2..].find("*/").map_or(sql.len() - i, |e| e + 4)
            }
            _ => i += 1,
        }
    }
    out.push_str(&sql[copied.min(sql.len())..]);
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ANSI_QUOTES` and `NO_BACKSLASH_ESCAPES` read as the default mode reads their
    /// equivalents; strings, backquoted names and comments are left as they are.
    #[test]
    fn sql_modes_are_read_as_the_default_mode() {
        let read = |sql: &str, ansi, nbe| in_default_mode(sql, ansi, nbe).into_owned();
        assert_eq!(
            read(
                r#"SELECT "a""b", 'x"y', `c"d` FROM "t" -- "e""#,
                true,
                false
            ),
            r#"SELECT `a"b`, 'x"y', `c"d` FROM `t` -- "e""#
        );
        assert_eq!(read(r#"SELECT "a`b""#, true, false), "SELECT `a``b`");
        assert_eq!(
            read(r#"SELECT 'it\'s', "q""#, true, false),
            r#"SELECT 'it\'s', `q`"#
        );
        assert_eq!(
            read(r#"SELECT 'a\', "b\c", 'd''e' /* 'f\ */"#, false, true),
            r#"SELECT 'a\\', "b\\c", 'd''e' /* 'f\ */"#
        );
        assert_eq!(
            read(r#"/*!40101 SELECT "x" */"#, true, false),
            "/*!40101 SELECT `x` */"
        );
        let plain = r#"SELECT "a", 'b\'"#;
        assert!(matches!(
            in_default_mode(plain, false, false),
            Cow::Borrowed(_)
        ));
    }

    /// An executable comment is read by its version gate; others, and what looks like one
    /// in a literal, stay.
    #[test]
    fn executable_comments_are_read_by_their_version() {
        assert_eq!(
            executable_comments("/*!40101 SET NAMES utf8mb4 */"),
            "  SET NAMES utf8mb4  "
        );
        assert_eq!(
            executable_comments("SELECT 1 /*!80031 + 1 */"),
            "SELECT 1  "
        );
        assert_eq!(executable_comments("SELECT 1 /*! + 2*/"), "SELECT 1   + 2 ");
        assert_eq!(
            executable_comments("SELECT /*M!100500 3, */ 1"),
            "SELECT /*M!100500 3, */ 1"
        );
        assert_eq!(
            executable_comments("SELECT '/*!1 x */', `/*!2`, 1 /* /*!3 */"),
            "SELECT '/*!1 x */', `/*!2`, 1 /* /*!3 */"
        );
        assert_eq!(
            executable_comments("SELECT 1 /*!40000 open"),
            "SELECT 1 /*!40000 open"
        );
    }

    fn parse(dialect: &dyn Dialect, sql: &str) -> Option<String> {
        Parser::parse_sql(dialect, sql)
            .ok()
            .map(|s| s.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn parses_the_corpus_as_mysql_dialect_does_but_for_the_operators_it_fixes() {
        let corpus = include_str!("../../tests/mariadb/corpus.sql");
        let mut compared = 0;
        for line in corpus.lines() {
            let sql = line.trim_start_matches(['!', '~']);
            if sql.is_empty() || sql.starts_with("--") {
                continue;
            }
            let fixed = ["^", "<<", ">>", "||", "XOR", "xor", "MOD ", "!", "BINARY "];
            // The composite interval units (`'1:30' HOUR_MINUTE`) are read here alone.
            let composite = super::super::translate::UNITS.iter().any(|u| {
                u.contains('_')
                    && (sql.contains(&format!("' {u}")) || sql.contains(&format!("({u} FROM")))
            });
            // So are `GET_FORMAT(DATE, …)` and the function `INTERVAL(n, …)`.
            let calls = sql.contains("GET_FORMAT(") || sql.contains("INTERVAL(");
            if composite || calls || fixed.iter().any(|op| sql.contains(op)) {
                continue;
            }
            assert_eq!(parse(&MySql, sql), parse(&MySqlDialect {}, sql), "{sql}");
            compared += 1;
        }
        assert!(compared > 400, "{compared}");
    }

    /// The first select item, every operation in parentheses.
    fn grouped(sql: &str) -> String {
        fn g(e: &Expr) -> String {
            match e {
                Expr::BinaryOp { left, op, right } => format!("({} {op} {})", g(left), g(right)),
                Expr::UnaryOp { op, expr } => format!("({op} {})", g(expr)),
                Expr::Nested(e) => g(e),
                e => e.to_string(),
            }
        }
        let Statement::Query(q) = &Parser::parse_sql(&MySql, sql).unwrap()[0] else {
            panic!("{sql}")
        };
        let sqlparser::ast::SetExpr::Select(s) = q.body.as_ref() else {
            panic!("{sql}")
        };
        match &s.projection[0] {
            sqlparser::ast::SelectItem::UnnamedExpr(e) => g(e),
            other => panic!("{other}"),
        }
    }

    #[test]
    fn mysqls_precedences() {
        let cases = [
            ("SELECT 3 ^ 5 + 1", "((3 ^ 5) + 1)"),
            ("SELECT 2 * 3 ^ 2", "(2 * (3 ^ 2))"),
            ("SELECT 1 << 2 & 3", "((1 << 2) & 3)"),
            ("SELECT 1 + 1 << 2", "((1 + 1) << 2)"),
            ("SELECT 1 | 2 & 3", "(1 | (2 & 3))"),
            ("SELECT a = 1 XOR b > 2", "((a = 1) XOR (b > 2))"),
            ("SELECT a AND b XOR c OR d", "(((a AND b) XOR c) OR d)"),
            ("SELECT a >= 400 || b > 10", "((a >= 400) || (b > 10))"),
            ("SELECT 10 MOD 4 + 1", "((10 % 4) + 1)"),
            ("SELECT 1 + 10 MOD 4", "(1 + (10 % 4))"),
            ("SELECT !0 + 1", "((NOT 0) + 1)"),
            ("SELECT a && b || c", "((a AND b) || c)"),
            ("SELECT BINARY a = b", "(CAST(a AS BINARY) = b)"),
            ("SELECT BINARY a < b || c", "((CAST(a AS BINARY) < b) || c)"),
            (
                "SELECT d + INTERVAL '1:30' HOUR_MINUTE",
                "(d + INTERVAL '1:30' HOUR_MINUTE)",
            ),
            ("SELECT d - INTERVAL 2 + 1 DAY", "(d - INTERVAL 2 + 1 DAY)"),
        ];
        for (sql, expected) in cases {
            assert_eq!(grouped(sql), expected, "{sql}");
        }
    }

    /// `TRIM(side FROM s)`: spaces trimmed from that side; the other forms stay sqlparser's.
    #[test]
    fn trim_with_a_side_and_no_characters() {
        for (sql, expected) in [
            ("SELECT TRIM(LEADING FROM a)", Some("TRIM(LEADING a)")),
            (
                "SELECT trim(trailing from f(a, b))",
                Some("TRIM(TRAILING f(a, b))"),
            ),
            (
                "SELECT TRIM(BOTH FROM 'x') = 'y'",
                Some("TRIM(BOTH 'x') = 'y'"),
            ),
            (
                "SELECT TRIM(LEADING 'x' FROM a)",
                Some("TRIM(LEADING 'x' FROM a)"),
            ),
            ("SELECT TRIM(a)", Some("TRIM(a)")),
            ("SELECT TRIM(LEADING FROM a", None),
        ] {
            let parsed = parse(&MySql, sql);
            assert_eq!(
                parsed.as_deref(),
                expected.map(|e| format!("SELECT {e}")).as_deref(),
                "{sql}"
            );
        }
        let Some(Statement::Query(q)) = Parser::parse_sql(&MySql, "SELECT TRIM(LEADING FROM a)")
            .ok()
            .and_then(|mut s| s.pop())
        else {
            panic!("not parsed")
        };
        let sqlparser::ast::SetExpr::Select(s) = q.body.as_ref() else {
            panic!("{q}")
        };
        assert!(matches!(
            &s.projection[0],
            sqlparser::ast::SelectItem::UnnamedExpr(Expr::Trim {
                trim_where: Some(TrimWhereField::Leading),
                trim_what: None,
                ..
            })
        ));
    }
}
