//! Interning: a batch's decoded requests become pool records, every string a dictionary id.
//!
//! Receivers intern the batches they fill before handing them over ([`Interned::intern_batch`],
//! under a shared lock on the dictionary: finding a known string only stamps it, and the write
//! lock is taken for a new string alone), so that the merger, the one thread on every packet's
//! path, only stores their records into the pool. The merger interns what no receiver did: the
//! raw batches queued while it was not running, and batches made by tests and benches
//! ([`Interned::intern`], under its upgradable lock, [`SharedInterner`]).
//!
//! Each request's own string table (the datagram's dictionary) is resolved once per entry
//! (`local_ids`): the first level of caching, which a PHP request's repeated tag names and
//! values make worth most of the lookups. The `[[rewrite]]` rules apply before interning.

use std::sync::Arc;

use parking_lot::{RwLock, RwLockReadGuard, RwLockUpgradableReadGuard, RwLockWriteGuard};

use crate::dictionary::{Dictionary, Intern};
use crate::record::{Batch, InternedRequest, InternedRequests, Record, TagPair, Timer, NO_SCHEMA};
use crate::rewrite::{Names, Rewriter};

/// A batch's requests interned, waiting to be stored, and what interning them needs. Reused
/// across batches (one per receiver, one in the merger).
#[derive(Default)]
pub struct Interned {
    /// What this interner interned and has not handed on yet (the merger's: its round's raw
    /// batches; a receiver's goes into each batch instead).
    out: InternedRequests,
    /// Per request: the dictionary id of each of its local dictionary entries (`UNSET` if unused).
    local_ids: Vec<u32>,
    /// The `[[rewrite]]` rules, applied to each request's names before they are interned (none:
    /// no rules, names interned as received).
    rewrite: Option<Rewriter>,
    /// The dictionary's generation when this interner last looked (see
    /// [`Dictionary::generation`]): ids the rewrite rules cached are dropped when it moves.
    generation: u64,
}

const UNSET: u32 = u32::MAX;

impl Interned {
    /// Interning that applies `rules` first (see `rewrite`).
    pub fn with_rewrite(rules: Arc<crate::rewrite::Rules>) -> Interned {
        Interned {
            rewrite: Rewriter::new(rules),
            ..Interned::default()
        }
    }

    /// The dictionary freed strings: ids the rewrite rules cached are interned again when next
    /// used (see `rewrite::Rewriter`).
    pub fn dictionary_swept(&mut self) {
        if let Some(rw) = &mut self.rewrite {
            rw.dictionary_swept();
        }
    }

    /// Adds the rules' hits counted since the last call to the shared counters.
    pub fn flush_rewrite_hits(&mut self) {
        if let Some(rw) = &mut self.rewrite {
            rw.flush();
        }
    }

    pub fn len(&self) -> usize {
        self.out.len()
    }

    pub fn is_empty(&self) -> bool {
        self.out.is_empty()
    }

    pub fn clear(&mut self) {
        self.out.clear();
    }

    /// The requests interned so far.
    pub fn output(&self) -> &InternedRequests {
        &self.out
    }

    /// The interned requests in order, each as its record, timers and tag block (for benches
    /// that store them at times of their own).
    pub fn requests(&self) -> impl Iterator<Item = (&Record, &[Timer], &[TagPair])> + '_ {
        let out = &self.out;
        out.requests.iter().map(|p| {
            (
                &p.record,
                &out.timers[p.timers.clone()],
                &out.tags[p.tags.clone()],
            )
        })
    }

    /// Interns every request of `batch` at time `now_ms` (each string looked up once per request;
    /// the dictionary stamps it as used now, see [`Dictionary::sweep`]), after the `[[rewrite]]`
    /// rules: a request a rule drops is not interned at all.
    pub fn intern<D: Intern>(&mut self, batch: &Batch, now_ms: u32, dict: &mut D) {
        let Interned {
            out,
            local_ids,
            rewrite,
            ..
        } = self;
        intern_into(batch, now_ms, dict, local_ids, rewrite, out);
    }

    /// Interns every request of `batch` as [`Interned::intern`] does, into the batch's own
    /// [`InternedRequests`] (marked done): what a receiver does before it hands a batch over,
    /// under a shared lock on `dictionary` (see [`ReadInterner`]). The requests' time is the
    /// merger's to set, when it stores them (one instant for the pool and the reports). Strings freed since
    /// this interner last looked (the dictionary's generation moved) drop its cached ids first.
    pub fn intern_batch(&mut self, batch: &mut Batch, dictionary: &RwLock<Dictionary>) {
        let mut out = std::mem::take(&mut batch.interned);
        out.clear();
        {
            let dict = dictionary.read();
            if dict.generation() != self.generation {
                self.generation = dict.generation();
                self.dictionary_swept();
            }
            let mut reader = ReadInterner(dict);
            intern_into(
                batch,
                0,
                &mut reader,
                &mut self.local_ids,
                &mut self.rewrite,
                &mut out,
            );
        }
        out.done = true;
        batch.interned = out;
        self.flush_rewrite_hits();
    }
}

/// The body of [`Interned::intern`], over the parts of an [`Interned`] it uses, so that its
/// output can be a batch's own.
fn intern_into<D: Intern>(
    batch: &Batch,
    now_ms: u32,
    dict: &mut D,
    local_ids: &mut Vec<u32>,
    rewrite: &mut Option<Rewriter>,
    out: &mut InternedRequests,
) {
    {
        let InternedRequests {
            requests: pending,
            timers,
            tags,
            ..
        } = out;
        for req in &batch.requests {
            let names = match rewrite {
                None => Names::plain(batch, req, dict),
                Some(rw) => match rw.request(batch, req, dict) {
                    Some(names) => names,
                    None => continue,
                },
            };
            local_ids.clear();
            local_ids.resize(req.dictionary.len as usize, UNSET);
            let mut local = |index: u32, dict: &mut D| -> u32 {
                let slot = &mut local_ids[index as usize];
                if *slot == UNSET {
                    *slot = dict.intern(batch.dictionary_entry(req, index));
                }
                *slot
            };
            let tags_start = tags.len();
            for (k, t) in batch.tags_of(req).iter().enumerate() {
                let name = local(t.name, dict);
                let value = match names.tag_value(k) {
                    Some(id) => id,
                    None => local(t.value, dict),
                };
                tags.push(TagPair { name, value });
            }
            let timers_start = timers.len();
            let mut k = 0;
            for timer in batch.timers_of(req) {
                let timer_tags = batch.timer_tags_of(timer);
                for t in timer_tags {
                    let name = local(t.name, dict);
                    let value = match names.timer_tag_value(k) {
                        Some(id) => id,
                        None => local(t.value, dict),
                    };
                    k += 1;
                    tags.push(TagPair { name, value });
                }
                timers.push(Timer {
                    value: timer.value,
                    ru_utime: timer.ru_utime,
                    ru_stime: timer.ru_stime,
                    hit_count: timer.hit_count,
                    tag_count: timer_tags.len() as u16,
                });
            }
            let record = Record {
                time_ms: now_ms,
                hostname: names.hostname,
                server_name: names.server_name,
                script_name: names.script_name,
                schema: req
                    .schema
                    .map_or(NO_SCHEMA, |s| dict.intern(batch.bytes_of(s))),
                request_count: req.request_count,
                document_size: req.document_size,
                memory_peak: req.memory_peak,
                memory_footprint: req.memory_footprint,
                status: req.status,
                request_time: req.request_time,
                ru_utime: req.ru_utime,
                ru_stime: req.ru_stime,
                tag_count: req.tags.len as u16,
                ..Record::default()
            };
            pending.push(InternedRequest {
                record,
                timers: timers_start..timers.len(),
                tags: tags_start..tags.len(),
            });
        }
    }
}

/// The dictionary as a round's interning holds it: shared (an upgradable read lock: queries
/// read the dictionary meanwhile, and finding a string only stamps it) until the first new
/// string, then written for the rest of the round (one wait for readers per round at most, as
/// before, and only in rounds that bring new strings).
pub enum SharedInterner<'a> {
    Core(RwLockUpgradableReadGuard<'a, Dictionary>),
    Written(RwLockWriteGuard<'a, Dictionary>),
    /// Only while switching from one to the other.
    Switching,
}

impl SharedInterner<'_> {
    pub fn get(&self) -> &Dictionary {
        match self {
            SharedInterner::Core(g) => g,
            SharedInterner::Written(g) => g,
            SharedInterner::Switching => unreachable!("only inside `intern`"),
        }
    }
}

impl Intern for SharedInterner<'_> {
    #[inline]
    fn intern(&mut self, s: &[u8]) -> u32 {
        if let SharedInterner::Core(g) = self {
            if let Some(id) = g.find_and_stamp(s) {
                return id;
            }
            let SharedInterner::Core(g) = std::mem::replace(self, SharedInterner::Switching) else {
                unreachable!("matched above")
            };
            *self = SharedInterner::Written(RwLockUpgradableReadGuard::upgrade(g));
        }
        match self {
            SharedInterner::Written(g) => g.intern(s),
            _ => unreachable!("written above"),
        }
    }

    #[inline]
    fn stamp(&mut self, id: u32) {
        self.get().stamp(id)
    }
}

/// The dictionary as a receiver's interning holds it: shared, so that receivers intern in
/// parallel and queries read meanwhile; a new string takes the write lock for its insertion
/// alone, the shared lock released meanwhile (so that a receiver never holds both, and the
/// write waits only for the other receivers' current batch).
pub struct ReadInterner<'a>(pub RwLockReadGuard<'a, Dictionary>);

impl Intern for ReadInterner<'_> {
    #[inline]
    fn intern(&mut self, s: &[u8]) -> u32 {
        if let Some(id) = self.0.find_and_stamp(s) {
            return id;
        }
        let lock = RwLockReadGuard::rwlock(&self.0);
        RwLockReadGuard::unlocked(&mut self.0, || lock.write().intern(s))
    }

    #[inline]
    fn stamp(&mut self, id: u32) {
        self.0.stamp(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::{Corpus, CorpusSpec};

    /// A round's interning reads the dictionary shared while every string is known (a query
    /// holding a read lock meanwhile does not block it, and the strings are stamped as used,
    /// so a sweep keeps them), and writes it from the first new string on.
    #[test]
    fn interning_known_strings_shares_the_dictionary_with_readers() {
        let lock = parking_lot::RwLock::new(Dictionary::new(100));
        let (a, b) = {
            let mut d = lock.write();
            d.set_now(5);
            (d.intern(b"a"), d.intern(b"b"))
        };
        let reader = lock.read();
        {
            let d = lock.upgradable_read();
            d.set_now(9);
            let mut shared = SharedInterner::Core(d);
            assert_eq!(Intern::intern(&mut shared, b"a"), a);
            assert!(
                matches!(shared, SharedInterner::Core(_)),
                "known: no write lock"
            );
            assert_eq!(reader.lookup(b"a"), Some(a), "the reader reads meanwhile");
            drop(reader);
            let c = Intern::intern(&mut shared, b"c");
            assert!(matches!(shared, SharedInterner::Written(_)), "new: written");
            assert_eq!(shared.get().get(c), b"c");
            assert_eq!(Intern::intern(&mut shared, b"b"), b);
        }
        let mut d = lock.write();
        assert_eq!(d.sweep(9), 0, "a, b and c were stamped at 9");
        assert_eq!(d.sweep(10), 3);
    }

    /// A receiver's interning (shared lock, new strings written one at a time) gives the
    /// records, timers and tags the merger's gives for the same batch (but the time, which the
    /// merger sets as it stores them).
    #[test]
    fn a_receivers_interning_equals_the_mergers() {
        let mut corpus = Corpus::new(CorpusSpec::default());
        let mut batch = corpus.decoded_batch(500);
        let by_merger = {
            let mut d = Dictionary::new(1 << 20);
            let mut interned = Interned::default();
            interned.intern(&batch, 77, &mut d);
            interned
                .requests()
                .map(|r| as_text(&d, r))
                .collect::<Vec<_>>()
        };
        let lock = RwLock::new(Dictionary::new(1 << 20));
        let mut receiver = Interned::default();
        receiver.intern_batch(&mut batch, &lock);
        assert!(batch.interned.done);
        assert_eq!(batch.interned.len(), 500);
        let d = lock.read();
        let out = &batch.interned;
        let by_receiver: Vec<_> = out
            .requests
            .iter()
            .map(|r| {
                let record = Record {
                    time_ms: 77,
                    ..r.record
                };
                as_text(
                    &d,
                    (
                        &record,
                        &out.timers[r.timers.clone()],
                        &out.tags[r.tags.clone()],
                    ),
                )
            })
            .collect();
        assert_eq!(by_receiver.len(), 500);
        assert_eq!(by_receiver, by_merger);
    }

    /// A request as its dictionary's strings (two dictionaries number strings in their own
    /// order): its record with the names cleared, the names, its timers and its tags.
    fn as_text(d: &Dictionary, (r, timers, tags): (&Record, &[Timer], &[TagPair])) -> String {
        let names = [r.hostname, r.server_name, r.script_name].map(|id| d.text(id).into_owned());
        let schema = (r.schema != NO_SCHEMA).then(|| d.text(r.schema).into_owned());
        let bare = Record {
            hostname: 0,
            server_name: 0,
            script_name: 0,
            schema: 0,
            ..*r
        };
        format!(
            "{bare:?} {names:?} {schema:?} {timers:?} {:?}",
            texts(d, tags)
        )
    }

    /// Tag pairs as (name, value) strings.
    fn texts(d: &Dictionary, tags: &[TagPair]) -> Vec<(String, String)> {
        tags.iter()
            .map(|t| (d.text(t.name).into_owned(), d.text(t.value).into_owned()))
            .collect()
    }

    /// A sweep that frees strings moves the generation, and a receiver's interner that sees
    /// the move drops what its rewrite rules cached; one that freed nothing leaves it.
    #[test]
    fn sweeps_that_free_strings_move_the_generation() {
        let lock = RwLock::new(Dictionary::new(100));
        let g0 = lock.read().generation();
        {
            let mut d = lock.write();
            d.set_now(5);
            d.intern(b"old");
            assert_eq!(d.sweep(5), 0);
        }
        assert_eq!(lock.read().generation(), g0, "nothing freed: no move");
        assert_eq!(lock.write().sweep(6), 1);
        assert!(lock.read().generation() > g0);
    }
}
