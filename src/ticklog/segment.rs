//! The tick log's files: segments in `{state_dir}/ticklog/`, each a header and records, appended
//! and never rewritten.
//!
//! Format (little-endian): a header (magic, [`VERSION`], the clock's epoch in Unix ms: the
//! ticks' times are milliseconds since it), then records, each its payload's length (u32), the
//! payload's CRC-32 (u32) and the payload: a [`Kind`] byte and its body.
//! - [`Kind::Strings`]: dictionary strings the ticks after it name by id (count, then id, length
//!   and bytes each): each id the segment uses, once, before its first use.
//! - [`Kind::Report`]: a report the ticks after it refer to by number: its number, name,
//!   definition (JSON), window (history, tick, ticks, phase: ms) and `complete_from` (ms).
//! - [`Kind::Tick`]: a report's number and the tick's, then the tick as the snapshot writes a
//!   window's ticks (`ClosedTick::write`), LZ4-compressed (a block: the tick's length (u32),
//!   then the compressed bytes' length (u64) and the bytes).
//!
//! A crash may cut the last record: a reader stops a segment at the first record whose length
//! or checksum is wrong, keeping what came before. A new segment starts at each start of the
//! daemon and every quarter of the longest window, so that one id names one string within a
//! segment (the dictionary reuses an id only once its string was unused for longer than the
//! longest window) and whole segments leave with the window.

use std::fs::File;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use crate::codec::{Reader, SnapshotError, Writer};

/// The log's directory in `state_dir`.
pub const DIR: &str = "ticklog";
const MAGIC: &[u8; 8] = b"PINBADTL";
/// The format's version. 2: a tick carries its "(other)" row (the snapshot's version 5 tick).
/// 3: its rows' sums carry the memory_peak sum and largest (the snapshot's version 6 tick).
/// Segments of versions 2 and 3 are read; of another, not.
pub const VERSION: u32 = 3;
/// The oldest version read.
const OLDEST_VERSION: u32 = 2;
const HEADER_BYTES: usize = MAGIC.len() + 4 + 8;
/// The earliest clock epoch a header may hold (2020-01-01, before any pinbad ran): the epoch is
/// a run's start by the wall clock, so one outside this and a day past the wall clock now is a
/// damaged header, refused rather than taken for another run's segment.
const EPOCH_FLOOR_MS: u64 = 1_577_836_800_000;
/// How far past the wall clock a header's epoch may be (a clock set back since).
const EPOCH_AHEAD_MS: u64 = 86_400_000;
/// A record's length and checksum.
pub const FRAME_BYTES: usize = 8;
/// The largest record read back (a tick of millions of rows is tens of MB): a length beyond it is
/// damage, not an allocation.
const MAX_RECORD_BYTES: usize = 1 << 31;

/// What a record holds (its first byte).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Strings = 1,
    Report = 2,
    Tick = 3,
}

impl Kind {
    fn of(byte: u8) -> Option<Kind> {
        [Kind::Strings, Kind::Report, Kind::Tick]
            .into_iter()
            .find(|k| *k as u8 == byte)
    }
}

/// The file name of segment number `seq` (names sort as numbers do).
pub fn name(seq: u64) -> String {
    format!("ticks-{seq:016}.log")
}

/// The segments in `dir`, oldest (lowest number) first; none when the directory does not exist.
pub fn list(dir: &Path) -> std::io::Result<Vec<(u64, PathBuf)>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry?;
        let file = entry.file_name();
        let seq = file
            .to_str()
            .and_then(|n| n.strip_prefix("ticks-")?.strip_suffix(".log"))
            .and_then(|n| n.parse::<u64>().ok());
        if let Some(seq) = seq {
            out.push((seq, entry.path()));
        }
    }
    out.sort();
    Ok(out)
}

/// A segment being written (by the tick log's thread).
pub struct SegmentFile {
    file: std::io::BufWriter<File>,
    pub path: PathBuf,
    pub seq: u64,
    /// Bytes in the file, header included.
    pub bytes: u64,
}

/// Encodes one record's payload of `kind` into `payload` (`body` writes its body) and returns
/// the record's size framed; [`SegmentFile::append`] writes it.
pub fn encode(
    payload: &mut Vec<u8>,
    kind: Kind,
    body: impl FnOnce(&mut Writer<&mut Vec<u8>>) -> std::io::Result<()>,
) -> std::io::Result<u64> {
    payload.clear();
    let mut w = Writer::with_capacity(payload, 4096);
    w.bytes(&[kind as u8])?;
    body(&mut w)?;
    let (_, _, len) = w.finish()?;
    Ok(len + FRAME_BYTES as u64)
}

impl SegmentFile {
    /// Creates segment `seq` in `dir` (and `dir`) for a clock of epoch `epoch_unix_ms`, with the
    /// state files' mode (`durable::file_mode`), its header written and synced with the
    /// directory's entry.
    pub fn create(dir: &Path, seq: u64, epoch_unix_ms: u64) -> std::io::Result<SegmentFile> {
        std::fs::create_dir_all(dir)?;
        let path = dir.join(name(seq));
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(crate::durable::file_mode())
            .open(&path)?;
        let mut file = std::io::BufWriter::with_capacity(1 << 20, file);
        let header = (|| {
            file.write_all(MAGIC)?;
            file.write_all(&VERSION.to_le_bytes())?;
            file.write_all(&epoch_unix_ms.to_le_bytes())?;
            file.flush()?;
            file.get_ref().sync_all()?;
            File::open(dir)?.sync_all()
        })();
        if let Err(e) = header {
            // (A full disk:) no headless segment left behind, and the number stays free.
            let _ = std::fs::remove_file(&path);
            return Err(e);
        }
        Ok(SegmentFile {
            file,
            path,
            seq,
            bytes: HEADER_BYTES as u64,
        })
    }

    /// Writes a record whose payload [`encode`] encoded (buffered: [`SegmentFile::sync`] makes
    /// it durable).
    pub fn append(&mut self, payload: &[u8]) -> std::io::Result<()> {
        let len = u32::try_from(payload.len())
            .ok()
            .filter(|&n| (n as usize) <= MAX_RECORD_BYTES)
            .ok_or_else(|| std::io::Error::other("a tick too large for one record"))?;
        let crc = crc32fast::hash(payload);
        self.file.write_all(&len.to_le_bytes())?;
        self.file.write_all(&crc.to_le_bytes())?;
        self.file.write_all(payload)?;
        self.bytes += (FRAME_BYTES + payload.len()) as u64;
        Ok(())
    }

    /// Writes what is buffered and syncs the file's data.
    pub fn sync(&mut self) -> std::io::Result<()> {
        self.file.flush()?;
        self.file.get_ref().sync_data()
    }
}

/// A segment read back: its clock's epoch and its records (see [`Records`]).
pub struct Segment<'a> {
    /// The segment's format version (its ticks are read in the snapshot layout of
    /// [`snapshot_version`]).
    pub version: u32,
    pub epoch_unix_ms: u64,
    pub records: Records<'a>,
}

/// The snapshot format version whose tick layout a segment of `version` writes its ticks in.
pub fn snapshot_version(version: u32) -> u32 {
    version + 3
}

/// Reads a segment's header.
pub fn open(bytes: &[u8]) -> Result<Segment<'_>, SnapshotError> {
    let mut r = Reader::new(bytes);
    if r.take(MAGIC.len())? != MAGIC {
        return Err(SnapshotError::Magic);
    }
    let version = r.u32()?;
    if !(OLDEST_VERSION..=VERSION).contains(&version) {
        return Err(SnapshotError::Version {
            found: version,
            reads: VERSION,
        });
    }
    let epoch_unix_ms = r.u64()?;
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    if !(EPOCH_FLOOR_MS..=now_ms.saturating_add(EPOCH_AHEAD_MS)).contains(&epoch_unix_ms) {
        return Err(SnapshotError::invalid(&format!(
            "its header's clock epoch {epoch_unix_ms} (unix ms) is out of range: before 2020 \
             or a day past the wall clock (a damaged header)"
        )));
    }
    Ok(Segment {
        version,
        epoch_unix_ms,
        records: Records {
            rest: &bytes[HEADER_BYTES..],
        },
    })
}

/// A segment's records in order: each `Ok((kind, body))`, then at most one `Err` saying why the
/// rest cannot be read (a record cut by a crash, or damaged), after which it ends.
pub struct Records<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for Records<'a> {
    type Item = Result<(Kind, Reader<'a>), SnapshotError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let rest = std::mem::take(&mut self.rest);
        if rest.len() < FRAME_BYTES {
            return Some(Err(SnapshotError::Truncated("a record cut short".into())));
        }
        let len = u32::from_le_bytes(rest[..4].try_into().expect("4 bytes")) as usize;
        let crc = u32::from_le_bytes(rest[4..8].try_into().expect("4 bytes"));
        let Some(payload) = rest.get(FRAME_BYTES..FRAME_BYTES + len) else {
            return Some(Err(SnapshotError::Truncated("a record cut short".into())));
        };
        if crc32fast::hash(payload) != crc {
            return Some(Err(SnapshotError::Checksum));
        }
        let Some(kind) = payload.first().and_then(|&b| Kind::of(b)) else {
            return Some(Err(SnapshotError::invalid("a record of an unknown kind")));
        };
        self.rest = &rest[FRAME_BYTES + len..];
        Some(Ok((kind, Reader::new(&payload[1..]))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records come back as written; a cut or damaged one ends the segment, keeping what came
    /// before it.
    #[test]
    fn records_read_back_and_a_cut_or_damaged_one_ends_the_segment() {
        let dir = tempfile::tempdir().unwrap();
        let mut seg = SegmentFile::create(dir.path(), 7, 1_700_000_000_000).unwrap();
        let mut payload = Vec::new();
        for i in 0..3u32 {
            encode(&mut payload, Kind::Tick, |w| w.u32(i)).unwrap();
            seg.append(&payload).unwrap();
        }
        seg.sync().unwrap();
        assert_eq!(list(dir.path()).unwrap(), vec![(7, seg.path.clone())]);
        let bytes = std::fs::read(&seg.path).unwrap();
        assert_eq!(bytes.len() as u64, seg.bytes);
        let read = |bytes: &[u8]| -> (Vec<u32>, bool) {
            let s = open(bytes).unwrap();
            assert_eq!(s.epoch_unix_ms, 1_700_000_000_000);
            let mut values = Vec::new();
            let mut damaged = false;
            for r in s.records {
                match r {
                    Ok((kind, mut r)) => {
                        assert_eq!(kind, Kind::Tick);
                        values.push(r.u32().unwrap());
                    }
                    Err(_) => damaged = true,
                }
            }
            (values, damaged)
        };
        assert_eq!(read(&bytes), (vec![0, 1, 2], false));
        // Cut in the last record, as a crash would.
        assert_eq!(read(&bytes[..bytes.len() - 2]), (vec![0, 1], true));
        // A bit flipped in the second record's payload.
        let mut flipped = bytes.clone();
        flipped[HEADER_BYTES + 13 + FRAME_BYTES + 2] ^= 1;
        assert_eq!(read(&flipped), (vec![0], true));
        assert!(open(&bytes[..5]).is_err());
    }

    /// A segment of the previous version (2, written before memory_peak) still opens, its ticks
    /// read in the snapshot layout of version 5; versions before 2 and after this one do not.
    #[test]
    fn a_segment_of_the_previous_version_opens() {
        let header = |version: u32| {
            let mut b = MAGIC.to_vec();
            b.extend_from_slice(&version.to_le_bytes());
            b.extend_from_slice(&1_700_000_000_000u64.to_le_bytes());
            b
        };
        let previous = header(2);
        let s = open(&previous).unwrap();
        assert_eq!((s.version, snapshot_version(s.version)), (2, 5));
        // This version's ticks are in the layout the tick log writes (the snapshot's version
        // 6, fixed-width: the snapshot's 7 added the families' stages, its 8 made rows compact).
        let layout = crate::report::Layout::of;
        assert_eq!(
            layout(snapshot_version(VERSION)),
            crate::report::Layout::TICK_LOG
        );
        for refused in [1, VERSION + 1] {
            assert!(open(&header(refused)).is_err(), "version {refused}");
        }
        // An epoch out of range (two bytes of the header flipped) is refused, saying so.
        for flipped in [5, 6] {
            let mut b = header(VERSION);
            b[MAGIC.len() + 4 + flipped] ^= 0xff;
            let e = open(&b).err().expect("refused").to_string();
            assert!(e.contains("clock epoch"), "{e}");
        }
    }
}
