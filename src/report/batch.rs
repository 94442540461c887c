//! A merge round's requests, prepared once for every report.
//!
//! In: request views from the merger (a round's new requests, or the ones leaving the pool),
//! copied with their timers and tags so that they stay readable after the pool reuses their
//! slots. Out: each request's [`Contribution`] and each timer's [`TimerContribution`], computed
//! once rather than once per report, for the update path (`update`), and the views, for the
//! taps. Filled on a merge thread, read by each report under its own lock.

use crate::record::{Record, RequestView, TagPair, Timer};

use super::sums::{Contribution, TimerContribution};

/// Requests prepared once for every report.
///
/// Each request's contribution (and each of its timers') is computed here once, instead of once
/// per report: with many reports, the ns conversions and bucket numbers would otherwise be a
/// large share of the merge. The request is copied (record, timers, tag block), so that it stays
/// readable after the pool reused its slots: the merger collects every request leaving the pool
/// during a round (expired or overwritten) in one batch and the new ones in another, then updates
/// each report in turn with whole batches, which keeps one report's rows in cache for the whole
/// round.
#[derive(Debug, Default)]
pub struct PreparedBatch {
    pub(super) reqs: Vec<PreparedReq>,
    timers: Vec<Timer>,
    pub(super) timer_contribs: Vec<TimerContribution>,
    /// `timer_contribs` with their whole values as samples, made at the first report that asks
    /// for them in the round ([`PreparedBatch::timer_contribs`]): no cost to a round without one.
    whole_timer_contribs: std::sync::OnceLock<Vec<TimerContribution>>,
    tags: Vec<TagPair>,
}

#[derive(Debug)]
pub(super) struct PreparedReq {
    id: u64,
    record: Record,
    pub(super) contrib: Contribution,
    /// Start of its timers in `timers` and `timer_contribs`, and their number.
    timer_start: u32,
    timer_count: u32,
    /// Its tag block in `tags`.
    tag_start: u32,
    tag_len: u32,
    /// The timer tag names its timers carry, as a 64-bit Bloom filter ([`name_bit`]).
    timer_tag_names: u64,
}

/// A tag name's bit in a 64-bit Bloom filter of names.
#[inline]
pub(super) fn name_bit(name: u32) -> u64 {
    1 << ((name.wrapping_mul(0x9E37_79B9) >> 26) & 63)
}

/// One request of a [`PreparedBatch`].
pub(super) struct Prepared<'a> {
    pub(super) view: RequestView<'a>,
    /// See [`PreparedReq::timer_tag_names`].
    pub(super) timer_tag_names: u64,
    pub(super) contrib: &'a Contribution,
    /// One per timer of `view.timers`.
    pub(super) timers: &'a [TimerContribution],
    /// Its position in the batch, and where its timers' contributions start.
    pub(super) index: u32,
    pub(super) timer_start: u32,
}

impl PreparedBatch {
    /// Heap bytes it holds (by capacity): what a tap keeping the round in a queue holds.
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.reqs.capacity() * size_of::<PreparedReq>()
            + self.timers.capacity() * size_of::<Timer>()
            + self.timer_contribs.capacity() * size_of::<TimerContribution>()
            + self
                .whole_timer_contribs
                .get()
                .map_or(0, |w| w.capacity() * size_of::<TimerContribution>())
            + self.tags.capacity() * size_of::<TagPair>()
    }

    /// Adds a copy of `v` with its contributions.
    pub fn push(&mut self, v: &RequestView<'_>) {
        let timer_start = self.timers.len() as u32;
        let tag_start = self.tags.len() as u32;
        self.timers.extend_from_slice(v.timers);
        self.timer_contribs
            .extend(v.timers.iter().map(TimerContribution::of));
        self.tags.extend_from_slice(v.tag_block);
        let timer_tag_names = v.tag_block[v.record.tag_count as usize..]
            .iter()
            .fold(0, |bits, t| bits | name_bit(t.name));
        self.reqs.push(PreparedReq {
            id: v.id,
            record: *v.record,
            contrib: Contribution::of_request(v.record),
            timer_start,
            timer_count: v.timers.len() as u32,
            tag_start,
            tag_len: v.tag_block.len() as u32,
            timer_tag_names,
        });
    }

    pub fn clear(&mut self) {
        self.reqs.clear();
        self.timers.clear();
        self.timer_contribs.clear();
        self.whole_timer_contribs.take();
        self.tags.clear();
    }

    /// The timers' contributions as a report counts them: each timer's `hit_count` samples of
    /// `value / hit_count` (pinbad's, pinba2's), or of its whole value (`whole`: pinba_engine's,
    /// computed once per round for every report that asks).
    pub(super) fn timer_contribs(&self, whole: bool) -> &[TimerContribution] {
        if !whole {
            return &self.timer_contribs;
        }
        self.whole_timer_contribs.get_or_init(|| {
            self.timer_contribs
                .iter()
                .map(TimerContribution::whole_value)
                .collect()
        })
    }

    pub fn len(&self) -> usize {
        self.reqs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.reqs.is_empty()
    }

    /// The requests, as they were pushed (taps read a round through this).
    pub fn views(&self) -> impl Iterator<Item = RequestView<'_>> + '_ {
        self.iter().map(|p| p.view)
    }

    #[inline]
    pub(super) fn iter(&self) -> impl Iterator<Item = Prepared<'_>> + '_ {
        self.iter_range(0..self.reqs.len())
    }

    /// The requests in `range` (a split report's slice of the round, see `split`), each with
    /// its position in the whole batch.
    #[inline]
    pub(super) fn iter_range(
        &self,
        range: std::ops::Range<usize>,
    ) -> impl Iterator<Item = Prepared<'_>> + '_ {
        self.iter_range_with(range, &self.timer_contribs)
    }

    /// [`PreparedBatch::iter_range`] with the timers' contributions `contribs` (one of
    /// [`PreparedBatch::timer_contribs`]).
    #[inline]
    pub(super) fn iter_range_with<'a>(
        &'a self,
        range: std::ops::Range<usize>,
        contribs: &'a [TimerContribution],
    ) -> impl Iterator<Item = Prepared<'a>> + 'a {
        let first = range.start;
        self.reqs[range].iter().enumerate().map(move |(at, p)| {
            let index = first + at;
            let timers = p.timer_start as usize..(p.timer_start + p.timer_count) as usize;
            let tags = p.tag_start as usize..(p.tag_start + p.tag_len) as usize;
            Prepared {
                view: RequestView {
                    id: p.id,
                    record: &p.record,
                    tag_block: &self.tags[tags],
                    timers: &self.timers[timers.clone()],
                },
                timer_tag_names: p.timer_tag_names,
                contrib: &p.contrib,
                timers: &contribs[timers],
                index: index as u32,
                timer_start: p.timer_start,
            }
        })
    }
}
