//! Which requests a step keeps: per group (a server, host or script), the `top` slowest, the
//! `top` with the highest memory peak, the `top` with the highest CPU time, and the first
//! `max_errors` of each error status. Pure: figures and group names in, picks out; the writer
//! resolves the names and renders the requests it picks.
//!
//! Each of the three tops is a min-heap of `top` values, so a request costs a comparison with the
//! smallest value kept (and a heap update when it beats it): the writer's cost per request is a
//! few comparisons, whatever the traffic. A request a top takes may later be pushed out by a
//! bigger one; the store keeps the top of what it was given (see `store::Store::write`), so what
//! is stored per group and step is exactly the top of the step.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use rustc_hash::FxHashMap;

use crate::config::Thresholds;

/// The four logs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// The slowest requests (request_time).
    Slow,
    /// The highest memory_peak.
    Memory,
    /// The highest ru_utime + ru_stime.
    Cpu,
    /// Status at least the threshold, the first ones of each status.
    Errors,
}

impl Kind {
    pub const ALL: [Kind; 4] = [Kind::Slow, Kind::Memory, Kind::Cpu, Kind::Errors];

    /// Its name in the API (`/api/v1/request_logs/{kind}`).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Slow => "slow",
            Kind::Memory => "memory",
            Kind::Cpu => "cpu",
            Kind::Errors => "errors",
        }
    }

    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Its code in the store's `kind` column.
    pub fn code(self) -> i64 {
        self as i64
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// What the selection looks at of a request.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Figures {
    /// Seconds.
    pub request_time: f32,
    /// Bytes.
    pub memory_peak: u32,
    /// ru_utime + ru_stime, seconds.
    pub cpu: f32,
    pub status: u32,
}

impl Figures {
    /// What `kind` ranks by: request_time, memory_peak or CPU seconds (the error log ranks by
    /// arrival, and stores request_time).
    pub fn value(&self, kind: Kind) -> f64 {
        match kind {
            Kind::Slow | Kind::Errors => self.request_time.into(),
            Kind::Memory => self.memory_peak.into(),
            Kind::Cpu => self.cpu.into(),
        }
    }
}

/// The logs that took a request: a bit per [`Kind`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Picks(u8);

impl Picks {
    pub fn has(self, kind: Kind) -> bool {
        self.0 & kind.bit() != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn kinds(self) -> impl Iterator<Item = Kind> {
        Kind::ALL.into_iter().filter(move |k| self.has(*k))
    }

    fn add(&mut self, kind: Kind) {
        self.0 |= kind.bit();
    }
}

/// An f64 ordered by `total_cmp`, for the heaps.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Ordered(f64);
impl Eq for Ordered {}
impl PartialOrd for Ordered {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Ordered {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// The `n` largest values seen (a min-heap of them).
#[derive(Debug, Default)]
struct Top {
    heap: BinaryHeap<Reverse<Ordered>>,
}

impl Top {
    /// Takes `v` if it is among the `n` largest so far (a tie with the smallest kept is not:
    /// the earlier request stays, as the store keeps the earlier one of equals).
    fn offer(&mut self, v: f64, n: usize) -> bool {
        if self.heap.len() < n {
            self.heap.push(Reverse(Ordered(v)));
            return true;
        }
        match self.heap.peek() {
            Some(Reverse(min)) if v > min.0 => {
                self.heap.pop();
                self.heap.push(Reverse(Ordered(v)));
                true
            }
            _ => false,
        }
    }
}

/// Error statuses a group tells apart in a step; requests of further statuses are not kept (they
/// are counted as dropped). Clients choose the status: without a bound a client sending every
/// status from 500 to 4 billion would grow a group's map without end.
pub const MAX_ERROR_STATUSES: usize = 64;

/// One status of a group's error log in the step.
#[derive(Debug, Default)]
struct ErrorStatus {
    /// Requests kept.
    kept: usize,
    /// Requests seen and not yet handed to [`Selector::take_error_counts`].
    unsaid: u64,
}

/// One group's logs in the current step.
#[derive(Debug, Default)]
struct Group {
    slow: Top,
    memory: Top,
    cpu: Top,
    errors: FxHashMap<u32, ErrorStatus>,
}

/// The selection of the current step.
pub struct Selector {
    step_ms: u64,
    top: usize,
    max_errors: usize,
    max_groups: usize,
    /// The current step's start (unix ms); `None` before the first request.
    step_start: Option<u64>,
    index: HashMap<Box<str>, usize>,
    names: Vec<Box<str>>,
    groups: Vec<Group>,
    /// Error requests not considered since the last [`Selector::take_dropped`]: their group had
    /// [`MAX_ERROR_STATUSES`] statuses in the step and theirs was another.
    dropped: u64,
}

impl Selector {
    pub fn new(step_ms: u64, top: usize, max_errors: usize, max_groups: usize) -> Selector {
        Selector {
            step_ms: step_ms.max(1),
            top,
            max_errors,
            max_groups,
            step_start: None,
            index: HashMap::new(),
            names: Vec::new(),
            groups: Vec::new(),
            dropped: 0,
        }
    }

    /// Makes the step holding `unix_ms` the current one (a new step starts with empty logs; the
    /// counts not yet taken are lost, so take them first) and returns its start (unix ms).
    pub fn enter(&mut self, unix_ms: u64) -> u64 {
        let start = unix_ms - unix_ms % self.step_ms;
        if self.step_start != Some(start) {
            self.step_start = Some(start);
            self.index.clear();
            self.names.clear();
            self.groups.clear();
        }
        start
    }

    /// The current step's start (unix ms), if any.
    pub fn step_start(&self) -> Option<u64> {
        self.step_start
    }

    /// The group named `name` in the step (made now if new), or `None` when the step has
    /// `max_groups` groups already.
    pub fn group(&mut self, name: &str) -> Option<usize> {
        if let Some(&g) = self.index.get(name) {
            return Some(g);
        }
        if self.groups.len() >= self.max_groups {
            return None;
        }
        let g = self.groups.len();
        self.index.insert(name.into(), g);
        self.names.push(name.into());
        self.groups.push(Group::default());
        Some(g)
    }

    /// A group's name.
    pub fn name(&self, group: usize) -> &str {
        &self.names[group]
    }

    /// Which of `group`'s logs take a request of figures `f` under thresholds `t`. The memory
    /// and CPU logs take only requests that report some (nginx reports no memory).
    pub fn consider(&mut self, group: usize, f: &Figures, t: &Thresholds) -> Picks {
        let (top, max_errors) = (self.top, self.max_errors);
        let g = &mut self.groups[group];
        let mut picks = Picks::default();
        if f.request_time >= t.min_time && g.slow.offer(f.value(Kind::Slow), top) {
            picks.add(Kind::Slow);
        }
        if f.memory_peak > 0
            && u64::from(f.memory_peak) >= t.min_memory
            && g.memory.offer(f.value(Kind::Memory), top)
        {
            picks.add(Kind::Memory);
        }
        if f.cpu > 0.0 && f.cpu >= t.min_cpu && g.cpu.offer(f.value(Kind::Cpu), top) {
            picks.add(Kind::Cpu);
        }
        if f.status >= t.error_status {
            if !g.errors.contains_key(&f.status) && g.errors.len() >= MAX_ERROR_STATUSES {
                self.dropped += 1;
                return picks;
            }
            let e = g.errors.entry(f.status).or_default();
            e.unsaid += 1;
            if e.kept < max_errors {
                e.kept += 1;
                picks.add(Kind::Errors);
            }
        }
        picks
    }

    /// The error requests not considered since the last call (see [`MAX_ERROR_STATUSES`]).
    pub fn take_dropped(&mut self) -> u64 {
        std::mem::take(&mut self.dropped)
    }

    /// The error requests seen since the last call, as `(group, status, count)`.
    pub fn take_error_counts(&mut self) -> Vec<(Box<str>, u32, u64)> {
        let mut out = Vec::new();
        for (g, group) in self.groups.iter_mut().enumerate() {
            for (status, e) in group.errors.iter_mut() {
                if e.unsaid > 0 {
                    out.push((
                        self.names[g].clone(),
                        *status,
                        std::mem::take(&mut e.unsaid),
                    ));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(min_time: f32, error_status: u32) -> Thresholds {
        Thresholds {
            min_time,
            min_memory: 0,
            min_cpu: 0.0,
            error_status,
        }
    }

    fn slow(s: f32) -> Figures {
        Figures {
            request_time: s,
            status: 200,
            ..Figures::default()
        }
    }

    /// What the store ends up with when it keeps the top of everything picked: the top `n` of
    /// the step by value, the earlier first among equals.
    fn kept(picked: &[(usize, f64)], n: usize) -> Vec<usize> {
        let mut v = picked.to_vec();
        v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut ids: Vec<usize> = v.into_iter().take(n).map(|(i, _)| i).collect();
        ids.sort();
        ids
    }

    /// Over a random stream, what is picked holds the exact top of each group and step (what
    /// the store keeps of it), the thresholds are honoured, and a new step starts afresh.
    #[test]
    fn picks_hold_the_top_of_each_group_and_step() {
        let mut s = Selector::new(60_000, 3, 2, 100);
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        // (step, group) → picked (request index, value); and every request's value.
        let mut picked: HashMap<(u64, usize), Vec<(usize, f64)>> = HashMap::new();
        let mut all: HashMap<(u64, usize), Vec<(usize, f64)>> = HashMap::new();
        for i in 0..5000usize {
            let now = 1_000_000 + (i as u64) * 50; // 250 s: five steps
            let step = s.enter(now);
            let name = ["a", "b", "c"][(next() % 3) as usize];
            let g = s.group(name).unwrap();
            let secs = (next() % 10_000) as f32 / 1000.0;
            let p = s.consider(g, &slow(secs), &t(1.0, 500));
            assert!(!p.has(Kind::Memory) && !p.has(Kind::Cpu) && !p.has(Kind::Errors));
            if secs >= 1.0 {
                all.entry((step, g)).or_default().push((i, secs as f64));
            } else {
                assert!(!p.has(Kind::Slow), "below min_time: {secs}");
            }
            if p.has(Kind::Slow) {
                picked.entry((step, g)).or_default().push((i, secs as f64));
            }
        }
        assert_eq!(all.len(), 5 * 3, "5 steps (1000 s to 1250 s) × 3 groups");
        for (key, every) in &all {
            assert_eq!(kept(&picked[key], 3), kept(every, 3), "{key:?}");
        }
    }

    #[test]
    fn errors_keep_the_first_of_each_status_and_count_all() {
        let mut s = Selector::new(1000, 1, 2, 1);
        s.enter(5_500);
        let g = s.group("api").unwrap();
        assert_eq!(s.group("other"), None, "max_groups");
        let mut errors = 0;
        for status in [500, 502, 500, 500, 404, 502, 503] {
            let f = Figures {
                status,
                ..slow(0.1)
            };
            errors += usize::from(s.consider(g, &f, &t(10.0, 500)).has(Kind::Errors));
        }
        assert_eq!(errors, 2 + 2 + 1, "500 ×2, 502 ×2, 503");
        let mut counts = s.take_error_counts();
        counts.sort();
        let want: Vec<(Box<str>, u32, u64)> = vec![
            ("api".into(), 500, 3),
            ("api".into(), 502, 2),
            ("api".into(), 503, 1),
        ];
        assert_eq!(counts, want);
        assert!(s.take_error_counts().is_empty(), "taken");
        // A new step: the first ones again.
        s.enter(6_000);
        let g = s.group("api").unwrap();
        let f = Figures {
            status: 500,
            ..slow(0.1)
        };
        let mut errors_only = Picks::default();
        errors_only.add(Kind::Errors);
        assert_eq!(s.consider(g, &f, &t(10.0, 500)), errors_only);
        // Past MAX_ERROR_STATUSES statuses, an error of another is counted, not considered as
        // an error (the other logs still take it).
        for status in 501..500 + MAX_ERROR_STATUSES as u32 {
            let f = Figures {
                status,
                ..slow(0.1)
            };
            s.consider(g, &f, &t(10.0, 500));
        }
        assert_eq!(s.take_dropped(), 0);
        let f = Figures {
            status: 999,
            ..slow(20.0)
        };
        let p = s.consider(g, &f, &t(10.0, 500));
        assert!(p.has(Kind::Slow) && !p.has(Kind::Errors), "{p:?}");
        assert_eq!(s.take_dropped(), 1);
    }

    #[test]
    fn memory_and_cpu_take_only_requests_that_report_them() {
        let mut s = Selector::new(1000, 2, 2, 10);
        s.enter(0);
        let g = s.group("x").unwrap();
        let th = Thresholds {
            min_memory: 1 << 20,
            ..t(0.0, 500)
        };
        let f = |memory_peak, cpu| Figures {
            memory_peak,
            cpu,
            ..slow(0.1)
        };
        let pick = |s: &mut Selector, fig| s.consider(g, &fig, &th);
        let p = pick(&mut s, f(0, 0.0));
        assert!(p.has(Kind::Slow) && !p.has(Kind::Memory) && !p.has(Kind::Cpu));
        let p = pick(&mut s, f(1000, 0.5));
        assert!(!p.has(Kind::Memory) && p.has(Kind::Cpu), "below min_memory");
        let p = pick(&mut s, f(2 << 20, 0.2));
        assert!(p.has(Kind::Memory) && p.has(Kind::Cpu));
        let p = pick(&mut s, f(3 << 20, 0.1));
        assert!(
            p.has(Kind::Memory) && !p.has(Kind::Cpu),
            "the CPU top is 0.5, 0.2"
        );
    }
}
