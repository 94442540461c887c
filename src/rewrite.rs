//! `[[rewrite]]` rules: names folded as requests are merged, before any of them is interned, so
//! that `/user/12345` is `/user/:id` in every report, the raw pool, the stream and the sinks, and
//! the dictionary never holds the original.
//!
//! In: the strings of one decoded request (spans of a `record::Batch`): `hostname`,
//! `server_name`, `script_name`, and the values of the request tags and timer tags the rules
//! name. Out: for each, the string as it is, other bytes instead ([`Names`]), or the request
//! dropped (`None`). Runs on the merger thread ("pinbad-merger") in its interning phase
//! (`merger::Interned::intern`), so the receivers stay lean; takes no lock. Each rule's hits are
//! counted ([`Rules::hits`]; the status's `rewrite` and `rewrite_dropped`).
//!
//! Cost: the rules of one field form a chain, applied in order, each to what the one before made
//! of the string. What a chain makes of a string is cached ([`Rewriter`]: bounded, emptied when
//! full), so a name seen before costs one hash lookup, and a timer tag name or value that a
//! request's timers repeat is looked up once a request; a string not seen before is matched
//! against all the chain's rules in one pass (a `RegexSet`) first, so one that no rule matches
//! costs one scan and the rules it does not match are skipped. Pure: no clock, no I/O.

use std::borrow::Cow;
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

use hashbrown::HashTable;
use regex::bytes::{Regex, RegexBuilder, RegexSet, RegexSetBuilder};
use rustc_hash::FxBuildHasher;
use serde::{Deserialize, Serialize};

use crate::dictionary::{same_bytes, Intern, LOST};
use crate::record::{Batch, WireRequest};

/// Most `[[rewrite]]` rules (a cached outcome records the rules that hit as the bits of a u64).
pub const MAX_RULES: usize = 64;

/// Distinct strings a chain's cache holds before it is emptied (a chain over names that never
/// repeat, such as ids, must not grow it without bound).
const CACHE_ENTRIES: usize = 16_384;
/// Bytes of strings (keys and rewritten values) a chain's cache holds before it is emptied.
const CACHE_BYTES: usize = 4 << 20;

/// One `[[rewrite]]` table of the config, as written.
///
/// ```toml
/// [[rewrite]]
/// field = "script_name"        # hostname, server_name, script_name, tag:NAME, timer_tag:NAME
/// regex = '^/user/\d+'
/// replacement = "/user/:id"    # every match replaced; $1, ${name} name the regex's groups
///
/// [[rewrite]]
/// field = "script_name"
/// regex = '^/healthz$'
/// drop = true                  # a request whose field matches is not merged at all
/// ```
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct RuleDef {
    /// The rule's name in the status and on `/metrics` (default `rewrite[i]`, its place).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// What it rewrites: `hostname`, `server_name`, `script_name`, `tag:NAME` (the value of the
    /// request tag NAME) or `timer_tag:NAME` (the value of the timer tag NAME).
    pub field: String,
    /// A regular expression (the `regex` crate's syntax) searched in the field's bytes.
    pub regex: String,
    /// What each match becomes (`$1`, `${name}`: the regex's groups).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replacement: Option<String>,
    /// Instead of a replacement: drop the request when the field matches.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub drop: bool,
}

/// A rule that cannot be used: the key of its table at fault and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleError {
    /// The rule's place in the `[[rewrite]]` list.
    pub index: usize,
    /// `field`, `regex`, `replacement`, `drop` or `name`.
    pub key: &'static str,
    pub message: String,
}

/// What a rule is applied to.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Target {
    Hostname,
    ServerName,
    ScriptName,
    /// The value of the request tag of this name.
    Tag(Box<[u8]>),
    /// The value of the timer tag of this name.
    TimerTag(Box<[u8]>),
}

impl Target {
    fn parse(field: &str) -> Option<Target> {
        let name = |n: &str| (!n.is_empty()).then(|| n.as_bytes().into());
        Some(match field {
            "hostname" => Target::Hostname,
            "server_name" => Target::ServerName,
            "script_name" => Target::ScriptName,
            _ => {
                if let Some(n) = field.strip_prefix("tag:") {
                    Target::Tag(name(n)?)
                } else if let Some(n) = field.strip_prefix("timer_tag:") {
                    Target::TimerTag(name(n)?)
                } else {
                    return None;
                }
            }
        })
    }
}

#[derive(Debug)]
enum Action {
    Replace(Box<[u8]>),
    Drop,
}

#[derive(Debug)]
struct Rule {
    name: String,
    field: String,
    regex: Regex,
    target: Target,
    action: Action,
}

/// The compiled rules and their hit counters, shared by the merger (which applies them through
/// a [`Rewriter`]) and the status (which reads the counters).
#[derive(Debug, Default)]
pub struct Rules {
    rules: Vec<Rule>,
    /// Per rule: requests in which it matched.
    hits: Vec<AtomicU64>,
    /// Requests a `drop = true` rule dropped.
    dropped: AtomicU64,
    /// Longest string a rewrite may make (`limits.max_string_bytes`); longer is cut at a
    /// character boundary, as the decoder cuts what it receives.
    max_bytes: usize,
}

impl Rules {
    /// Compiles `defs`: each regex within `max_regex_bytes` compiled (`limits.max_regex_bytes`),
    /// rewritten strings cut at `max_string_bytes`. The error names the rule and its key.
    pub fn compile(
        defs: &[RuleDef],
        max_regex_bytes: usize,
        max_string_bytes: usize,
    ) -> Result<Rules, RuleError> {
        if defs.len() > MAX_RULES {
            return Err(RuleError {
                index: MAX_RULES,
                key: "field",
                message: format!("at most {MAX_RULES} [[rewrite]] rules, got {}", defs.len()),
            });
        }
        let mut rules: Vec<Rule> = Vec::with_capacity(defs.len());
        for (index, d) in defs.iter().enumerate() {
            let fail = |key, message: String| RuleError {
                index,
                key,
                message,
            };
            let target = Target::parse(&d.field).ok_or_else(|| {
                fail(
                    "field",
                    format!(
                        "`{}`: expected hostname, server_name, script_name, tag:NAME or \
                         timer_tag:NAME",
                        d.field
                    ),
                )
            })?;
            let regex = RegexBuilder::new(&d.regex)
                .size_limit(max_regex_bytes)
                .build()
                .map_err(|e| fail("regex", format!("`{}` does not compile: {e}", d.regex)))?;
            let action = match (&d.replacement, d.drop) {
                (Some(_), true) => {
                    return Err(fail(
                        "drop",
                        "give a replacement or drop = true, not both".into(),
                    ))
                }
                (Some(r), false) => Action::Replace(r.as_bytes().into()),
                (None, true) => Action::Drop,
                (None, false) => {
                    return Err(fail(
                        "replacement",
                        "missing: give a replacement (or drop = true)".into(),
                    ))
                }
            };
            let name = d
                .name
                .clone()
                .unwrap_or_else(|| format!("rewrite[{index}]"));
            if name.is_empty() || rules.iter().any(|r| r.name == name) {
                return Err(fail(
                    "name",
                    format!("`{name}`: each rule needs a name of its own"),
                ));
            }
            rules.push(Rule {
                name,
                field: d.field.clone(),
                regex,
                target,
                action,
            });
        }
        Ok(Rules {
            hits: rules.iter().map(|_| AtomicU64::new(0)).collect(),
            rules,
            dropped: AtomicU64::new(0),
            max_bytes: max_string_bytes,
        })
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Each rule's name, field, regex and hits (requests in which it matched), in order.
    pub fn hits(&self) -> impl Iterator<Item = (&str, &str, &str, u64)> + '_ {
        self.rules
            .iter()
            .zip(&self.hits)
            .map(|(r, h)| (&*r.name, &*r.field, r.regex.as_str(), h.load(Relaxed)))
    }

    /// Requests dropped by a `drop = true` rule.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Relaxed)
    }
}

/// What a chain makes of a string.
#[derive(Debug)]
enum Outcome {
    Keep,
    Replace(Box<[u8]>),
    Drop,
}

/// A string a chain has seen, what it makes of it, the rules that hit (bit `i`: rule `i`), and
/// the dictionary id of the result as of dictionary epoch `epoch` (see
/// [`Rewriter::dictionary_swept`]).
#[derive(Debug)]
struct Cached {
    key: Box<[u8]>,
    outcome: Outcome,
    hits: u64,
    id: u32,
    epoch: u32,
}

impl Cached {
    /// The string to intern (`None`: the request is dropped).
    fn result(&self) -> Option<&[u8]> {
        match &self.outcome {
            Outcome::Keep => Some(&self.key),
            Outcome::Replace(r) => Some(r),
            Outcome::Drop => None,
        }
    }
}

/// The rules of one field, in order, with their cache.
#[derive(Debug)]
struct Chain {
    rules: Vec<usize>,
    /// All of them at once, to find the rules that match a string in one scan (chains of two
    /// or more).
    set: Option<RegexSet>,
    /// Strings seen, hashed by their bytes.
    cache: HashTable<Cached>,
    cache_bytes: usize,
}

/// No rule applies to this string: it is interned as received.
const PLAIN: u32 = u32::MAX;
/// In [`Rewriter::name_chain`]: the timer tag name at this index has not been looked up yet.
const UNSEEN: u16 = u16::MAX;
/// In [`Rewriter::name_chain`]: no rule names this timer tag.
const NO_CHAIN: u16 = u16::MAX - 1;

/// The request at hand is dropped by a `drop = true` rule.
struct Dropped;

/// The rules as the merger applies them: the chains per field and their caches, the hits
/// counted since the last [`Rewriter::flush`], and the ids of the request at hand's strings.
///
/// A cached string keeps the dictionary id of what the chain makes of it, so a string seen
/// before costs what interning it would (one hash lookup, the entry stamped as used): ids are
/// trusted only within one dictionary epoch, which the merger ends whenever a sweep frees
/// strings (an id may then be reused).
#[derive(Debug)]
pub struct Rewriter {
    rules: Arc<Rules>,
    chains: Vec<Chain>,
    hostname: Option<usize>,
    server_name: Option<usize>,
    script_name: Option<usize>,
    /// (tag name, chain) for request tags and timer tags.
    tags: Vec<(Box<[u8]>, usize)>,
    timer_tags: Vec<(Box<[u8]>, usize)>,
    /// Per rule: requests it hit since the last flush.
    hits: Vec<u64>,
    dropped: u64,
    /// The rules that hit the request at hand (bit `i`: rule `i`): a rule counts once a request.
    request_hits: u64,
    /// Dictionary epoch: cached ids of another epoch are interned again.
    epoch: u32,
    /// Per request tag, per timer tag (across its timers in order): the value's id, or
    /// [`PLAIN`] when no rule names the tag.
    tag_values: Vec<u32>,
    timer_tag_values: Vec<u32>,
    /// Per entry of the request's own dictionary: the chain of the timer tag name there (or
    /// [`UNSEEN`], [`NO_CHAIN`]), and what that chain made of the value there (chain, id), so
    /// that a name or value its timers repeat is looked up once a request.
    name_chain: Vec<u16>,
    value_memo: Vec<(u16, u32)>,
}

impl Rewriter {
    /// A rewriter of `rules`; `None` when there are none (interning then skips it altogether).
    pub fn new(rules: Arc<Rules>) -> Option<Rewriter> {
        if rules.is_empty() {
            return None;
        }
        let mut chains: Vec<(Target, Vec<usize>)> = Vec::new();
        for (i, r) in rules.rules.iter().enumerate() {
            match chains.iter_mut().find(|(t, _)| *t == r.target) {
                Some((_, list)) => list.push(i),
                None => chains.push((r.target.clone(), vec![i])),
            }
        }
        let find = |want: &Target| chains.iter().position(|(t, _)| t == want);
        let (hostname, server_name, script_name) = (
            find(&Target::Hostname),
            find(&Target::ServerName),
            find(&Target::ScriptName),
        );
        let named = |tag: fn(&Target) -> Option<&[u8]>| -> Vec<(Box<[u8]>, usize)> {
            chains
                .iter()
                .enumerate()
                .filter_map(|(c, (t, _))| Some((tag(t)?.into(), c)))
                .collect()
        };
        let tags = named(|t| match t {
            Target::Tag(n) => Some(n),
            _ => None,
        });
        let timer_tags = named(|t| match t {
            Target::TimerTag(n) => Some(n),
            _ => None,
        });
        let chains = chains
            .into_iter()
            .map(|(_, list)| Chain {
                // Each pattern compiled alone already; together they fit likewise (a set that
                // did not is done without: each rule is then tried in turn).
                set: (list.len() > 1)
                    .then(|| {
                        RegexSetBuilder::new(list.iter().map(|&i| rules.rules[i].regex.as_str()))
                            .build()
                            .ok()
                    })
                    .flatten(),
                rules: list,
                cache: HashTable::new(),
                cache_bytes: 0,
            })
            .collect();
        Some(Rewriter {
            hits: vec![0; rules.rules.len()],
            rules,
            chains,
            hostname,
            server_name,
            script_name,
            tags,
            timer_tags,
            dropped: 0,
            request_hits: 0,
            epoch: 0,
            tag_values: Vec::new(),
            timer_tag_values: Vec::new(),
            name_chain: Vec::new(),
            value_memo: Vec::new(),
        })
    }

    /// The dictionary freed strings (their ids may be given to others): the cached ids are
    /// interned again when next used.
    pub fn dictionary_swept(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
    }

    /// `req`'s names after the rules, interned in `dict`: [`Names`], or `None` when a rule
    /// drops the request.
    pub fn request<'a, D: Intern>(
        &'a mut self,
        batch: &Batch,
        req: &WireRequest,
        dict: &mut D,
    ) -> Option<Names<'a>> {
        self.tag_values.clear();
        self.timer_tag_values.clear();
        let outcome = self.rewrite(batch, req, dict);
        self.count_request();
        match outcome {
            Ok([hostname, server_name, script_name]) => Some(Names {
                hostname,
                server_name,
                script_name,
                tag_values: &self.tag_values,
                timer_tag_values: &self.timer_tag_values,
            }),
            Err(Dropped) => {
                self.dropped += 1;
                None
            }
        }
    }

    fn rewrite<D: Intern>(
        &mut self,
        batch: &Batch,
        req: &WireRequest,
        dict: &mut D,
    ) -> Result<[u32; 3], Dropped> {
        let mut names = [0; 3];
        // The script name first: where a `drop = true` rule most likely is, so that a dropped
        // request has the fewest strings interned (nothing refers to them; the sweep frees them).
        for (id, (chain, span)) in names.iter_mut().rev().zip([
            (self.script_name, req.script_name),
            (self.server_name, req.server_name),
            (self.hostname, req.hostname),
        ]) {
            *id = match chain {
                Some(c) => self.apply(c, batch.bytes_of(span), dict)?,
                None => dict.intern(batch.bytes_of(span)),
            };
        }
        if !self.tags.is_empty() {
            for t in batch.tags_of(req) {
                let v = match find_chain(&self.tags, batch.dictionary_entry(req, t.name)) {
                    Some(c) => self.apply(c, batch.dictionary_entry(req, t.value), dict)?,
                    None => PLAIN,
                };
                self.tag_values.push(v);
            }
        }
        if !self.timer_tags.is_empty() {
            let entries = req.dictionary.len as usize;
            self.name_chain.clear();
            self.name_chain.resize(entries, UNSEEN);
            self.value_memo.clear();
            self.value_memo.resize(entries, (UNSEEN, PLAIN));
            for timer in batch.timers_of(req) {
                for t in batch.timer_tags_of(timer) {
                    let (name, value) = (t.name as usize, t.value as usize);
                    let chain = match self.name_chain.get(name) {
                        Some(&UNSEEN) => {
                            let entry = batch.dictionary_entry(req, t.name);
                            let c =
                                find_chain(&self.timer_tags, entry).map_or(NO_CHAIN, |c| c as u16);
                            self.name_chain[name] = c;
                            c
                        }
                        Some(&c) => c,
                        None => NO_CHAIN,
                    };
                    let v = match self.value_memo.get(value) {
                        _ if chain == NO_CHAIN => PLAIN,
                        Some(&(c, v)) if c == chain => v,
                        _ => {
                            let entry = batch.dictionary_entry(req, t.value);
                            let v = self.apply(chain as usize, entry, dict)?;
                            if let Some(m) = self.value_memo.get_mut(value) {
                                *m = (chain, v);
                            }
                            v
                        }
                    };
                    self.timer_tag_values.push(v);
                }
            }
        }
        Ok(names)
    }

    /// Counts one hit for each rule that hit the request at hand.
    fn count_request(&mut self) {
        let mut hits = std::mem::take(&mut self.request_hits);
        while hits != 0 {
            self.hits[hits.trailing_zeros() as usize] += 1;
            hits &= hits - 1;
        }
    }

    /// Adds the hits counted since the last call to the shared counters (once a round).
    pub fn flush(&mut self) {
        for (h, shared) in self.hits.iter_mut().zip(&self.rules.hits) {
            if *h > 0 {
                shared.fetch_add(std::mem::take(h), Relaxed);
            }
        }
        if self.dropped > 0 {
            self.rules
                .dropped
                .fetch_add(std::mem::take(&mut self.dropped), Relaxed);
        }
    }

    /// Chain `c` applied to `s` (from its cache when it has seen `s`): the id of the result in
    /// `dict`; the rules that hit are noted for the request.
    fn apply<D: Intern>(&mut self, c: usize, s: &[u8], dict: &mut D) -> Result<u32, Dropped> {
        let (epoch, chain) = (self.epoch, &mut self.chains[c]);
        let hash = FxBuildHasher.hash_one(s);
        let cached = match chain.cache.find_mut(hash, |e| same_bytes(&e.key, s)) {
            Some(cached) => cached,
            None => {
                let cached = run_chain(&self.rules, chain, s);
                let bytes = cached.key.len() + cached.result().map_or(0, <[u8]>::len);
                if chain.cache.len() >= CACHE_ENTRIES || chain.cache_bytes + bytes > CACHE_BYTES {
                    chain.cache.clear();
                    chain.cache_bytes = 0;
                }
                chain.cache_bytes += bytes;
                chain
                    .cache
                    .insert_unique(hash, cached, |e| FxBuildHasher.hash_one(&*e.key))
                    .into_mut()
            }
        };
        self.request_hits |= cached.hits;
        if cached.epoch == epoch && cached.id != PLAIN {
            dict.stamp(cached.id);
            return Ok(cached.id);
        }
        let id = dict.intern(cached.result().ok_or(Dropped)?);
        // A string the dictionary had no room for is tried again next time.
        if id != LOST {
            (cached.id, cached.epoch) = (id, epoch);
        }
        Ok(id)
    }
}

/// The chain of a tag name, if a rule names it.
#[inline]
fn find_chain(list: &[(Box<[u8]>, usize)], name: &[u8]) -> Option<usize> {
    list.iter()
        .find(|(n, _)| same_bytes(n, name))
        .map(|&(_, c)| c)
}

/// What `chain` makes of `s`: its rules in order, each applied to what the ones before made.
fn run_chain(rules: &Rules, chain: &Chain, s: &[u8]) -> Cached {
    let cached = |outcome, hits| Cached {
        key: s.into(),
        outcome,
        hits,
        id: PLAIN,
        epoch: 0,
    };
    // The rules that match `s` itself: until one changes it, the others cannot.
    let matching = chain.set.as_ref().map(|set| set.matches(s));
    let mut hits = 0u64;
    let mut current: Cow<'_, [u8]> = Cow::Borrowed(s);
    for (k, &i) in chain.rules.iter().enumerate() {
        if let (Cow::Borrowed(_), Some(m)) = (&current, &matching) {
            if !m.matched(k) {
                continue;
            }
        }
        let rule = &rules.rules[i];
        match &rule.action {
            Action::Drop => {
                if rule.regex.is_match(&current) {
                    return cached(Outcome::Drop, hits | 1 << i);
                }
            }
            Action::Replace(with) => {
                if let Cow::Owned(next) = rule.regex.replace_all(&current, with.as_ref()) {
                    hits |= 1 << i;
                    current = Cow::Owned(next);
                }
            }
        }
    }
    let outcome = match current {
        Cow::Borrowed(_) => Outcome::Keep,
        Cow::Owned(mut v) => {
            v.truncate(crate::decode::cut_len(&v, rules.max_bytes));
            if v == s {
                Outcome::Keep
            } else {
                Outcome::Replace(v.into())
            }
        }
    };
    cached(outcome, hits)
}

/// A request's names after the rules, as dictionary ids.
pub struct Names<'a> {
    pub hostname: u32,
    pub server_name: u32,
    pub script_name: u32,
    tag_values: &'a [u32],
    timer_tag_values: &'a [u32],
}

impl Names<'_> {
    /// The request's names as decoded (no rules), interned in `dict`.
    pub fn plain<D: Intern>(batch: &Batch, req: &WireRequest, dict: &mut D) -> Names<'static> {
        Names {
            hostname: dict.intern(batch.bytes_of(req.hostname)),
            server_name: dict.intern(batch.bytes_of(req.server_name)),
            script_name: dict.intern(batch.bytes_of(req.script_name)),
            tag_values: &[],
            timer_tag_values: &[],
        }
    }

    /// The id of the request's `k`-th tag value, if a rule names the tag (else: intern it as
    /// received).
    #[inline]
    pub fn tag_value(&self, k: usize) -> Option<u32> {
        self.tag_values.get(k).copied().filter(|&v| v != PLAIN)
    }

    /// The id of the request's `k`-th timer tag value (counted across its timers in order), if a
    /// rule names the tag.
    #[inline]
    pub fn timer_tag_value(&self, k: usize) -> Option<u32> {
        self.timer_tag_values
            .get(k)
            .copied()
            .filter(|&v| v != PLAIN)
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use super::*;
    use crate::dictionary::Dictionary;

    fn rule(field: &str, regex: &str, replacement: Option<&str>) -> RuleDef {
        RuleDef {
            name: None,
            field: field.into(),
            regex: regex.into(),
            replacement: replacement.map(Into::into),
            drop: replacement.is_none(),
        }
    }

    fn rewriter(defs: &[RuleDef]) -> Rewriter {
        Rewriter::new(Arc::new(Rules::compile(defs, 1 << 20, 1024).unwrap())).unwrap()
    }

    /// Applies chain `c` to `s` as the only string of a request: `Some(result)` or `None` for a
    /// drop.
    fn apply(rw: &mut Rewriter, c: usize, s: &str) -> Option<String> {
        thread_local! {
            static DICT: RefCell<Dictionary> = RefCell::new(Dictionary::new(1 << 20));
        }
        DICT.with_borrow_mut(|dict| {
            let out = rw.apply(c, s.as_bytes(), dict);
            rw.count_request();
            let id = out.ok()?;
            Some(String::from_utf8(dict.get(id).to_vec()).unwrap())
        })
    }

    #[test]
    fn chains_apply_in_order_and_count_hits_per_use() {
        let mut rw = rewriter(&[
            rule("script_name", r"/\d+", Some("/:id")),
            rule("script_name", r"^/user/:id/avatar$", None),
            rule("script_name", r"\.php$", Some("")),
            rule("hostname", r"^web\d+$", Some("web")),
        ]);
        let s = rw.script_name.unwrap();
        assert_eq!(
            apply(&mut rw, s, "/user/123/edit.php").as_deref(),
            Some("/user/:id/edit")
        );
        // Cached: the same again counts again.
        assert_eq!(
            apply(&mut rw, s, "/user/123/edit.php").as_deref(),
            Some("/user/:id/edit")
        );
        // The second rule matches only what the first made.
        assert_eq!(apply(&mut rw, s, "/user/9/avatar"), None);
        assert_eq!(apply(&mut rw, s, "/about").as_deref(), Some("/about"));
        let h = rw.hostname.unwrap();
        assert_eq!(apply(&mut rw, h, "web12").as_deref(), Some("web"));
        rw.flush();
        let hits: Vec<u64> = rw.rules.hits().map(|(_, _, _, h)| h).collect();
        assert_eq!(hits, [3, 1, 2, 1]);
        assert_eq!(rw.rules.hits().next().unwrap().0, "rewrite[0]");
    }

    #[test]
    fn a_rewrite_is_cut_at_the_string_limit_on_a_character_boundary() {
        let rules = Rules::compile(&[rule("script_name", "x", Some("éé"))], 1 << 20, 5).unwrap();
        let mut rw = Rewriter::new(Arc::new(rules)).unwrap();
        let s = rw.script_name.unwrap();
        assert_eq!(apply(&mut rw, s, "xx").as_deref(), Some("éé"));
        assert_eq!(apply(&mut rw, s, "xxx").as_deref(), Some("éé"));
    }

    #[test]
    fn the_cache_is_bounded() {
        let mut rw = rewriter(&[rule("script_name", r"\d+", Some("N"))]);
        let s = rw.script_name.unwrap();
        for i in 0..CACHE_ENTRIES * 3 {
            assert_eq!(
                apply(&mut rw, s, &format!("/u/{i}")).as_deref(),
                Some("/u/N")
            );
            assert!(rw.chains[s].cache.len() <= CACHE_ENTRIES);
        }
        rw.flush();
        assert_eq!(rw.rules.hits().next().unwrap().3, CACHE_ENTRIES as u64 * 3);
    }

    /// A cached id is stamped as used whenever it is used, and interned again once a sweep may
    /// have given it to another string.
    #[test]
    fn cached_ids_are_stamped_and_interned_again_after_a_sweep() {
        let mut rw = rewriter(&[rule("script_name", r"\d+", Some("N"))]);
        let c = rw.script_name.unwrap();
        let mut dict = Dictionary::new(100);
        dict.set_now(1);
        let id = rw.apply(c, b"/u/1", &mut dict).ok().unwrap();
        assert_eq!(dict.get(id), b"/u/N");
        dict.set_now(5);
        assert_eq!(rw.apply(c, b"/u/1", &mut dict).ok(), Some(id));
        assert_eq!(dict.sweep(5), 0, "stamped at 5 by the cached use");
        dict.set_now(10);
        assert_eq!(dict.sweep(10), 1);
        assert_eq!(
            dict.intern(b"/other"),
            id,
            "the id is given to another string"
        );
        rw.dictionary_swept();
        let again = rw.apply(c, b"/u/1", &mut dict).ok().unwrap();
        assert_eq!(dict.get(again), b"/u/N");
        assert_ne!(again, id);
    }

    #[test]
    fn bad_rules_name_their_key() {
        for (def, key) in [
            (rule("script", "x", Some("y")), "field"),
            (rule("tag:", "x", Some("y")), "field"),
            (rule("script_name", "(", Some("y")), "regex"),
            (
                RuleDef {
                    drop: true,
                    ..rule("script_name", "x", Some("y"))
                },
                "drop",
            ),
            (
                RuleDef {
                    drop: false,
                    ..rule("script_name", "x", None)
                },
                "replacement",
            ),
        ] {
            let e =
                Rules::compile(&[rule("hostname", "a", Some("b")), def], 1 << 20, 100).unwrap_err();
            assert_eq!((e.index, e.key), (1, key), "{e:?}");
        }
        let named = RuleDef {
            name: Some("n".into()),
            ..rule("hostname", "a", Some("b"))
        };
        let e = Rules::compile(&[named.clone(), named], 1 << 20, 100).unwrap_err();
        assert_eq!((e.index, e.key), (1, "name"));
        // A regex above the size limit.
        let e = Rules::compile(&[rule("hostname", r"\w{1000}", Some("b"))], 1000, 100).unwrap_err();
        assert_eq!(e.key, "regex");
    }
}
