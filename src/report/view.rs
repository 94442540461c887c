//! How a query reads a report: each row as its part in the window's closed part plus its part in
//! the open tick, read together, no merged row built.
//!
//! In: a report under its read lock, as a [`View`]. Out: rows and totals as [`RowRef`]s, which
//! `query` filters, sorts and renders. Read-only: a query never changes the report it reads (its
//! histogram log included, see `hist_log`).

#[cfg(test)]
use std::borrow::Cow;

use crate::histogram::Histogram;

use super::def::MAX_KEYS;
use super::hist_log::PendingHists;
use super::live::Report;
use super::rows::{Row, NO_SLOT};
use super::sums::Sums;

/// A row's parts: its row in the window's closed part and in the open tick (see
/// [`View::parts`]).
type RowParts<'a> = [Option<&'a Row>; 2];

/// A row of a query: the window's closed part, the open tick, and samples of the open tick still
/// in the histogram log, summed on read.
#[derive(Clone, Copy, Debug)]
pub(super) struct RowRef<'a> {
    pub(super) sums: Sums,
    closed: Option<&'a Histogram>,
    /// The open tick's histogram, `None` once `pending` stands for it.
    pub(super) open: Option<&'a Histogram>,
    /// The open tick's histogram with its samples still in the report's histogram log (see
    /// [`PendingHists`]): set only for the rows a query reads percentiles of.
    pub(super) pending: Option<&'a Histogram>,
    /// The open row's slot (its samples' address in the histogram log), [`NO_SLOT`] if none.
    pub(super) open_slot: u32,
}

impl<'a> RowRef<'a> {
    pub(super) fn of(closed: Option<&'a Row>, open: Option<&'a Row>) -> RowRef<'a> {
        let mut sums = closed.map(|r| r.sums).unwrap_or_default();
        if let Some(o) = open {
            sums.add(&o.sums);
        }
        RowRef {
            sums,
            closed: closed.map(|r| &r.hist),
            open: open.map(|r| &r.hist),
            pending: None,
            open_slot: open.map_or(NO_SLOT, |r| r.slot),
        }
    }

    /// The row with its samples still in the histogram log, if it has any: its open
    /// histogram read from `pending` instead.
    pub(super) fn with_pending(mut self, pending: &'a PendingHists) -> RowRef<'a> {
        if let Some(h) = pending.of_slot(self.open_slot) {
            self.pending = Some(h);
            self.open = None;
        }
        self
    }

    /// The `p`-th percentile of the row in nanoseconds (the parts read together, nothing
    /// built).
    pub(super) fn percentile_ns(&self, p: f64) -> Option<f64> {
        if self.pending.is_some() {
            let mut out = Vec::with_capacity(1);
            self.percentiles_ns(&[p], &mut out);
            return out[0];
        }
        match (self.closed, self.open) {
            (Some(a), Some(b)) => crate::histogram::percentile_ns_of_sum(a, b, p),
            (Some(h), None) | (None, Some(h)) => h.percentile_ns(p),
            (None, None) => None,
        }
    }

    /// Several percentiles at once, in one walk over the parts' buckets (see
    /// [`crate::histogram::percentiles_ns_of_sum`]).
    pub(super) fn percentiles_ns(&self, ps: &[f64], out: &mut Vec<Option<f64>>) {
        let parts: [Option<&Histogram>; 3] = [self.closed, self.open, self.pending];
        let mut hists: [&Histogram; 3] = [&EMPTY_HISTOGRAM; 3];
        let mut n = 0;
        for h in parts.into_iter().flatten() {
            hists[n] = h;
            n += 1;
        }
        if n == 0 {
            out.clear();
            out.resize(ps.len(), None);
            return;
        }
        crate::histogram::percentiles_ns_of_sum(&hists[..n], ps, out);
    }

    /// The row's histogram (merged only when both parts hold samples); tests compare rows by it.
    #[cfg(test)]
    pub(super) fn hist(&self) -> Cow<'a, Histogram> {
        match (self.closed, self.open) {
            (Some(c), Some(o)) if !o.is_empty() && !c.is_empty() => {
                let mut h = c.clone();
                h.add_hist(o);
                Cow::Owned(h)
            }
            (Some(c), Some(o)) if c.is_empty() => Cow::Borrowed(o),
            (Some(c), _) => Cow::Borrowed(c),
            (None, Some(o)) => Cow::Borrowed(o),
            (None, None) => Cow::Owned(Histogram::new()),
        }
    }
}

/// Fills the unused places of [`RowRef::percentiles_ns`]'s parts.
static EMPTY_HISTOGRAM: Histogram = Histogram::new();

/// A report as a query reads it: each row's closed part and open tick, and (through
/// [`RowRef::with_pending`]) its samples still in the histogram log. Derefs to the report, so the
/// query code reads the report's fields as its own.
#[derive(Clone, Copy)]
pub(crate) struct View<'r> {
    pub(super) report: &'r Report,
}

impl std::ops::Deref for View<'_> {
    type Target = Report;
    fn deref(&self) -> &Report {
        self.report
    }
}

impl<'r> View<'r> {
    /// Every row with its key ids: the closed part and the open tick summed.
    pub(super) fn items(&self) -> impl Iterator<Item = (&'r [u32], RowRef<'r>)> + 'r {
        self.parts().map(|(k, [a, o])| (k, RowRef::of(a, o)))
    }

    /// [`View::items`] before its parts are summed: each row's key and its rows in the closed
    /// part and the open tick.
    fn parts(&self) -> impl Iterator<Item = (&'r [u32], RowParts<'r>)> + 'r {
        self.parts_by(|_| 0).map(|(_, k, parts)| (k, parts))
    }

    /// [`View::parts`], each row with `value` of its parts' sums added (saturating): a query
    /// sorted by a sum reads the one sum it sorts by this way and sums the rest only for the
    /// rows it keeps.
    ///
    /// Both tables are walked in their own order, never looked up: the open rows first, each
    /// put with its value in an array by slot, then each closed-part row finds its open part
    /// there through its link (`Row::link`). Looking each closed-part row's key up in the open
    /// table, or reading its open row's sums, would be a cache miss per row under load (a query
    /// walks every row).
    pub(super) fn parts_by(
        &self,
        value: impl Fn(&Sums) -> u128 + 'r,
    ) -> impl Iterator<Item = (u128, &'r [u32], RowParts<'r>)> + 'r {
        let r = self.report;
        let n = r.keys.len();
        let mut by_slot: Vec<(u128, Option<&'r Row>)> = vec![(0, None); r.open_slots as usize];
        let mut only_open = Vec::with_capacity(r.open_only);
        for (k, o) in r.open.iter(n) {
            let v = value(&o.sums);
            if o.only_open {
                only_open.push((v, k, [None, Some(o)]));
            } else if let Some(at) = by_slot.get_mut(o.slot as usize) {
                *at = (v, Some(o));
            }
        }
        let gen = r.open_gen;
        r.agg
            .iter(n)
            .map(move |(k, a)| {
                let (v, open) = match by_slot.get(a.slot as usize) {
                    Some(&at) if a.link == gen => at,
                    _ => (0, None),
                };
                (value(&a.sums).saturating_add(v), k, [Some(a), open])
            })
            .chain(only_open)
    }

    /// The totals of the window.
    pub(super) fn totals(&self) -> RowRef<'r> {
        let r = self.report;
        RowRef::of(Some(&r.agg_totals), Some(&r.open_totals))
    }

    /// The "(other)" row as [`View::parts_by`] gives rows (its key [`OTHER_KEY`]), when it holds
    /// anything.
    pub(super) fn other_parts(
        &self,
        value: impl Fn(&Sums) -> u128,
    ) -> Option<(u128, &'r [u32], RowParts<'r>)> {
        let r = self.report;
        let (a, o) = (&r.agg_other, &r.open_other);
        if a.sums == Sums::default() && o.sums == Sums::default() {
            return None;
        }
        let v = value(&a.sums).saturating_add(value(&o.sums));
        Some((v, &OTHER_KEY[..r.keys.len()], [Some(a), Some(o)]))
    }

    /// The "(other)" row as [`View::items`] gives rows, when it holds anything.
    pub(super) fn other_item(&self) -> Option<(&'r [u32], RowRef<'r>)> {
        self.other_parts(|_| 0)
            .map(|(_, k, [a, o])| (k, RowRef::of(a, o)))
    }
}

/// The key ids a query's "(other)" row carries: told from a real row's by where they are
/// ([`is_other`]), not by their values (a `status` key can be any number).
static OTHER_KEY: [u32; MAX_KEYS] = [u32::MAX; MAX_KEYS];

/// Whether a query's row key is the "(other)" row's ([`OTHER_KEY`]).
pub(super) fn is_other(key: &[u32]) -> bool {
    std::ptr::eq(key.as_ptr(), OTHER_KEY.as_ptr())
}

impl Report {
    /// Every row of the window with its key ids: the closed part and the open tick summed, each
    /// closed-part row's open part looked up by key (what [`View::parts`] finds by link; the
    /// tests compare the two).
    #[cfg(test)]
    pub(super) fn items(&self) -> impl Iterator<Item = (&[u32], RowRef<'_>)> + '_ {
        let n = self.keys.len();
        let (agg, open) = (&self.agg, &self.open);
        agg.iter(n)
            .map(move |(k, r)| (k, RowRef::of(Some(r), open.get(k))))
            .chain(
                open.iter(n)
                    .filter(|(_, o)| o.only_open)
                    .map(|(k, r)| (k, RowRef::of(None, Some(r)))),
            )
    }

    /// The totals of the window.
    #[cfg(test)]
    pub(super) fn totals(&self) -> RowRef<'_> {
        RowRef::of(Some(&self.agg_totals), Some(&self.open_totals))
    }
}
