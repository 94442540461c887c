//! The little-endian binary codec of the state files (the snapshot, the reports' parts of it, the
//! requests saved while stopping): a [`Writer`] that keeps a CRC-32 of what it wrote and a
//! bounds-checked [`Reader`]. A leaf: it imports nothing of pinbad's, so the report engine encodes
//! its windows without knowing the snapshot file around them.

use std::io::Write;

/// Why a snapshot could not be written or restored. Display is the one-line reason that the log
/// and `/api/v1/status` show.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("not a pinbad snapshot (bad magic)")]
    Magic,
    #[error("format version {found}, this pinbad reads version {reads}")]
    Version { found: u32, reads: u32 },
    #[error("truncated: {0}")]
    Truncated(String),
    #[error("checksum mismatch (the file is corrupt)")]
    Checksum,
    #[error("invalid content: {0}")]
    Invalid(String),
    #[error("too old: saved {age_s} s ago, everything in it is outside the window")]
    TooOld { age_s: u64 },
}

impl SnapshotError {
    pub fn invalid(what: &str) -> SnapshotError {
        SnapshotError::Invalid(what.to_string())
    }
}

/// A little-endian writer that keeps a CRC-32 and a byte count of what it wrote. Small writes go
/// to a buffer; the checksum and the output see it in large chunks (a checksum call per field
/// would cost more than the encoding).
pub struct Writer<W: Write> {
    out: W,
    buf: Vec<u8>,
    crc: crc32fast::Hasher,
    len: u64,
}

/// Bytes a [`Writer`] gathers before passing them on.
pub const CHUNK: usize = 1 << 20;

impl<W: Write> Writer<W> {
    pub fn new(out: W) -> Writer<W> {
        Writer::with_capacity(out, CHUNK)
    }

    /// A writer gathering `capacity` bytes at first (it grows to a chunk as it needs): for
    /// small records, written often (the tick log's), where a chunk each would be mostly unused.
    pub fn with_capacity(out: W, capacity: usize) -> Writer<W> {
        Writer {
            out,
            buf: Vec::with_capacity(capacity.min(CHUNK)),
            crc: crc32fast::Hasher::new(),
            len: 0,
        }
    }
    #[inline]
    pub fn bytes(&mut self, b: &[u8]) -> std::io::Result<()> {
        self.buf.extend_from_slice(b);
        if self.buf.len() >= CHUNK {
            self.flush_chunk()?;
        }
        Ok(())
    }
    fn flush_chunk(&mut self) -> std::io::Result<()> {
        self.crc.update(&self.buf);
        self.len += self.buf.len() as u64;
        self.out.write_all(&self.buf)?;
        self.buf.clear();
        Ok(())
    }
    #[inline]
    pub fn u16(&mut self, v: u16) -> std::io::Result<()> {
        self.bytes(&v.to_le_bytes())
    }
    #[inline]
    pub fn u32(&mut self, v: u32) -> std::io::Result<()> {
        self.bytes(&v.to_le_bytes())
    }
    #[inline]
    pub fn u64(&mut self, v: u64) -> std::io::Result<()> {
        self.bytes(&v.to_le_bytes())
    }
    #[inline]
    pub fn f32(&mut self, v: f32) -> std::io::Result<()> {
        self.bytes(&v.to_le_bytes())
    }
    /// `v` in LEB128 (7 bits a byte, the low ones first; a set high bit says more follow): one
    /// byte below 128, the compact layout's sums and counts, most of which are small.
    #[inline]
    pub fn var(&mut self, v: u64) -> std::io::Result<()> {
        self.var128(v as u128)
    }
    /// A `u128` in LEB128 (see [`Writer::var`]).
    #[inline]
    pub fn var128(&mut self, mut v: u128) -> std::io::Result<()> {
        let mut out = [0u8; 19];
        let mut n = 0;
        while v >= 0x80 {
            out[n] = v as u8 | 0x80;
            v >>= 7;
            n += 1;
        }
        out[n] = v as u8;
        self.bytes(&out[..=n])
    }
    /// A length (u64) then the bytes.
    pub fn blob(&mut self, b: &[u8]) -> std::io::Result<()> {
        self.u64(b.len() as u64)?;
        self.bytes(b)
    }
    /// The output (what was written may still wait in the buffer: see [`Writer::flush`]).
    pub fn get_ref(&self) -> &W {
        &self.out
    }
    /// Passes what the buffer holds on to the output.
    pub fn flush(&mut self) -> std::io::Result<()> {
        self.flush_chunk()
    }
    /// Bytes written so far, the buffer's included.
    pub fn position(&self) -> u64 {
        self.len + self.buf.len() as u64
    }
    /// The output, the CRC-32 and the length of everything written.
    pub fn finish(mut self) -> std::io::Result<(W, u32, u64)> {
        self.flush_chunk()?;
        Ok((self.out, self.crc.finalize(), self.len))
    }
}

impl<W: Write + std::io::Seek> Writer<W> {
    /// Steps over `len` bytes of the output whose CRC-32 is `crc`, written there by someone
    /// else (the snapshot's reports, each written at its place in the file by a helper thread):
    /// they count in the length and the checksum as if written here.
    pub fn skip_checked(&mut self, len: u64, crc: u32) -> std::io::Result<()> {
        self.flush_chunk()?;
        let step = i64::try_from(len).map_err(std::io::Error::other)?;
        self.out.seek(std::io::SeekFrom::Current(step))?;
        self.crc
            .combine(&crc32fast::Hasher::new_with_initial_len(crc, len));
        self.len += len;
        Ok(())
    }
}

/// Bytes [`Writer::var128`] (and [`Writer::var`]) write for `v`.
#[inline]
pub fn var_len(v: u128) -> u64 {
    (128 - (v | 1).leading_zeros() as u64).div_ceil(7)
}

/// A [`Write`] at a place of a file, moving on as it writes (positioned writes, `pwrite`: the
/// file's own offset is neither used nor moved), so that several threads write parts of one
/// file side by side.
pub struct WriteAt<'f> {
    pub file: &'f std::fs::File,
    pub at: u64,
}

impl Write for WriteAt<'_> {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        let n = std::os::unix::fs::FileExt::write_at(self.file, b, self.at)?;
        self.at += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A little-endian reader over bytes already checked by the checksum. Every read is bounds
/// checked: running out is [`SnapshotError::Truncated`], never a panic.
pub struct Reader<'a> {
    buf: &'a [u8],
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Reader<'a> {
        Reader { buf }
    }
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }
    /// The next `n` bytes.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], SnapshotError> {
        if n > self.buf.len() {
            return Err(SnapshotError::Truncated(format!(
                "{n} bytes wanted, {} left",
                self.buf.len()
            )));
        }
        let (head, rest) = self.buf.split_at(n);
        self.buf = rest;
        Ok(head)
    }
    /// The next `N` bytes, as an array.
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N], SnapshotError> {
        let mut a = [0; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }
    pub fn u16(&mut self) -> Result<u16, SnapshotError> {
        Ok(u16::from_le_bytes(self.array()?))
    }
    pub fn u32(&mut self) -> Result<u32, SnapshotError> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    pub fn u64(&mut self) -> Result<u64, SnapshotError> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    pub fn f32(&mut self) -> Result<f32, SnapshotError> {
        Ok(f32::from_le_bytes(self.array()?))
    }
    /// A LEB128 value ([`Writer::var`]) that fits in a `u64`.
    pub fn var(&mut self) -> Result<u64, SnapshotError> {
        u64::try_from(self.var128()?).map_err(|_| SnapshotError::invalid("a varint past 64 bits"))
    }
    /// A LEB128 value that fits in a `u32`.
    pub fn var32(&mut self) -> Result<u32, SnapshotError> {
        u32::try_from(self.var128()?).map_err(|_| SnapshotError::invalid("a varint past 32 bits"))
    }
    /// A LEB128 value ([`Writer::var128`]): at most 19 bytes, the last not past 128 bits.
    pub fn var128(&mut self) -> Result<u128, SnapshotError> {
        let mut v = 0u128;
        for i in 0..19 {
            let Some(&b) = self.buf.get(i) else {
                return Err(SnapshotError::Truncated("a varint cut short".into()));
            };
            // The 19th byte holds bits 126 and 127 alone, and ends the value.
            if i == 18 && b > 0x03 {
                break;
            }
            v |= ((b & 0x7f) as u128) << (7 * i);
            if b < 0x80 {
                self.buf = &self.buf[i + 1..];
                return Ok(v);
            }
        }
        Err(SnapshotError::invalid("a varint past 128 bits"))
    }
    /// A count (u32) of items of at least `min_bytes` each, refused when the bytes left cannot
    /// hold them: a corrupt count never makes a huge allocation.
    pub fn count(&mut self, min_bytes: usize) -> Result<usize, SnapshotError> {
        let n = self.u32()? as usize;
        if n.saturating_mul(min_bytes.max(1)) > self.buf.len() {
            return Err(SnapshotError::Truncated(format!(
                "{n} items announced, {} bytes left",
                self.buf.len()
            )));
        }
        Ok(n)
    }
    /// A length (u64) then that many bytes.
    pub fn blob(&mut self) -> Result<&'a [u8], SnapshotError> {
        let n = self.u64()?;
        self.take(usize::try_from(n).unwrap_or(usize::MAX))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// LEB128 round trips at every width, [`var_len`] says what the writer wrote, and a value
    /// cut short or past its width is an error, never a panic or a wrong value.
    #[test]
    fn varints_round_trip_and_refuse_what_does_not_fit() {
        let mut values: Vec<u128> = vec![0, 1, 127, 128, 300, u32::MAX as u128, u64::MAX as u128];
        values.extend((0..128).map(|b| 1u128 << b));
        values.extend((1..128).map(|b| (1u128 << b) - 1));
        values.push(u128::MAX);
        let mut w = Writer::new(Vec::new());
        for &v in &values {
            let before = w.position();
            w.var128(v).unwrap();
            assert_eq!(w.position() - before, var_len(v), "{v}");
        }
        let (bytes, _, _) = w.finish().unwrap();
        let mut r = Reader::new(&bytes);
        for &v in &values {
            assert_eq!(r.var128().unwrap(), v);
        }
        assert!(r.is_empty());

        let mut w = Writer::new(Vec::new());
        w.var(u64::MAX).unwrap();
        w.var(u32::MAX as u64 + 1).unwrap();
        w.var128(u64::MAX as u128 + 1).unwrap();
        let (bytes, _, _) = w.finish().unwrap();
        let mut r = Reader::new(&bytes);
        assert_eq!(r.var().unwrap(), u64::MAX);
        assert!(r.var32().is_err(), "past 32 bits");
        assert!(r.var().is_err(), "past 64 bits");

        assert!(matches!(
            Reader::new(&[0x80, 0x80]).var128(),
            Err(SnapshotError::Truncated(_))
        ));
        assert!(Reader::new(&[]).var128().is_err());
        let mut too_wide = vec![0xff; 18];
        too_wide.push(0x04);
        assert!(Reader::new(&too_wide).var128().is_err(), "past 128 bits");
        assert!(Reader::new(&[0xff; 30]).var128().is_err(), "no end");
    }
}
