//! The string dictionary: every hostname, server, script, schema, tag name and tag value becomes a
//! `u32` id, shared by the pool and the reports.
//!
//! In: byte strings from the merger (interning a batch) and from report definitions (tag names and
//! filter values they pin). Out: ids, and the bytes behind an id for the API.
//!
//! Ids are reference-counted: each pooled record holds one reference per string it uses, each report
//! one per string its definition names. When the count drops to zero the entry is freed and its id
//! reused, so a stream of unique URLs cannot grow memory without bound; past
//! `limits.max_dictionary_entries` new strings get [`LOST`] and `dictionary_lost` is counted.
//!
//! Pure: no I/O, no clock, no locks of its own. The app wraps it in one `RwLock`: the merger is the
//! only writer (receivers never intern, so the receive path never waits on it), the API reads.

use rustc_hash::FxHashMap;

/// Id given to a string that could not be interned because the dictionary is full.
pub const LOST: u32 = 0;
/// What the API shows for [`LOST`].
pub const LOST_TEXT: &[u8] = b"<dictionary full>";

#[derive(Debug)]
struct Entry {
    bytes: Box<[u8]>,
    refs: u32,
}

/// Interned strings with reference counts.
#[derive(Debug)]
pub struct Dictionary {
    map: FxHashMap<Box<[u8]>, u32>,
    entries: Vec<Entry>,
    free: Vec<u32>,
    max_entries: usize,
    bytes: usize,
    lost: u64,
}

impl Dictionary {
    /// A dictionary that holds at most `max_entries` live strings.
    pub fn new(max_entries: usize) -> Dictionary {
        let mut d = Dictionary {
            map: FxHashMap::default(),
            entries: Vec::new(),
            free: Vec::new(),
            max_entries,
            bytes: 0,
            lost: 0,
        };
        // id 0 is LOST, permanently referenced, never in the map.
        d.entries.push(Entry {
            bytes: LOST_TEXT.into(),
            refs: 1,
        });
        d
    }

    /// The id of `s`, taking one reference on it. Returns [`LOST`] (and counts it) when `s` is new
    /// and the dictionary is full.
    pub fn intern(&mut self, s: &[u8]) -> u32 {
        if let Some(&id) = self.map.get(s) {
            self.entries[id as usize].refs += 1;
            return id;
        }
        if self.len() >= self.max_entries {
            self.lost += 1;
            return LOST;
        }
        let boxed: Box<[u8]> = s.into();
        self.bytes += boxed.len();
        let entry = Entry {
            bytes: boxed.clone(),
            refs: 1,
        };
        let id = match self.free.pop() {
            Some(id) => {
                self.entries[id as usize] = entry;
                id
            }
            None => {
                self.entries.push(entry);
                (self.entries.len() - 1) as u32
            }
        };
        self.map.insert(boxed, id);
        id
    }

    /// Takes one more reference on a live id.
    pub fn retain(&mut self, id: u32) {
        if id != LOST {
            if let Some(e) = self.entries.get_mut(id as usize) {
                e.refs += 1;
            }
        }
    }

    /// Drops one reference; the entry is freed when none is left.
    pub fn release(&mut self, id: u32) {
        if id == LOST {
            return;
        }
        let Some(e) = self.entries.get_mut(id as usize) else {
            return;
        };
        if e.refs == 0 {
            return;
        }
        e.refs -= 1;
        if e.refs == 0 {
            let bytes = std::mem::take(&mut e.bytes);
            self.bytes -= bytes.len();
            self.map.remove(&bytes);
            self.free.push(id);
        }
    }

    /// The id of `s` if it is interned, without taking a reference.
    pub fn lookup(&self, s: &[u8]) -> Option<u32> {
        self.map.get(s).copied()
    }

    /// The bytes behind `id` (empty for a freed or unknown id).
    pub fn get(&self, id: u32) -> &[u8] {
        self.entries
            .get(id as usize)
            .map(|e| &*e.bytes)
            .unwrap_or(&[])
    }

    /// `get` rendered as UTF-8, invalid sequences replaced.
    pub fn text(&self, id: u32) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(self.get(id))
    }

    /// Live strings (not counting [`LOST`]).
    pub fn len(&self) -> usize {
        self.entries.len() - 1 - self.free.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of live string data (not counting map overhead).
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Strings refused because the dictionary was full, since creation.
    pub fn lost(&self) -> u64 {
        self.lost
    }

    /// References held on `id` (tests and debugging).
    pub fn refs(&self, id: u32) -> u32 {
        self.entries.get(id as usize).map(|e| e.refs).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intern_is_stable_and_counted() {
        let mut d = Dictionary::new(10);
        let a = d.intern(b"/index.php");
        let b = d.intern(b"/index.php");
        assert_eq!(a, b);
        assert_ne!(a, LOST);
        assert_eq!(d.refs(a), 2);
        assert_eq!(d.get(a), b"/index.php");
        assert_eq!(d.len(), 1);
        assert_eq!(d.bytes(), 10);
    }

    #[test]
    fn release_reclaims_and_reuses_ids() {
        let mut d = Dictionary::new(10);
        let a = d.intern(b"a");
        d.retain(a);
        d.release(a);
        assert_eq!(d.lookup(b"a"), Some(a));
        d.release(a);
        assert_eq!(d.lookup(b"a"), None);
        assert_eq!(d.len(), 0);
        assert_eq!(d.bytes(), 0);
        let b = d.intern(b"bb");
        assert_eq!(b, a, "freed id is reused");
        assert_eq!(d.get(b), b"bb");
    }

    #[test]
    fn full_dictionary_gives_lost_and_counts() {
        let mut d = Dictionary::new(2);
        let a = d.intern(b"a");
        d.intern(b"b");
        assert_eq!(d.intern(b"c"), LOST);
        assert_eq!(d.lost(), 1);
        assert_eq!(d.get(LOST), LOST_TEXT);
        assert_eq!(d.intern(b"a"), a, "existing strings still intern when full");
        d.release(LOST); // harmless
        assert_eq!(d.get(LOST), LOST_TEXT);
    }

    #[test]
    fn unique_urls_do_not_grow_memory() {
        let mut d = Dictionary::new(1_000);
        for i in 0..100_000 {
            let id = d.intern(format!("/u/{i}").as_bytes());
            d.release(id);
        }
        assert_eq!(d.len(), 0);
        assert!(d.entries.len() <= 2);
        assert_eq!(d.lost(), 0);
    }
}
