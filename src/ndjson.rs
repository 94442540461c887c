//! Raw requests as clients receive them: one JSON object per request (the shape of
//! `/api/v1/requests`), written straight to bytes, which the API, the live stream and the file
//! sink share; which requests a client asked for ([`RequestFilter`], [`sampled`]).
//!
//! Pure: bytes out of pooled records and the dictionary; the callers hold the locks and choose
//! how much to render under one hold ([`ENCODE_CHUNK`]).

use crate::dictionary::Dictionary;
use crate::record::{RequestView, TagPair, NO_SCHEMA};

/// Requests rendered per hold of the dictionary's read lock (~100 µs of work): the merger never
/// waits long for its write lock because a tap is rendering.
pub const ENCODE_CHUNK: usize = 128;

/// A field of the record compared for equality.
#[derive(Clone, Copy)]
pub enum Field {
    Hostname,
    ServerName,
    ScriptName,
    Schema,
}

/// The filters of `/api/v1/requests` and `/api/v1/stream` (the API parses them from the query
/// string). String values stay strings until the dictionary is locked.
#[derive(Default)]
pub struct RequestFilter {
    /// How many requests to answer (`/api/v1/requests`; the stream has no limit).
    pub limit: Option<usize>,
    /// Request fields that must equal these strings.
    pub fields: Vec<(Field, String)>,
    /// The status within these bounds, inclusive (`200`, `5xx`, `>=500`).
    pub status: Option<(u32, u32)>,
    /// Bounds on `request_time`, seconds.
    pub min_time: Option<f32>,
    pub max_time: Option<f32>,
    /// Bounds on `document_size` and `memory_peak`, bytes.
    pub min_size: Option<u64>,
    pub max_size: Option<u64>,
    pub min_memory: Option<u64>,
    pub max_memory: Option<u64>,
    /// Request tags (name, value) the request must carry.
    pub tags: Vec<(String, String)>,
    /// Timer tags (name, value) one of the request's timers must carry.
    pub timer_tags: Vec<(String, String)>,
    /// Whether each request's timers are rendered (`timers=true`).
    pub timers: bool,
}

impl RequestFilter {
    /// The filter with strings resolved to ids; `None` when some string is unknown to the
    /// dictionary (then nothing can match).
    pub fn resolve(&self, dict: &Dictionary) -> Option<Filter> {
        let id = |s: &str| dict.lookup(s.as_bytes());
        let pair = |(n, v): &(String, String)| {
            Some(TagPair {
                name: id(n)?,
                value: id(v)?,
            })
        };
        Some(Filter {
            fields: self
                .fields
                .iter()
                .map(|(field, v)| Some((*field, id(v)?)))
                .collect::<Option<_>>()?,
            status: self.status,
            min_time: self.min_time,
            max_time: self.max_time,
            size: (
                self.min_size.unwrap_or(0),
                self.max_size.unwrap_or(u64::MAX),
            ),
            memory: (
                self.min_memory.unwrap_or(0),
                self.max_memory.unwrap_or(u64::MAX),
            ),
            tags: self.tags.iter().map(pair).collect::<Option<_>>()?,
            timer_tags: self.timer_tags.iter().map(pair).collect::<Option<_>>()?,
        })
    }
}

/// Whether request `id` is in a sample of `rate` (0..=1): a hash of the id against the rate, so
/// the choice is cheap, spread evenly over any traffic, and the same for every consumer.
pub fn sampled(id: u64, rate: f64) -> bool {
    if rate >= 1.0 {
        return true;
    }
    // splitmix64's finaliser: consecutive ids give uniformly spread hashes.
    let mut z = id.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z as f64) < rate * (u64::MAX as f64)
}

/// A [`RequestFilter`] with strings resolved to ids: compares integers only. Valid while the
/// dictionary lock it was resolved under is held (an id is only stable while something uses it).
pub struct Filter {
    fields: Vec<(Field, u32)>,
    status: Option<(u32, u32)>,
    min_time: Option<f32>,
    max_time: Option<f32>,
    /// Inclusive bounds on `document_size` and `memory_peak`.
    size: (u64, u64),
    memory: (u64, u64),
    tags: Vec<TagPair>,
    timer_tags: Vec<TagPair>,
}

impl Filter {
    pub fn matches(&self, v: &RequestView<'_>) -> bool {
        let r = v.record;
        self.fields.iter().all(|&(field, id)| {
            id == match field {
                Field::Hostname => r.hostname,
                Field::ServerName => r.server_name,
                Field::ScriptName => r.script_name,
                Field::Schema => r.schema,
            }
        }) && self
            .status
            .is_none_or(|(lo, hi)| (lo..=hi).contains(&r.status))
            && self.min_time.is_none_or(|t| r.request_time >= t)
            && self.max_time.is_none_or(|t| r.request_time <= t)
            && (self.size.0..=self.size.1).contains(&u64::from(r.document_size))
            && (self.memory.0..=self.memory.1).contains(&u64::from(r.memory_peak))
            && self.tags.iter().all(|want| v.tags().contains(want))
            && self
                .timer_tags
                .iter()
                .all(|want| v.timers_with_tags().any(|(_, tags)| tags.contains(want)))
    }
}

/// Appends `x` as JSON (numbers, escaped strings); writing to a `Vec` cannot fail.
pub fn put<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, x: &T) {
    let _ = serde_json::to_writer(&mut *out, x);
}

/// Appends an f32 as the shortest decimal that reads back as the same f32 (`null` if not finite;
/// pooled records are always finite, the decoder rejects the others).
pub fn put_f32(out: &mut Vec<u8>, x: f32) {
    if x.is_finite() {
        put(out, &x);
    } else {
        out.extend_from_slice(b"null");
    }
}

/// Appends tags as a JSON object; with duplicate names the first wins (as in the reports).
pub fn write_tags(out: &mut Vec<u8>, tags: &[TagPair], dict: &Dictionary) {
    write_tags_within(out, tags, dict, usize::MAX);
}

/// [`write_tags`], leaving out each tag that would take `out` past `end` bytes (the object's
/// closing brace included). Returns the tags left out.
fn write_tags_within(out: &mut Vec<u8>, tags: &[TagPair], dict: &Dictionary, end: usize) -> u64 {
    let mut left_out = 0;
    out.push(b'{');
    for (i, t) in tags.iter().enumerate() {
        if tags[..i].iter().any(|p| p.name == t.name) {
            continue;
        }
        let mark = out.len();
        if out.last() != Some(&b'{') {
            out.push(b',');
        }
        put(out, &*dict.text(t.name));
        out.push(b':');
        put(out, &*dict.text(t.value));
        if out.len() >= end {
            out.truncate(mark);
            left_out += 1;
        }
    }
    out.push(b'}');
    left_out
}

/// Appends a request's figures as JSON object fields: `"request_count":…,"document_size":…,
/// "memory_peak":…,"memory_footprint":…,"request_time":…,"ru_utime":…,"ru_stime":…`.
fn write_request_figures(out: &mut Vec<u8>, r: &crate::record::Record) {
    for (key, n) in [
        (&b"\"request_count\":"[..], r.request_count),
        (b",\"document_size\":", r.document_size),
        (b",\"memory_peak\":", r.memory_peak),
        (b",\"memory_footprint\":", r.memory_footprint),
    ] {
        out.extend_from_slice(key);
        put(out, &n);
    }
    for (key, x) in [
        (&b",\"request_time\":"[..], r.request_time),
        (b",\"ru_utime\":", r.ru_utime),
        (b",\"ru_stime\":", r.ru_stime),
    ] {
        out.extend_from_slice(key);
        put_f32(out, x);
    }
}

/// Appends a timer's figures as JSON object fields: `"value":…,"hit_count":…,"ru_utime":…,
/// "ru_stime":…`.
fn write_timer_fields(out: &mut Vec<u8>, t: &crate::record::Timer) {
    out.extend_from_slice(b"\"value\":");
    put_f32(out, t.value);
    out.extend_from_slice(b",\"hit_count\":");
    put(out, &t.hit_count);
    out.extend_from_slice(b",\"ru_utime\":");
    put_f32(out, t.ru_utime);
    out.extend_from_slice(b",\"ru_stime\":");
    put_f32(out, t.ru_stime);
}

/// Appends one raw request as a JSON object: the shape of `/api/v1/requests`, shared by the
/// stream and the file sink. `unix_ms` is its merge time; `timers` adds the `timers` list.
/// Written straight to bytes (no `serde_json::Value` per request): the taps encode every merged
/// request, so this is on their hot path.
pub fn write_request(
    out: &mut Vec<u8>,
    v: &RequestView<'_>,
    dict: &Dictionary,
    unix_ms: u64,
    timers: bool,
) {
    let bound = Bound {
        max_timers: if timers { usize::MAX } else { 0 },
        max_bytes: usize::MAX,
    };
    write_request_within(out, v, dict, unix_ms, timers, bound);
}

/// What one rendered request may take (the request logs store each entry so bounded: a datagram
/// within every decoder limit can render to tens of megabytes with its timers).
#[derive(Clone, Copy, Debug)]
pub struct Bound {
    /// Timers rendered at most (the first ones).
    pub max_timers: usize,
    /// Bytes the object takes at most, beyond its names and figures (which always fit): timers,
    /// then request tags, that would take it further are left out.
    pub max_bytes: usize,
}

/// What [`write_request_within`] left out to stay within its [`Bound`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LeftOut {
    pub timers: u64,
    pub tags: u64,
}

impl LeftOut {
    pub fn any(&self) -> bool {
        self.timers + self.tags > 0
    }
}

/// Room kept after the request tags for `,"timer_count":N,"timers":[]}`.
const TAIL_BYTES: usize = 48;

/// [`write_request`] within `bound`: `timer_count` still says how many timers the request had,
/// so a reader can tell when some were left out.
pub fn write_request_within(
    out: &mut Vec<u8>,
    v: &RequestView<'_>,
    dict: &Dictionary,
    unix_ms: u64,
    timers: bool,
    bound: Bound,
) -> LeftOut {
    let start = out.len();
    let end = start.saturating_add(bound.max_bytes);
    let mut left_out = LeftOut {
        tags: write_request_head(out, v, dict, unix_ms, end.saturating_sub(TAIL_BYTES)),
        timers: 0,
    };
    if timers {
        out.extend_from_slice(b",\"timers\":[");
        let mut kept = 0;
        for (i, (t, tags)) in v.timers_with_tags().enumerate() {
            if i >= bound.max_timers {
                break;
            }
            let mark = out.len();
            if i > 0 {
                out.push(b',');
            }
            write_timer(out, t, tags, dict);
            // Room for the closing `]}`: a timer that does not fit ends the list (the first
            // ones are kept, in order).
            if out.len().saturating_add(2) > end {
                out.truncate(mark);
                break;
            }
            kept += 1;
        }
        out.push(b']');
        left_out.timers = (v.timers.len() - kept) as u64;
    }
    out.push(b'}');
    left_out
}

/// A request's object up to its `"timer_count":N` (its fields and tags: a tag that would take
/// `out` past `tags_end` is left out). Returns the tags left out.
fn write_request_head(
    out: &mut Vec<u8>,
    v: &RequestView<'_>,
    dict: &Dictionary,
    unix_ms: u64,
    tags_end: usize,
) -> u64 {
    let r = v.record;
    out.extend_from_slice(b"{\"id\":");
    put(out, &v.id);
    out.extend_from_slice(b",\"timestamp\":");
    put(out, &(unix_ms as f64 / 1000.0));
    out.extend_from_slice(b",\"hostname\":");
    put(out, &*dict.text(r.hostname));
    out.extend_from_slice(b",\"server_name\":");
    put(out, &*dict.text(r.server_name));
    out.extend_from_slice(b",\"script_name\":");
    put(out, &*dict.text(r.script_name));
    out.push(b',');
    write_request_figures(out, r);
    out.extend_from_slice(b",\"status\":");
    put(out, &r.status);
    out.extend_from_slice(b",\"schema\":");
    if r.schema == NO_SCHEMA {
        out.extend_from_slice(b"null");
    } else {
        put(out, &*dict.text(r.schema));
    }
    out.extend_from_slice(b",\"tags\":");
    let left_out = write_tags_within(out, v.tags(), dict, tags_end);
    out.extend_from_slice(b",\"timer_count\":");
    put(out, &v.timers.len());
    left_out
}

/// One timer as a JSON object: its figures and its tags.
fn write_timer(out: &mut Vec<u8>, t: &crate::record::Timer, tags: &[TagPair], dict: &Dictionary) {
    out.push(b'{');
    write_timer_fields(out, t);
    out.extend_from_slice(b",\"tags\":");
    write_tags(out, tags, dict);
    out.push(b'}');
}

/// [`write_request`] a part at a time, so that a request whose timers render to megabytes is
/// sent in bounded chunks: from its start (`from` is `None`) or from its `from`th timer on,
/// until `out` reaches `end` bytes. Returns the first timer not written (the object is left
/// open: the next part goes on from it, or [`close_request_part`] ends it), or `None` once the
/// object is complete.
pub fn write_request_part(
    out: &mut Vec<u8>,
    v: &RequestView<'_>,
    dict: &Dictionary,
    unix_ms: u64,
    timers: bool,
    from: Option<usize>,
    end: usize,
) -> Option<usize> {
    let mut at = match from {
        Some(at) => at,
        None => {
            write_request_head(out, v, dict, unix_ms, usize::MAX);
            if timers {
                out.extend_from_slice(b",\"timers\":[");
            }
            0
        }
    };
    if timers {
        for (t, tags) in v.timers_with_tags().skip(at) {
            if out.len() >= end {
                return Some(at);
            }
            if at > 0 {
                out.push(b',');
            }
            write_timer(out, t, tags, dict);
            at += 1;
        }
        out.push(b']');
    }
    out.push(b'}');
    None
}

/// Ends a request [`write_request_part`] left open whose next part cannot be written (the
/// request left the pool meanwhile): its timers list ends where it is (`timer_count` says how
/// many it had).
pub fn close_request_part(out: &mut Vec<u8>) {
    out.extend_from_slice(b"]}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sampling_keeps_about_the_rate_and_is_deterministic() {
        let kept = (0..100_000u64).filter(|&id| sampled(id, 0.1)).count();
        assert!((9_000..11_000).contains(&kept), "{kept}");
        assert!((0..1000u64).all(|id| sampled(id, 1.0)));
        assert_eq!(sampled(42, 0.5), sampled(42, 0.5));
        assert_eq!((0..10_000u64).filter(|&id| sampled(id, 0.0)).count(), 0);
    }

    /// A request of 200 timers with 16 tags of 1 KB each renders to megabytes; bounded, it stays
    /// within the bound, still valid JSON, keeps its first timers and says what it left out.
    /// A request of 200 timers, each (and the request) with 16 tags of 1 KB: its record, timers
    /// and tag block, over `dict`.
    fn heavy(
        dict: &mut Dictionary,
    ) -> (
        crate::record::Record,
        Vec<crate::record::Timer>,
        Vec<TagPair>,
    ) {
        use crate::record::{Record, Timer};
        let names: Vec<u32> = (0..16)
            .map(|i| dict.intern(format!("tag{i}").as_bytes()))
            .collect();
        let long = dict.intern(&[b'x'; 1024]);
        let record = Record {
            tag_count: 16,
            ..Record::default()
        };
        let timers = vec![
            Timer {
                value: 0.5,
                hit_count: 1,
                tag_count: 16,
                ..Timer::default()
            };
            200
        ];
        let tag_block: Vec<TagPair> = (0..201)
            .flat_map(|_| names.iter().map(|&name| TagPair { name, value: long }))
            .collect();
        (record, timers, tag_block)
    }

    #[test]
    fn a_bounded_request_keeps_its_first_timers_within_the_bound() {
        let mut dict = Dictionary::new(1024);
        let (record, timers, tag_block) = heavy(&mut dict);
        let v = RequestView {
            id: 7,
            record: &record,
            tag_block: &tag_block,
            timers: &timers,
        };
        let mut whole = Vec::new();
        write_request(&mut whole, &v, &dict, 1000, true);
        assert!(whole.len() > 3_000_000, "{}", whole.len());
        // (max_timers, max_bytes, timers kept, the size of what did not fit when the bytes
        // bound what is kept: a timer of 16 tags, a tag)
        for (max_timers, max_bytes, timers_kept, next) in [
            (usize::MAX, 64 << 10, 1..=3, Some(17_000)),
            (2, 1 << 20, 2..=2, None),
            (usize::MAX, 8 << 10, 0..=0, Some(1_100)),
        ] {
            let mut out = b"prefix".to_vec();
            let bound = Bound {
                max_timers,
                max_bytes,
            };
            let left = write_request_within(&mut out, &v, &dict, 1000, true, bound);
            let doc = &out[6..];
            assert!(doc.len() <= max_bytes, "{} > {max_bytes}", doc.len());
            let json: serde_json::Value = serde_json::from_slice(doc).unwrap();
            assert_eq!(json["timer_count"], 200);
            let timers = json["timers"].as_array().unwrap().len();
            let tags = json["tags"].as_object().unwrap().len();
            assert!(timers_kept.contains(&timers), "{timers} timers");
            assert!(tags > 0);
            assert_eq!(
                left,
                LeftOut {
                    timers: 200 - timers as u64,
                    tags: 16 - tags as u64
                }
            );
            // Cut only where the next timer or tag would not have fitted.
            if let Some(next) = next {
                assert!(doc.len() + next > max_bytes, "{}", doc.len());
            }
        }
    }

    /// A request written a part at a time is the request written whole, each part stopping at
    /// the first timer past its end.
    #[test]
    fn a_request_written_in_parts_is_the_whole_request() {
        let mut dict = Dictionary::new(1024);
        let (record, timers, tag_block) = heavy(&mut dict);
        let v = RequestView {
            id: 7,
            record: &record,
            tag_block: &tag_block,
            timers: &timers,
        };
        let mut whole = Vec::new();
        write_request(&mut whole, &v, &dict, 1000, true);
        let (mut joined, mut from, mut parts) = (Vec::new(), None, 0);
        loop {
            let mut part = Vec::new();
            let next = write_request_part(&mut part, &v, &dict, 1000, true, from, 64 << 10);
            parts += 1;
            assert!(part.len() < (64 << 10) + 18_000, "{}", part.len());
            joined.extend_from_slice(&part);
            match next {
                Some(at) => from = Some(at),
                None => break,
            }
        }
        assert_eq!(joined, whole);
        assert!(parts > 40, "{parts} parts");
        // Cut short: still JSON, its timers those written.
        let mut cut = Vec::new();
        let at = write_request_part(&mut cut, &v, &dict, 1000, true, None, 100_000).unwrap();
        close_request_part(&mut cut);
        let json: serde_json::Value = serde_json::from_slice(&cut).unwrap();
        assert_eq!(json["timers"].as_array().unwrap().len(), at);
        assert_eq!(json["timer_count"], 200);
    }
}
