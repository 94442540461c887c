//! A seeded generator of realistic, PHP-extension-like Pinba datagrams.
//!
//! Who uses this: `pinbad-blast` pre-generates its send pool from it, the integration tests replay
//! the same seed to compute the reports the daemon must produce, and the benches feed it to the hot
//! stages; the daemon never does, and is built without it (the `corpus` feature, on in every test
//! and bench build, see Cargo.toml). What flows out: [`crate::proto::Request`] messages or their
//! encoded bytes. It does no I/O apart from the replay-file helpers, never reads the clock, and is
//! fully determined by [`CorpusSpec`]: the same spec (seed included) gives the same bytes on every
//! run and every platform.
//!
//! What the datagrams look like (see `tests/fixtures/php/` for the real thing):
//! - `request_count` 0, as the PHP extension has sent since 1.1.0;
//! - script, host and server drawn from Zipf popularity tables (a few hot scripts, a long tail);
//! - `request_time` log-normal-ish between 1 ms and 2 s, `ru_utime`/`ru_stime` a share of it;
//! - status from a 200/301/404/500 mix, `schema` "https", "http" or absent, `memory_footprint` set;
//! - request tags `country`, `lang` (values Zipf-distributed), sorted by name;
//! - 3–15 timers, each tagged `group`, `op`, `server` (tags sorted by name like the extension),
//!   values a fraction of `request_time`, hit counts 1–5; timers with identical tag sets merged
//!   (values, rusage and hit counts summed), as the extension does before sending;
//! - one deduplicated dictionary, request-tag value before name and timer-tag name before value
//!   (the extension's insertion order), repeated scalars unpacked (the prost type does that).
//!
//! With the defaults the mean datagram is about 550 B (`tests::mean_size_is_realistic`).

use std::io::{self, BufWriter, Read, Write};
use std::path::Path;

use prost::Message;

use crate::proto::Request;

/// What to generate. The defaults give the corpus the module doc describes.
#[derive(Clone, Debug, PartialEq)]
pub struct CorpusSpec {
    /// PRNG seed: the same spec and seed always give the same datagrams.
    pub seed: u64,
    /// Number of distinct script names (Zipf popularity).
    pub scripts: usize,
    /// Number of distinct host names (Zipf popularity).
    pub hosts: usize,
    /// Number of distinct server (virtual host) names (Zipf popularity).
    pub servers: usize,
    /// Number of distinct values per tag name, timer and request tags alike (Zipf popularity).
    pub tag_values: usize,
    /// Fewest timers drawn per request (before merging identical tag sets).
    pub min_timers: usize,
    /// Most timers drawn per request (before merging identical tag sets).
    pub max_timers: usize,
    /// Tags per timer: the first N of `group`, `server`, `op`, `table`, `shard`, ...
    pub timer_tags: usize,
    /// Tags per request: the first N of `country`, `lang`, `device`, `ab`, ...
    pub request_tags: usize,
    /// Zipf exponent of every popularity table (0 = uniform, 1 = classic Zipf).
    pub zipf_s: f64,
}

impl Default for CorpusSpec {
    fn default() -> Self {
        CorpusSpec {
            seed: 1,
            scripts: 1000,
            hosts: 20,
            servers: 5,
            tag_values: 50,
            min_timers: 3,
            max_timers: 15,
            timer_tags: 3,
            request_tags: 2,
            zipf_s: 1.0,
        }
    }
}

/// The splitmix64 generator (Steele, Lea, Flood 2014; the seeder of the xoshiro family).
///
/// Written here rather than taken from `rand` for two reasons: the corpus must be bit-for-bit
/// reproducible forever (tests compute expected reports from a seed, and `rand`'s algorithms and
/// value-derivation helpers are allowed to change between versions), and it saves a dependency.
/// splitmix64 passes BigCrush, has a 2^64 period and one `u64` of state, which is plenty for
/// generating test traffic (not for cryptography).
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator seeded with `seed` (any value, 0 included, is fine).
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next 64 uniformly distributed bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`, with 53 bits of precision.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `[0, n)` (Lemire's multiply-shift; the bias is below 2^-32 for the n used here).
    /// Returns 0 when `n` is 0.
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform in `[lo, hi)`.
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next_f64()
    }

    /// A standard normal deviate (Box–Muller, one of the pair discarded for simplicity).
    pub fn normal(&mut self) -> f64 {
        // 1 - u is in (0, 1], so the logarithm is finite.
        let u1 = 1.0 - self.next_f64();
        let u2 = self.next_f64();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }
}

/// A Zipf popularity table over `0..n`: rank k has weight `1 / (k + 1)^s`.
///
/// The cumulative distribution is computed once; a draw is one uniform number and a binary search.
#[derive(Clone, Debug)]
pub struct Zipf {
    /// Normalised cumulative weights; the last entry is exactly 1.0.
    cdf: Vec<f64>,
}

impl Zipf {
    /// A table over `0..n` (`n` is raised to 1 if 0) with exponent `s` (0 = uniform).
    pub fn new(n: usize, s: f64) -> Self {
        let n = n.max(1);
        let s = if s.is_finite() { s.max(0.0) } else { 1.0 };
        let mut cdf = Vec::with_capacity(n);
        let mut total = 0.0;
        for k in 0..n {
            total += 1.0 / ((k + 1) as f64).powf(s);
            cdf.push(total);
        }
        for c in &mut cdf {
            *c /= total;
        }
        if let Some(last) = cdf.last_mut() {
            *last = 1.0;
        }
        Zipf { cdf }
    }

    /// Number of ranks.
    pub fn len(&self) -> usize {
        self.cdf.len()
    }

    /// Always false: a table has at least one rank.
    pub fn is_empty(&self) -> bool {
        self.cdf.is_empty()
    }

    /// Draw a rank: 0 is the most popular.
    pub fn sample(&self, rng: &mut SplitMix64) -> usize {
        let u = rng.next_f64();
        self.cdf
            .partition_point(|&c| c <= u)
            .min(self.cdf.len() - 1)
    }
}

/// A tag name and its possible values, as ids into [`Corpus::strings`].
#[derive(Clone, Debug)]
struct TagTable {
    name: u32,
    values: Vec<u32>,
}

/// One timer as the application would have started it, before the extension merges timers.
#[derive(Clone, Copy, Debug, Default)]
struct RawTimer {
    hit_count: u32,
    value: f64,
    ru_utime: f64,
    ru_stime: f64,
}

/// The generator: popularity tables, string tables, the PRNG and reusable scratch space.
#[derive(Clone, Debug)]
pub struct Corpus {
    spec: CorpusSpec,
    rng: SplitMix64,
    scripts: Vec<Vec<u8>>,
    hosts: Vec<Vec<u8>>,
    servers: Vec<Vec<u8>>,
    script_zipf: Zipf,
    host_zipf: Zipf,
    server_zipf: Zipf,
    value_zipf: Zipf,
    /// Every tag name and value; [`TagTable`] refers to them by index.
    strings: Vec<Vec<u8>>,
    /// Timer tags, sorted by name (the extension sends them sorted).
    timer_tags: Vec<TagTable>,
    /// Request tags, sorted by name.
    request_tags: Vec<TagTable>,
    // Scratch, reused between requests.
    raw_timers: Vec<RawTimer>,
    /// `raw_timers[i]`'s tag value ids, `timer_tags.len()` per timer.
    raw_tag_values: Vec<u32>,
    order: Vec<usize>,
    /// Dictionary index of string id `i` in the request being built, valid when
    /// `dict_stamp[i] == generation`.
    dict_index: Vec<u32>,
    dict_stamp: Vec<u64>,
    generation: u64,
}

const SERVERS: &[&str] = &[
    "www.example.com",
    "api.example.com",
    "m.example.com",
    "admin.example.com",
    "static.example.com",
];
const SECTIONS: &[&str] = &[
    "catalog", "user", "api/v1", "search", "cart", "blog", "news", "account", "ajax", "admin",
    "help", "api/v2",
];
const PAGES: &[&str] = &[
    "index", "view", "list", "edit", "save", "show", "feed", "export", "login", "delete", "upload",
    "stats",
];
/// The four timer-tag reports the benchmarks (and tests that load like them) run over this
/// corpus's timer tags: pinba_engine's `tag_info` / `tag_report` / `tag2_info` / `tag_report2`
/// shapes (the first two a family). `benches/e2e.sh` spells the same four in its config.
pub fn timer_tag_report_defs() -> Vec<crate::report::ReportDef> {
    use crate::report::ReportDef;
    vec![
        ReportDef::new("tag_info_group", &["timer_tag:group"]),
        ReportDef::new("tag_report_group", &["script_name", "timer_tag:group"]),
        ReportDef::new(
            "tag2_info_group_server",
            &["timer_tag:group", "timer_tag:server"],
        ),
        ReportDef::new(
            "tag_report2_op",
            &["script_name", "hostname", "server_name", "timer_tag:op"],
        ),
    ]
}

/// The 12 key sets of `benches/e2e.sh`'s `TIMER_REPORTS_MIXED`: the four shapes of
/// [`timer_tag_report_defs`], then each with `timer_tag:op` or `status` added, then with
/// `hostname` or `schema` added as well. A real configuration's variety of timer reports.
pub const MIXED_TIMER_KEY_SETS: [&[&str]; 12] = [
    &["timer_tag:group"],
    &["script_name", "timer_tag:group"],
    &["timer_tag:group", "timer_tag:server"],
    &["script_name", "hostname", "server_name", "timer_tag:op"],
    &["timer_tag:group", "timer_tag:op"],
    &["script_name", "timer_tag:group", "status"],
    &["timer_tag:group", "timer_tag:server", "timer_tag:op"],
    &[
        "script_name",
        "hostname",
        "server_name",
        "timer_tag:op",
        "status",
    ],
    &["timer_tag:group", "timer_tag:op", "hostname"],
    &["script_name", "timer_tag:group", "status", "schema"],
    &[
        "timer_tag:group",
        "timer_tag:server",
        "timer_tag:op",
        "hostname",
    ],
    &[
        "script_name",
        "hostname",
        "server_name",
        "timer_tag:op",
        "status",
        "schema",
    ],
];

/// `n` timer-tag reports over [`MIXED_TIMER_KEY_SETS`] in turn, named `timers_mixed_I`.
pub fn mixed_timer_tag_report_defs(n: usize) -> Vec<crate::report::ReportDef> {
    (0..n)
        .map(|i| {
            crate::report::ReportDef::new(
                &format!("timers_mixed_{i}"),
                MIXED_TIMER_KEY_SETS[i % MIXED_TIMER_KEY_SETS.len()],
            )
        })
        .collect()
}

/// `n` timer-tag reports whose key sets all differ (at most 113), named `timers_distinct_I`:
/// the four of [`timer_tag_report_defs`], then each non-empty subset of the timer tags group,
/// server and op with none, one or two of the request fields (`benches/e2e.sh`'s
/// `TIMER_REPORTS_DISTINCT`, built the same way).
pub fn distinct_timer_tag_report_defs(n: usize) -> Vec<crate::report::ReportDef> {
    const FIELDS: [&str; 5] = ["script_name", "hostname", "server_name", "status", "schema"];
    const TAGS: [&str; 3] = ["timer_tag:group", "timer_tag:server", "timer_tag:op"];
    let mut sets: Vec<Vec<String>> = timer_tag_report_defs()
        .into_iter()
        .map(|d| d.keys)
        .collect();
    let sorted = |s: &[String]| {
        let mut v = s.to_vec();
        v.sort_unstable();
        v
    };
    // Subsets in the order of Python's itertools.combinations, as e2e.sh lists them.
    let combinations = |items: &[&'static str], k: usize| -> Vec<Vec<&'static str>> {
        let mut out = Vec::new();
        let mut idx: Vec<usize> = (0..k).collect();
        if k > items.len() {
            return out;
        }
        loop {
            out.push(idx.iter().map(|&i| items[i]).collect());
            let Some(i) = (0..k).rev().find(|&i| idx[i] != i + items.len() - k) else {
                return out;
            };
            idx[i] += 1;
            for j in i + 1..k {
                idx[j] = idx[j - 1] + 1;
            }
        }
    };
    for k in 0..3 {
        for f in combinations(&FIELDS, k) {
            for m in 1..4 {
                for t in combinations(&TAGS, m) {
                    let keys: Vec<String> = f.iter().chain(&t).map(|k| k.to_string()).collect();
                    if !sets.iter().any(|s| sorted(s) == sorted(&keys)) {
                        sets.push(keys);
                    }
                }
            }
        }
    }
    sets.iter()
        .take(n)
        .enumerate()
        .map(|(i, keys)| {
            let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
            crate::report::ReportDef::new(&format!("timers_distinct_{i}"), &keys)
        })
        .collect()
}

const TIMER_TAG_NAMES: &[&str] = &["group", "server", "op", "table", "shard", "cache", "method"];
const REQUEST_TAG_NAMES: &[&str] = &["country", "lang", "device", "ab", "region", "plan"];
const GROUPS: &[&str] = &[
    "mysql", "memcache", "redis", "sphinx", "curl", "file", "session", "template", "elastic",
    "kafka", "smtp", "amqp",
];
const SERVER_KINDS: &[&str] = &["db", "mc", "rd", "idx", "api"];
const OPS: &[&str] = &[
    "select", "get", "set", "insert", "update", "query", "fetch", "render", "connect", "delete",
    "incr", "commit", "publish", "search",
];
const COUNTRIES: &[&str] = &[
    "us", "de", "gb", "fr", "nl", "ru", "br", "in", "jp", "it", "es", "ca", "pl", "au", "se", "ua",
    "tr", "mx", "kr", "cn", "ch", "be", "at", "cz", "pt", "ar", "id", "no", "dk", "fi", "ie", "il",
    "ro", "hu", "gr", "za", "sg", "nz", "th", "vn", "my", "ph", "cl", "co", "pe", "eg", "ng", "ke",
    "sa", "ae",
];
const LANGS: &[&str] = &[
    "en", "de", "fr", "es", "ru", "pt", "it", "nl", "pl", "ja", "tr", "uk", "ko", "zh", "sv", "cs",
    "ro", "hu", "el", "da", "fi", "no", "he", "ar", "hi", "th", "vi", "id", "ms", "bg",
];
const DEVICES: &[&str] = &["desktop", "mobile", "tablet", "bot", "tv"];

/// Value `i` of a name whose realistic values are `base`: `base[i]`, then `base[i % n]` with a
/// numeric suffix once the list is exhausted (no base entry ends in a digit, so all are distinct).
fn nth_value(base: &[&str], i: usize) -> String {
    let n = base.len();
    if i < n {
        base[i].to_string()
    } else {
        format!("{}{}", base[i % n], i / n)
    }
}

/// Value `i` of tag `name` (known names get realistic values, others `v0`, `v1`, ...).
fn tag_value(name: &str, i: usize) -> String {
    match name {
        "group" => nth_value(GROUPS, i),
        "server" => format!(
            "{}{}",
            SERVER_KINDS[i % SERVER_KINDS.len()],
            i / SERVER_KINDS.len() + 1
        ),
        "op" => nth_value(OPS, i),
        "country" => nth_value(COUNTRIES, i),
        "lang" => nth_value(LANGS, i),
        "device" => nth_value(DEVICES, i),
        _ => format!("v{i}"),
    }
}

/// Tag name `i` of a list: the known names first, then `{generic}7`, `{generic}8`, ...
fn tag_name(base: &[&str], generic: &str, i: usize) -> String {
    base.get(i)
        .map_or_else(|| format!("{generic}{i}"), |s| s.to_string())
}

/// Script `i`: `/index.php` first, then `/section/page.php`, with a numeric suffix on the page once
/// every pair is used.
fn script_name(i: usize) -> String {
    if i == 0 {
        return "/index.php".to_string();
    }
    let (s, p) = (SECTIONS.len(), PAGES.len());
    let k = i - 1;
    let section = SECTIONS[k % s];
    let page = PAGES[(k / s) % p];
    match k / (s * p) {
        0 => format!("/{section}/{page}.php"),
        n => format!("/{section}/{page}{n}.php"),
    }
}

fn host_name(i: usize) -> String {
    format!("web{:02}", i + 1)
}

fn server_name(i: usize) -> String {
    SERVERS
        .get(i)
        .map_or_else(|| format!("s{i}.example.com"), |s| s.to_string())
}

impl Corpus {
    /// A generator for `spec`. Zero counts are raised to 1 (0 for the tag counts), and
    /// `min_timers > max_timers` is treated as `max_timers..=min_timers`.
    pub fn new(spec: CorpusSpec) -> Corpus {
        let mut spec = spec;
        spec.scripts = spec.scripts.max(1);
        spec.hosts = spec.hosts.max(1);
        spec.servers = spec.servers.max(1);
        spec.tag_values = spec.tag_values.max(1);
        if spec.min_timers > spec.max_timers {
            std::mem::swap(&mut spec.min_timers, &mut spec.max_timers);
        }

        // Tag names and values, interned by content: the same text under two names (country
        // "de", lang "de") is one string, hence one dictionary entry, as in the extension.
        let mut strings: Vec<Vec<u8>> = Vec::new();
        let mut ids: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
        let mut intern = |s: String| {
            *ids.entry(s).or_insert_with_key(|s| {
                strings.push(s.clone().into_bytes());
                (strings.len() - 1) as u32
            })
        };
        let mut table = |names: &[&str], generic: &str, i: usize| {
            let name = tag_name(names, generic, i);
            TagTable {
                name: intern(name.clone()),
                values: (0..spec.tag_values)
                    .map(|v| intern(tag_value(&name, v)))
                    .collect(),
            }
        };
        let mut timer_tags: Vec<TagTable> = (0..spec.timer_tags)
            .map(|i| table(TIMER_TAG_NAMES, "tag", i))
            .collect();
        let mut request_tags: Vec<TagTable> = (0..spec.request_tags)
            .map(|i| table(REQUEST_TAG_NAMES, "rtag", i))
            .collect();
        timer_tags.sort_by(|a, b| strings[a.name as usize].cmp(&strings[b.name as usize]));
        request_tags.sort_by(|a, b| strings[a.name as usize].cmp(&strings[b.name as usize]));

        let string_count = strings.len();
        Corpus {
            rng: SplitMix64::new(spec.seed),
            scripts: (0..spec.scripts)
                .map(|i| script_name(i).into_bytes())
                .collect(),
            hosts: (0..spec.hosts).map(|i| host_name(i).into_bytes()).collect(),
            servers: (0..spec.servers)
                .map(|i| server_name(i).into_bytes())
                .collect(),
            script_zipf: Zipf::new(spec.scripts, spec.zipf_s),
            host_zipf: Zipf::new(spec.hosts, spec.zipf_s),
            server_zipf: Zipf::new(spec.servers, spec.zipf_s),
            value_zipf: Zipf::new(spec.tag_values, spec.zipf_s),
            strings,
            timer_tags,
            request_tags,
            raw_timers: Vec::new(),
            raw_tag_values: Vec::new(),
            order: Vec::new(),
            dict_index: vec![0; string_count],
            dict_stamp: vec![0; string_count],
            generation: 0,
            spec,
        }
    }

    /// The spec this corpus was built from (after the adjustments described in [`Corpus::new`]).
    pub fn spec(&self) -> &CorpusSpec {
        &self.spec
    }

    /// Script name of popularity rank `rank` (0 = most popular), as sent on the wire.
    pub fn script(&self, rank: usize) -> Option<&[u8]> {
        self.scripts.get(rank).map(Vec::as_slice)
    }

    /// The next request as a prost message, PHP-extension-like (see the module docs).
    pub fn next_request(&mut self) -> Request {
        let rng = &mut self.rng;

        let script = self.scripts[self.script_zipf.sample(rng)].clone();
        let host = self.hosts[self.host_zipf.sample(rng)].clone();
        let server = self.servers[self.server_zipf.sample(rng)].clone();

        // Log-normal around 60 ms, clamped to 1 ms – 2 s.
        let request_time = (0.06f64.ln() + 1.1 * rng.normal()).exp().clamp(0.001, 2.0);
        let ru_utime = request_time * rng.uniform(0.2, 0.7);
        let ru_stime = request_time * rng.uniform(0.0, 0.15);

        let u = rng.next_f64();
        let status = if u < 0.88 {
            200
        } else if u < 0.93 {
            301
        } else if u < 0.98 {
            404
        } else {
            500
        };
        let u = rng.next_f64();
        let schema = if u < 0.6 {
            Some(b"https".to_vec())
        } else if u < 0.9 {
            Some(b"http".to_vec())
        } else {
            None
        };
        let document_size = match status {
            301 => 0,
            200 => (10_000f64.ln() + 1.2 * rng.normal())
                .exp()
                .clamp(200.0, 4e6) as u32,
            _ => rng.uniform(200.0, 6000.0) as u32,
        };
        let memory_peak = ((4.0 * 1048576f64).ln() + 0.8 * rng.normal())
            .exp()
            .clamp(524_288.0, 256.0 * 1048576.0) as u32;
        let memory_footprint = (f64::from(memory_peak) * rng.uniform(0.5, 1.0)) as u32;

        // Raw timers, as the application started them.
        let ntags = self.timer_tags.len();
        let span = (self.spec.max_timers - self.spec.min_timers) as u64 + 1;
        let n = self.spec.min_timers + rng.below(span) as usize;
        self.raw_timers.clear();
        self.raw_tag_values.clear();
        let budget = request_time * rng.uniform(0.3, 0.9);
        let mut weight_total = 0.0;
        for _ in 0..n {
            let weight = rng.uniform(0.05, 1.0);
            weight_total += weight;
            let ru_stime_share = if rng.next_f64() < 0.5 {
                0.0
            } else {
                rng.uniform(0.0, 0.1)
            };
            self.raw_timers.push(RawTimer {
                hit_count: 1 + rng.below(5) as u32,
                value: weight,
                ru_utime: rng.uniform(0.0, 0.5),
                ru_stime: ru_stime_share,
            });
            for t in &self.timer_tags {
                self.raw_tag_values
                    .push(t.values[self.value_zipf.sample(rng)]);
            }
        }
        for t in &mut self.raw_timers {
            t.value *= budget / weight_total;
            t.ru_utime *= t.value;
            t.ru_stime *= t.value;
        }

        // Merge timers with identical tag sets, like the extension: order the timers by tag set
        // (stable, so sums are taken in drawing order) and fold runs of equal sets.
        self.order.clear();
        self.order.extend(0..n);
        let tags = &self.raw_tag_values;
        let of = |i: usize| &tags[i * ntags..(i + 1) * ntags];
        self.order.sort_by(|&a, &b| of(a).cmp(of(b)));

        self.generation += 1;
        let mut req = Request {
            hostname: host,
            server_name: server,
            script_name: script,
            request_count: 0,
            document_size,
            memory_peak,
            request_time: request_time as f32,
            ru_utime: ru_utime as f32,
            ru_stime: ru_stime as f32,
            status: Some(status),
            memory_footprint: Some(memory_footprint),
            schema,
            ..Request::default()
        };
        let mut dict = Dictionary {
            strings: &self.strings,
            index: &mut self.dict_index,
            stamp: &mut self.dict_stamp,
            generation: self.generation,
            entries: &mut req.dictionary,
        };

        // Request tags: the extension adds the value to the dictionary before the name.
        for t in &self.request_tags {
            let value = dict.add(t.values[self.value_zipf.sample(rng)]);
            let name = dict.add(t.name);
            req.tag_name.push(name);
            req.tag_value.push(value);
        }

        let mut k = 0;
        while k < n {
            let first = self.order[k];
            let mut merged = self.raw_timers[first];
            let mut j = k + 1;
            while j < n && of(self.order[j]) == of(first) {
                let t = self.raw_timers[self.order[j]];
                merged.hit_count += t.hit_count;
                merged.value += t.value;
                merged.ru_utime += t.ru_utime;
                merged.ru_stime += t.ru_stime;
                j += 1;
            }
            req.timer_hit_count.push(merged.hit_count);
            req.timer_value.push(merged.value as f32);
            req.timer_ru_utime.push(merged.ru_utime as f32);
            req.timer_ru_stime.push(merged.ru_stime as f32);
            req.timer_tag_count.push(ntags as u32);
            for (t, &value) in self.timer_tags.iter().zip(of(first)) {
                req.timer_tag_name.push(dict.add(t.name));
                req.timer_tag_value.push(dict.add(value));
            }
            k = j;
        }
        req
    }

    /// The next `n` requests, encoded and decoded into one batch, as a receiver would hand them
    /// to the merger (tests and benches that merge corpus traffic).
    pub fn decoded_batch(&mut self, n: usize) -> Box<crate::record::Batch> {
        let mut decoder = crate::decode::Decoder::new(crate::decode::DecodePolicy::default());
        let (mut stats, mut buf) = (Default::default(), Vec::new());
        let mut batch = Box::<crate::record::Batch>::default();
        for _ in 0..n {
            self.next_datagram(&mut buf);
            decoder.decode(&buf, &mut batch, &mut stats);
        }
        batch
    }

    /// The next request, encoded into `buf` (cleared first; its allocation is reused).
    pub fn next_datagram(&mut self, buf: &mut Vec<u8>) {
        let req = self.next_request();
        buf.clear();
        buf.reserve(req.encoded_len());
        // Encoding into a Vec cannot run out of space: it grows.
        req.encode(buf)
            .expect("encoding into a Vec<u8> never fails");
    }

    /// The next `n` datagrams, each in its own buffer.
    pub fn datagrams(&mut self, n: usize) -> Vec<Vec<u8>> {
        (0..n)
            .map(|_| {
                let mut buf = Vec::new();
                self.next_datagram(&mut buf);
                buf
            })
            .collect()
    }
}

/// The per-request dictionary under construction: each string id gets one index.
struct Dictionary<'a> {
    strings: &'a [Vec<u8>],
    index: &'a mut [u32],
    stamp: &'a mut [u64],
    generation: u64,
    entries: &'a mut Vec<Vec<u8>>,
}

impl Dictionary<'_> {
    /// The dictionary index of string `id`, appending it on first use in this request.
    fn add(&mut self, id: u32) -> u32 {
        let id = id as usize;
        if self.stamp[id] != self.generation {
            self.stamp[id] = self.generation;
            self.index[id] = self.entries.len() as u32;
            self.entries.push(self.strings[id].clone());
        }
        self.index[id]
    }
}

/// Read a replay file: a sequence of records, each a `u32` little-endian length then that many
/// bytes of one datagram. A truncated last record is an `InvalidData` error.
pub fn read_replay(path: &Path) -> io::Result<Vec<Vec<u8>>> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)?.read_to_end(&mut bytes)?;
    let mut datagrams = Vec::new();
    let mut rest = bytes.as_slice();
    while !rest.is_empty() {
        let truncated = || {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{}: truncated replay record after {} datagrams",
                    path.display(),
                    datagrams.len()
                ),
            )
        };
        let (len, tail) = rest.split_first_chunk::<4>().ok_or_else(truncated)?;
        let len = u32::from_le_bytes(*len) as usize;
        if tail.len() < len {
            return Err(truncated());
        }
        let (datagram, tail) = tail.split_at(len);
        datagrams.push(datagram.to_vec());
        rest = tail;
    }
    Ok(datagrams)
}

/// Write a replay file (see [`read_replay`] for the format), replacing any existing file.
pub fn write_replay(path: &Path, datagrams: &[Vec<u8>]) -> io::Result<()> {
    let mut out = BufWriter::new(std::fs::File::create(path)?);
    for d in datagrams {
        write_replay_record(&mut out, d)?;
    }
    out.flush()
}

/// Append one datagram to a replay stream, for writers that generate more datagrams than they
/// want to hold in memory (`pinbad-blast --write-replay`).
pub fn write_replay_record(out: &mut impl Write, datagram: &[u8]) -> io::Result<()> {
    let len = u32::try_from(datagram.len()).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "datagram of 4 GiB or more in a replay file",
        )
    })?;
    out.write_all(&len.to_le_bytes())?;
    out.write_all(datagram)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinct_report_key_sets_all_differ() {
        let defs = distinct_timer_tag_report_defs(1000);
        assert_eq!(defs.len(), 113, "as benches/e2e.sh counts them");
        let mut sets: Vec<Vec<String>> = defs
            .iter()
            .map(|d| {
                let mut k = d.keys.clone();
                k.sort();
                k
            })
            .collect();
        sets.sort();
        sets.dedup();
        assert_eq!(sets.len(), 113);
        assert_eq!(defs[4].keys, ["timer_tag:server"]);
        assert_eq!(
            defs[112].keys,
            [
                "status",
                "schema",
                "timer_tag:group",
                "timer_tag:server",
                "timer_tag:op"
            ]
        );
    }

    fn encoded(spec: CorpusSpec, n: usize) -> Vec<Vec<u8>> {
        Corpus::new(spec).datagrams(n)
    }

    #[test]
    fn same_seed_same_bytes() {
        let spec = CorpusSpec::default();
        assert_eq!(encoded(spec.clone(), 2000), encoded(spec.clone(), 2000));
        let other = CorpusSpec {
            seed: 2,
            ..spec.clone()
        };
        assert_ne!(encoded(spec, 100), encoded(other, 100));
    }

    #[test]
    fn first_values_are_pinned() {
        // Guards reproducibility across versions: change only with intent (tests and stored
        // replay files depend on the sequence).
        let mut rng = SplitMix64::new(0);
        assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(rng.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn prost_round_trip_and_php_shape() {
        let mut corpus = Corpus::new(CorpusSpec::default());
        let mut buf = Vec::new();
        for _ in 0..2000 {
            let req = corpus.next_request();
            buf.clear();
            req.encode(&mut buf).unwrap();
            let back = Request::decode(buf.as_slice()).unwrap();
            assert_eq!(back, req);

            assert_eq!(req.request_count, 0);
            assert!(req.memory_footprint.is_some());
            assert!(matches!(req.status, Some(200 | 301 | 404 | 500)));
            assert!(matches!(
                req.schema.as_deref(),
                None | Some(b"http") | Some(b"https")
            ));
            assert!((0.001..=2.0).contains(&req.request_time));
            assert!(req.requests.is_empty());

            let n = req.timer_value.len();
            assert!((1..=15).contains(&n));
            assert_eq!(req.timer_hit_count.len(), n);
            assert_eq!(req.timer_tag_count.len(), n);
            assert_eq!(req.timer_ru_utime.len(), n);
            assert_eq!(req.timer_ru_stime.len(), n);
            assert!(req.timer_hit_count.iter().all(|&h| h >= 1));
            assert!(req.timer_tag_count.iter().all(|&c| c == 3));
            assert_eq!(req.timer_tag_name.len(), 3 * n);
            assert_eq!(req.timer_tag_value.len(), 3 * n);
            let total: f32 = req.timer_value.iter().sum();
            assert!(
                total <= req.request_time * 1.001,
                "{total} > {}",
                req.request_time
            );

            // Deduplicated dictionary, every index in range.
            let dict = &req.dictionary;
            let mut sorted = dict.clone();
            sorted.sort();
            sorted.dedup();
            assert_eq!(sorted.len(), dict.len(), "duplicate dictionary entries");
            let all = req
                .timer_tag_name
                .iter()
                .chain(&req.timer_tag_value)
                .chain(&req.tag_name)
                .chain(&req.tag_value);
            assert!(all.into_iter().all(|&i| (i as usize) < dict.len()));

            // Request tags and timer tags sorted by name; timers merged (distinct tag sets).
            let names = |ids: &[u32]| {
                ids.iter()
                    .map(|&i| dict[i as usize].clone())
                    .collect::<Vec<_>>()
            };
            assert_eq!(
                names(&req.tag_name),
                vec![b"country".to_vec(), b"lang".to_vec()]
            );
            let mut sets = Vec::new();
            for t in 0..n {
                let tag_names = names(&req.timer_tag_name[3 * t..3 * t + 3]);
                assert_eq!(
                    tag_names,
                    vec![b"group".to_vec(), b"op".to_vec(), b"server".to_vec()]
                );
                sets.push(names(&req.timer_tag_value[3 * t..3 * t + 3]));
            }
            sets.sort();
            sets.dedup();
            assert_eq!(
                sets.len(),
                n,
                "timers with identical tag sets were not merged"
            );
        }
    }

    #[test]
    fn mean_size_is_realistic() {
        let datagrams = encoded(CorpusSpec::default(), 20_000);
        let total: usize = datagrams.iter().map(Vec::len).sum();
        let mean = total as f64 / datagrams.len() as f64;
        let min = datagrams.iter().map(Vec::len).min().unwrap();
        let max = datagrams.iter().map(Vec::len).max().unwrap();
        println!("datagram size: mean {mean:.1} B, min {min} B, max {max} B");
        assert!(
            (400.0..700.0).contains(&mean),
            "mean datagram size {mean:.1} B"
        );
    }

    #[test]
    fn popular_scripts_are_popular() {
        let mut corpus = Corpus::new(CorpusSpec::default());
        let first = corpus.script(0).unwrap().to_vec();
        let hundredth = corpus.script(99).unwrap().to_vec();
        let (mut a, mut b) = (0, 0);
        let mut distinct = std::collections::HashSet::new();
        for _ in 0..50_000 {
            let req = corpus.next_request();
            a += usize::from(req.script_name == first);
            b += usize::from(req.script_name == hundredth);
            distinct.insert(req.script_name);
        }
        assert!(
            a > 10 * b.max(1),
            "rank 0 seen {a} times, rank 99 {b} times"
        );
        assert!(b > 0);
        assert!(distinct.len() > 900, "{} distinct scripts", distinct.len());
    }

    #[test]
    fn names_are_distinct() {
        let spec = CorpusSpec {
            scripts: 5000,
            hosts: 300,
            servers: 40,
            tag_values: 500,
            timer_tags: 9,
            request_tags: 8,
            ..CorpusSpec::default()
        };
        let corpus = Corpus::new(spec);
        for table in [&corpus.scripts, &corpus.hosts, &corpus.servers] {
            let mut t = table.clone();
            t.sort();
            t.dedup();
            assert_eq!(t.len(), table.len());
        }
        for tags in corpus.timer_tags.iter().chain(&corpus.request_tags) {
            let mut v: Vec<_> = tags
                .values
                .iter()
                .map(|&i| &corpus.strings[i as usize])
                .collect();
            v.sort();
            v.dedup();
            assert_eq!(v.len(), 500);
        }
        let mut names: Vec<_> = corpus
            .timer_tags
            .iter()
            .chain(&corpus.request_tags)
            .map(|t| &corpus.strings[t.name as usize])
            .collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), 17);
    }

    #[test]
    fn odd_specs_do_not_panic() {
        let spec = CorpusSpec {
            scripts: 0,
            hosts: 0,
            servers: 0,
            tag_values: 0,
            min_timers: 4,
            max_timers: 0,
            timer_tags: 0,
            request_tags: 0,
            zipf_s: f64::NAN,
            ..CorpusSpec::default()
        };
        let mut corpus = Corpus::new(spec);
        for _ in 0..100 {
            let req = corpus.next_request();
            assert!(req.timer_value.len() <= 4);
            assert!(req.dictionary.is_empty());
        }
    }

    #[test]
    fn zipf_and_below_stay_in_range() {
        let mut rng = SplitMix64::new(7);
        let zipf = Zipf::new(10, 1.2);
        let mut counts = [0usize; 10];
        for _ in 0..100_000 {
            counts[zipf.sample(&mut rng)] += 1;
            assert!(rng.below(3) < 3);
            let f = rng.next_f64();
            assert!((0.0..1.0).contains(&f));
        }
        assert!(counts.windows(2).all(|w| w[0] > w[1]), "{counts:?}");
        let uniform = Zipf::new(4, 0.0);
        assert!((uniform.cdf[1] - 0.5).abs() < 1e-12);
    }

    #[test]
    fn replay_round_trip() {
        let path =
            std::env::temp_dir().join(format!("pinbad-corpus-{}.replay", std::process::id()));
        let datagrams = encoded(CorpusSpec::default(), 100);
        write_replay(&path, &datagrams).unwrap();
        assert_eq!(read_replay(&path).unwrap(), datagrams);
        // A truncated file is an error, not a short read.
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        let err = read_replay(&path).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        std::fs::remove_file(&path).unwrap();
    }
}
