//! Keys and filters as a live report holds them: every name and value interned (pinned) to its
//! dictionary id, and a request's row key built from them.
//!
//! In: a definition's parsed keys and filters ([`KeySpec`], [`FilterSpec`]) and the dictionary,
//! once, when a report is made ([`intern`]); then request views, per request, on the merge
//! threads. Out: whether a request (or a timer) passes the filters, and the ids of its row's key,
//! as a [`KeyBuf`] or, for a report of at most [`SMALL_KEY`] keys, as two words ([`Words`]),
//! hashed as the row tables hash them ([`hash_ids`]). The [`RowSelector`] runs the same code
//! outside a report, for the Prometheus export. After [`intern`], never touches the dictionary:
//! a request's ids are compared, never looked up.

use crate::dictionary::{Dictionary, LOST};
use crate::record::{RequestView, TagPair, Timer};

use super::def::{FieldName, FilterSpec, KeySpec, Kind, MAX_KEYS};
use super::error::{Refusal, ReportError};
use super::live::Report;

/// A key with its tag name interned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Key {
    Hostname,
    ServerName,
    ScriptName,
    Schema,
    Status,
    Tag(u32),
    TimerTag(u32),
}

/// Filters with every string interned (pinned) to its id.
#[derive(Clone, Debug, Default)]
pub(super) struct Filters {
    min_time: Option<f32>,
    max_time: Option<f32>,
    fields: Vec<(FieldName, u32)>,
    /// Inclusive bounds (`5xx` is 500 to 599).
    status: Option<(u32, u32)>,
    tags: Vec<TagPair>,
    pub(super) timer_tags: Vec<TagPair>,
}

impl Filters {
    /// The request-level filters; in a request report also "some timer passes the timer filters".
    #[inline]
    pub(super) fn pass_request(&self, v: &RequestView<'_>, timer_kind: bool) -> bool {
        let r = v.record;
        if self.min_time.is_some_and(|m| r.request_time < m)
            || self.max_time.is_some_and(|m| r.request_time > m)
        {
            return false;
        }
        if self
            .status
            .is_some_and(|(lo, hi)| r.status < lo || r.status > hi)
        {
            return false;
        }
        if !self.fields.iter().all(|&(f, id)| f.of(r) == id) {
            return false;
        }
        let tags = v.tags();
        if !self
            .tags
            .iter()
            .all(|t| first_tag(tags, t.name) == Some(t.value))
        {
            return false;
        }
        timer_kind
            || self.timer_tags.is_empty()
            || v.timers_with_tags().any(|(_, tags)| self.pass_timer(tags))
    }

    #[inline]
    pub(super) fn pass_timer(&self, tags: &[TagPair]) -> bool {
        self.timer_tags
            .iter()
            .all(|t| first_tag(tags, t.name) == Some(t.value))
    }
}

/// The keys and filters of a definition with every tag name and filter value interned (pinned)
/// in `dict`, and the ids pinned, which [`Report::release`] unpins. Refused when the dictionary
/// is full, with nothing left pinned.
pub(super) fn intern(
    specs: &[KeySpec],
    filter_specs: &[FilterSpec],
    dict: &mut Dictionary,
) -> Result<(Vec<Key>, Filters, Vec<u32>), ReportError> {
    let mut pins = Vec::new();
    let mut pin = |s: &str, pins: &mut Vec<u32>| -> Result<u32, ReportError> {
        let id = dict.pin(s.as_bytes());
        if id == LOST {
            return Err(ReportError(
                format!(
                    "dictionary full: cannot keep `{s}` (limits.max_dictionary_entries, \
                     limits.max_dictionary_bytes); strings unused for longer than the \
                     longest window are swept, or raise the limits"
                ),
                Refusal::Full,
            ));
        }
        pins.push(id);
        Ok(id)
    };
    let mut build = |pins: &mut Vec<u32>| -> Result<(Vec<Key>, Filters), ReportError> {
        let mut keys = Vec::with_capacity(specs.len());
        for spec in specs {
            keys.push(match spec {
                KeySpec::Hostname => Key::Hostname,
                KeySpec::ServerName => Key::ServerName,
                KeySpec::ScriptName => Key::ScriptName,
                KeySpec::Schema => Key::Schema,
                KeySpec::Status => Key::Status,
                KeySpec::Tag(n) => Key::Tag(pin(n, pins)?),
                KeySpec::TimerTag(n) => Key::TimerTag(pin(n, pins)?),
            });
        }
        let mut f = Filters::default();
        for spec in filter_specs {
            match spec {
                FilterSpec::MinTime(v) => f.min_time = Some(*v as f32),
                FilterSpec::MaxTime(v) => f.max_time = Some(*v as f32),
                FilterSpec::Status(lo, hi) => f.status = Some((*lo, *hi)),
                FilterSpec::Field(field, value) => {
                    let id = pin(value, pins)?;
                    f.fields.push((*field, id));
                }
                FilterSpec::Tag(n, value) => {
                    let name = pin(n, pins)?;
                    let value = pin(value, pins)?;
                    f.tags.push(TagPair { name, value });
                }
                FilterSpec::TimerTag(n, value) => {
                    let name = pin(n, pins)?;
                    let value = pin(value, pins)?;
                    f.timer_tags.push(TagPair { name, value });
                }
            }
        }
        Ok((keys, f))
    };
    match build(&mut pins) {
        Ok((keys, filters)) => Ok((keys, filters, pins)),
        Err(e) => {
            for id in pins {
                dict.release(id);
            }
            Err(e)
        }
    }
}

/// The value of the first tag named `name` (duplicate names: the first wins).
#[inline]
pub(super) fn first_tag(tags: &[TagPair], name: u32) -> Option<u32> {
    tags.iter().find(|t| t.name == name).map(|t| t.value)
}

/// Row keys of up to this many ids (most reports: 1 to 4 keys) are stored in a map whose keys are
/// 16 bytes, hashed as two words and compared as two words: no length prefix and no `memcmp`
/// call per lookup. Longer keys go to a second map whose keys are [`MAX_KEYS`] ids, inline too.
pub(super) const SMALL_KEY: usize = 4;

/// The key of the request (or timer) being applied: the ids of its key values, in key order,
/// then zeros.
#[derive(Clone, Copy, Debug)]
pub(super) struct KeyBuf {
    pub(super) ids: [u32; MAX_KEYS],
    pub(super) len: usize,
}

impl KeyBuf {
    /// The key as a [`Rows`](super::rows::Rows) table of up to `N` ids holds it: the ids, then
    /// zeros (`N` is at least the key's length).
    #[inline]
    pub(super) fn inline<const N: usize>(&self) -> [u32; N] {
        inline_key(&self.ids[..N])
    }

    #[inline]
    pub(super) fn slice(&self) -> &[u32] {
        &self.ids[..self.len]
    }
}

/// The hash of an inline key: where its probe starts in a [`Rows`](super::rows::Rows) table, and
/// the order of a batch's table-order update ([`Deferral`](super::update::Deferral)). Two ids per
/// word.
#[inline]
pub(super) fn hash_ids<const N: usize>(k: &[u32; N]) -> u64 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    for pair in k.chunks(2) {
        h.write_u64(pair[0] as u64 | (pair.get(1).copied().unwrap_or(0) as u64) << 32);
    }
    h.finish()
}

/// A key given as its ids, inline: the ids, then zeros (a report's keys all have the same
/// length, so the padding never makes two keys equal). `ids` may be at most `N` long.
#[inline]
pub(super) fn inline_key<const N: usize>(ids: &[u32]) -> [u32; N] {
    let mut k = [0; N];
    k[..ids.len()].copy_from_slice(ids);
    k
}

/// A key of at most [`SMALL_KEY`] ids as two words, two ids to a word (`ids[0] | ids[1] << 32`,
/// as [`hash_ids`] reads them): the form a small key is built in by [`Report::update`], in
/// registers. Built in memory id by id (a [`KeyBuf`]), the key's first wide load, right after its
/// 4-byte stores, cannot be forwarded from them and waits for them to reach the cache: on the
/// path of every request.
pub(super) type Words = [u64; 2];

/// `w` with id `id` at position `pos` (which holds 0).
#[inline(always)]
pub(super) fn with_id(w: Words, pos: usize, id: u32) -> Words {
    let id = (id as u64) << (32 * (pos & 1));
    if pos < 2 {
        [w[0] | id, w[1]]
    } else {
        [w[0], w[1] | id]
    }
}

/// The ids of a key held as [`Words`], as a small table holds them.
#[inline(always)]
pub(super) fn ids_of(w: Words) -> [u32; SMALL_KEY] {
    [
        w[0] as u32,
        (w[0] >> 32) as u32,
        w[1] as u32,
        (w[1] >> 32) as u32,
    ]
}

/// [`hash_ids`] of the ids `w` holds.
#[inline(always)]
pub(super) fn hash_words(w: Words) -> u64 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    h.write_u64(w[0]);
    h.write_u64(w[1]);
    h.finish()
}

/// The id of a request's value of key `k` (0 for a timer tag key, set per timer); `None` when it
/// lacks a request tag key.
#[inline(always)]
fn key_id(k: Key, v: &RequestView<'_>) -> Option<u32> {
    let r = v.record;
    Some(match k {
        Key::Hostname => r.hostname,
        Key::ServerName => r.server_name,
        Key::ScriptName => r.script_name,
        Key::Schema => r.schema,
        Key::Status => r.status,
        Key::Tag(name) => first_tag(v.tags(), name)?,
        Key::TimerTag(_) => 0, // set per timer
    })
}

/// The key of a request in a report with `keys`: the ids of its key values in key order (timer
/// tag keys left 0, set per timer by [`set_timer_key`]); `None` when it lacks a request tag key.
#[inline]
pub(super) fn request_key(keys: &[Key], v: &RequestView<'_>) -> Option<KeyBuf> {
    let mut key = KeyBuf {
        ids: [0; MAX_KEYS],
        len: keys.len(),
    };
    for (slot, k) in key.ids.iter_mut().zip(keys) {
        *slot = key_id(*k, v)?;
    }
    Some(key)
}

/// [`request_key`] of a report of at most [`SMALL_KEY`] keys, as [`Words`].
#[inline(always)]
pub(super) fn small_request_key(keys: &[Key], v: &RequestView<'_>) -> Option<Words> {
    let mut w = [0; 2];
    for (pos, k) in keys.iter().enumerate() {
        w = with_id(w, pos, key_id(*k, v)?);
    }
    Some(w)
}

/// Sets the timer tag keys (`(position, tag name)`) of `key` from a timer's `tags`; false when
/// the timer lacks one of them.
#[inline]
pub(super) fn set_timer_key(
    timer_keys: &[(usize, u32)],
    key: &mut KeyBuf,
    tags: &[TagPair],
) -> bool {
    for &(pos, name) in timer_keys {
        match first_tag(tags, name) {
            Some(value) => key.ids[pos] = value,
            None => return false,
        }
    }
    true
}

/// Which rows of a report a request counts in, outside the report: its filters and key
/// extraction (the same code [`Report::add_batch`] runs), for the Prometheus export, which keeps
/// counters per row of its own. Its ids are the report's pins: valid while the report exists.
#[derive(Clone, Debug)]
pub struct RowSelector {
    kind: Kind,
    keys: Vec<Key>,
    timer_keys: Vec<(usize, u32)>,
    filters: Filters,
    filtered: bool,
}

impl RowSelector {
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// Calls `f` with the key ids of each row `v` counts in: once in a request (or info) report,
    /// once per matching timer, with the timer, in a timer report.
    #[inline]
    pub fn rows(&self, v: &RequestView<'_>, mut f: impl FnMut(&[u32], Option<&Timer>)) {
        let timer_kind = self.kind == Kind::Timer;
        if self.filtered && !self.filters.pass_request(v, timer_kind) {
            return;
        }
        let Some(mut key) = request_key(&self.keys, v) else {
            return;
        };
        if !timer_kind {
            return f(key.slice(), None);
        }
        let timer_filters = !self.filters.timer_tags.is_empty();
        for (timer, tags) in v.timers_with_tags() {
            if (!timer_filters || self.filters.pass_timer(tags))
                && set_timer_key(&self.timer_keys, &mut key, tags)
            {
                f(key.slice(), Some(timer));
            }
        }
    }

    /// Whether key position `i` is the status (a number, not a dictionary id) or the schema (whose
    /// [`NO_SCHEMA`](crate::record::NO_SCHEMA) id means absent).
    pub fn key_is_status(&self, i: usize) -> bool {
        self.keys.get(i) == Some(&Key::Status)
    }
    pub fn key_is_schema(&self, i: usize) -> bool {
        self.keys.get(i) == Some(&Key::Schema)
    }
}

impl Report {
    /// This report's [`RowSelector`].
    pub fn row_selector(&self) -> RowSelector {
        RowSelector {
            kind: self.kind,
            keys: self.keys.clone(),
            timer_keys: self.timer_keys.clone(),
            filters: self.filters.clone(),
            filtered: self.filtered,
        }
    }

    /// Calls `mark` with every id the report's rows are keyed by (the window's closed part and
    /// the open tick; a closed tick's keys are in the closed part): what the dictionary must not
    /// evict (see `Dictionary::evict_unreferenced`). A status is a number, not an id: marking it
    /// only keeps one more string.
    pub fn mark_key_ids(&self, mark: &mut dyn FnMut(u32)) {
        let n = self.keys.len();
        for map in [&self.agg, &self.open] {
            for (key, _) in map.iter(n) {
                key.iter().for_each(|&id| mark(id));
            }
        }
    }
}
