//! The snapshot's tests: round trips, damaged and old files, clocks stepped, the files left.

use super::*;
use crate::config::Config;
use crate::corpus::{Corpus, CorpusSpec};
use crate::merger::Merger;
use crate::record::RequestView;
use crate::report::Query;
use proptest::prelude::*;

/// The built-ins and the benches' four timer-tag reports (two of them a family), over a
/// one-minute window of 1 s ticks, a small pool, in `state`.
fn config(state: &Path) -> Config {
    Config {
        state_dir: state.to_path_buf(),
        stats_history: "1m".parse().unwrap(),
        report_ticks: 60,
        request_pool_size: 3000,
        timer_pool_size: 30_000,
        tag_pool_size: 100_000,
        report: crate::corpus::timer_tag_report_defs(),
        ..Config::default()
    }
}

fn shared(config: Config) -> Started {
    Started::new(config)
}

/// Merges `n` corpus requests (seed `seed`) through a real merger.
fn feed(shared: &Arc<Core>, n: usize, seed: u64) {
    feed_split(shared, n, seed, false)
}

/// Every field of every pooled request, strings resolved, oldest first.
fn pool_text(shared: &Core) -> Vec<String> {
    let pool = shared.pool().read();
    let dict = shared.dictionary().read();
    let s = |id: u32| dict.text(id).into_owned();
    pool.iter_oldest_first()
        .map(|v: RequestView<'_>| {
            let r = v.record;
            let tags: Vec<_> = v
                .tag_block
                .iter()
                .map(|t| (s(t.name), s(t.value)))
                .collect();
            format!(
                "{} {} {} {} {} {} {:?} {} {} {} {} {} {} {} {} {} {:?} {:?}",
                v.id,
                r.time_ms,
                s(r.hostname),
                s(r.server_name),
                s(r.script_name),
                r.schema == NO_SCHEMA,
                (r.schema != NO_SCHEMA).then(|| s(r.schema)),
                r.request_count,
                r.document_size,
                r.memory_peak,
                r.memory_footprint,
                r.status,
                r.request_time,
                r.ru_utime,
                r.ru_stime,
                r.tag_count,
                v.timers,
                tags
            )
        })
        .collect()
}

/// Every report as a query shows it (all rows, sorted as text: ids differ between runs),
/// family stages drained first.
fn reports_text(shared: &Core) -> Vec<(String, Vec<String>, u64)> {
    let dict = shared.dictionary().read();
    shared
        .reports()
        .snapshot()
        .iter()
        .map(|cell| {
            if let Some(f) = cell.family() {
                f.drain();
            }
            cell.apply_hist_log();
            let r = cell.report.read();
            let q = Query {
                limit: Some(100_000),
                ..Query::default()
            };
            let table = r.query(&q, &dict, 60.0).unwrap();
            let mut lines: Vec<String> = table.to_csv().lines().map(str::to_string).collect();
            lines.push(serde_json::to_string(&table.totals_json()).unwrap());
            lines.sort();
            (cell.name().to_string(), lines, r.rows_lost())
        })
        .collect()
}

/// [`reports_text`] without the memory_peak columns: what a snapshot of a version before 6,
/// which has none (they restore as 0), restores alike.
fn without_memory_peak(
    reports: Vec<(String, Vec<String>, u64)>,
) -> Vec<(String, Vec<String>, u64)> {
    /// A CSV line's fields (quoted ones kept whole, quotes and all).
    fn fields(line: &str) -> Vec<&str> {
        let (mut out, mut start, mut quoted) = (Vec::new(), 0, false);
        for (i, c) in line.char_indices() {
            match c {
                '"' => quoted = !quoted,
                ',' if !quoted => {
                    out.push(&line[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        out.push(&line[start..]);
        out
    }
    reports
        .into_iter()
        .map(|(name, lines, lost)| {
            let header = lines.iter().find(|l| l.contains("req_count,")).cloned();
            let drop: Vec<usize> = header.as_deref().map_or(Vec::new(), |h| {
                fields(h)
                    .iter()
                    .enumerate()
                    .filter(|(_, f)| f.starts_with("memory_peak"))
                    .map(|(i, _)| i)
                    .collect()
            });
            let lines = lines
                .iter()
                .map(|l| {
                    if l.starts_with('{') {
                        let mut v: serde_json::Map<String, serde_json::Value> =
                            serde_json::from_str(l).unwrap();
                        v.retain(|k, _| !k.starts_with("memory_peak"));
                        return serde_json::to_string(&v).unwrap();
                    }
                    let kept: Vec<&str> = fields(l)
                        .into_iter()
                        .enumerate()
                        .filter(|(i, _)| !drop.contains(i))
                        .map(|(_, f)| f)
                        .collect();
                    kept.join(",")
                })
                .collect();
            (name, lines, lost)
        })
        .collect()
}

fn encoded(shared: &Core) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    write(shared, dir.path()).unwrap();
    std::fs::read(dir.path().join(FILE)).unwrap()
}

/// Rewrites the trailer so the content passes the checksum again (tests that reach the
/// parser with damaged content).
fn reseal(mut content: Vec<u8>) -> Vec<u8> {
    let crc = crc32fast::hash(&content);
    let len = content.len() as u64;
    content.extend_from_slice(&len.to_le_bytes());
    content.extend_from_slice(&crc.to_le_bytes());
    content.extend_from_slice(&0u64.to_le_bytes());
    content
}

fn content(bytes: &[u8]) -> Vec<u8> {
    bytes[..bytes.len() - TRAILER_BYTES].to_vec()
}

/// Moves a snapshot's saved epoch, its save's wall time and its boot clock (header fields
/// after the magic and version) by the milliseconds given.
fn shift_header(content: &mut [u8], epoch_by: i64, saved_unix_by: i64, boottime_by: i64) {
    for (at, by) in [(12, epoch_by), (28, saved_unix_by), (52, boottime_by)] {
        let v = u64::from_le_bytes(content[at..at + 8].try_into().unwrap());
        content[at..at + 8].copy_from_slice(&v.wrapping_add_signed(by).to_le_bytes());
    }
}

/// `content` (resealed) restores into a fresh state in `dir`: its 200 requests, down for no
/// time, the restored clock telling the wall time.
fn restores_now(content: &[u8], dir: &Path, step: i64) {
    let mut b = shared(config(dir));
    b.restore(&reseal(content.to_vec())).unwrap();
    assert_eq!(b.pool().read().len(), 200, "{step}");
    assert!(b.snapshot.down_seconds.unwrap() < 60.0, "{step}");
    let told = b.clock().unix_ms64(b.clock().now_ms64());
    assert!(told.abs_diff(unix_now_ms()) < 60_000, "{step}: {told}");
}

/// A wall clock stepped an hour either way during the previous run (its times an hour off
/// the save's wall time) or while the daemon was down (the save's wall time and times an hour
/// off today's clock, the boot clock saying a moment passed): restored, down for no time, the
/// times lined up with the wall clock (refused before: "saved in the future", or too old).
/// Saved in another boot, the second is judged by the wall clock alone: "saved in the
/// future", or too old.
#[test]
fn a_clock_stepped_during_the_previous_run_or_while_down_restores() {
    let (sa, sb) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = Arc::new(shared(config(sa.path())));
    feed(&a, 200, 1);
    let bytes = encoded(&a);
    for step in [3_600_000i64, -3_600_000] {
        let mut c = content(&bytes);
        shift_header(&mut c, step, 0, 0);
        restores_now(&c, sb.path(), step);
        // The rest reads the boot clock (the case above needs only the wall clock).
        assert!(
            BootMark::now().is_some(),
            "Linux tells its boot id and boot clock"
        );
        let mut c = content(&bytes);
        shift_header(&mut c, step, step, 0);
        restores_now(&c, sb.path(), step);
        // Another boot's save (its id's first byte changed).
        c[36] ^= 0xff;
        let e = shared(config(sb.path())).restore(&reseal(c)).unwrap_err();
        if step > 0 {
            assert!(e.to_string().contains("saved in the future"), "{e}");
        } else {
            assert!(matches!(e, SnapshotError::TooOld { .. }), "{e}");
        }
    }
}

#[test]
fn the_save_is_dated_by_the_boot_clock_only_within_one_boot() {
    let id = parse_boot_id("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0\n").unwrap();
    assert_eq!(id[0], 0x0f);
    assert_eq!(id[15], 0xf0);
    assert_eq!(parse_boot_id("not-an-id"), None);
    assert_eq!(parse_boot_id("00000000-0000-0000-0000-000000000000"), None);
    assert_eq!(parse_boot_id("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1fz"), None);
    let mark = |id: [u8; 16], boottime_ms| Some(BootMark { id, boottime_ms });
    let other = [7; 16];
    // Same boot: now less the boot clock's time since, whatever the saved wall time said.
    assert_eq!(
        wall_of_save(1, mark(id, 500), mark(id, 2_500), 10_000),
        8_000
    );
    // Another boot, an unknown id, no mark (older file or no /proc), the boot clock behind
    // the save: the saved wall time.
    assert_eq!(
        wall_of_save(1, mark(id, 500), mark(other, 2_500), 10_000),
        1
    );
    let unknown = BootMark::UNKNOWN.id;
    assert_eq!(
        wall_of_save(1, mark(unknown, 5), mark(unknown, 9), 10_000),
        1
    );
    assert_eq!(wall_of_save(1, None, mark(id, 2_500), 10_000), 1);
    assert_eq!(wall_of_save(1, mark(id, 500), None, 10_000), 1);
    assert_eq!(wall_of_save(1, mark(id, 3_000), mark(id, 2_500), 10_000), 1);
    // A boot clock that says more than the wall clock's whole span: 0, never below.
    assert_eq!(wall_of_save(1, mark(id, 0), mark(id, 20_000), 10_000), 0);
}

/// Save, restore into a fresh daemon state: the same pool (every field of every request,
/// timers and tags), the same reports (every row of every query, a timer report and a family
/// member included), the same request ids; and both go on alike with more traffic.
#[test]
fn round_trip_restores_pool_and_reports() {
    let (sa, sb) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = Arc::new(shared(config(sa.path())));
    feed(&a, 1500, 1);
    // A tick boundary between the two halves: closed ticks and an open one.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    feed(&a, 2500, 2);
    assert!(
        a.pool().read().len() == 3000,
        "the pool overwrote: eviction order matters"
    );
    let bytes = encoded(&a);
    // The file's reports were written side by side at the places their sizes gave them: the
    // same bytes as a buffer gets, each written in turn (but for the header's time of the
    // save and boot clock), and their checksum (combined from the parts') holds (`restore`).
    let mut in_turn = Vec::new();
    let mut w = Writer::new(&mut in_turn);
    encode(&a, &mut w).unwrap();
    w.finish().unwrap();
    assert_eq!(content(&bytes).len(), in_turn.len());
    assert!(content(&bytes)[60..] == in_turn[60..], "the parts differ");
    let mut b = shared(config(sb.path()));
    b.restore(&bytes).unwrap();
    let b = Arc::new(b);
    assert_eq!(b.snapshot.restored_requests, 3000);
    assert_eq!(b.snapshot.restored_reports as usize, a.reports().len());
    assert!(b.snapshot.skipped_reports.is_empty());
    assert_eq!(b.clock().epoch_unix_ms(), a.clock().epoch_unix_ms());
    assert_eq!(pool_text(&a), pool_text(&b));
    let (ra, rb) = (reports_text(&a), reports_text(&b));
    assert!(ra
        .iter()
        .any(|(n, l, _)| n == "tag_report_group" && l.len() > 10));
    assert!(b
        .reports()
        .get("tag_report_group")
        .unwrap()
        .family()
        .is_some());
    assert_eq!(ra, rb);
    assert!(b.reports().snapshot().iter().all(|c| c.is_filled()));
    // The same state in version 1 (no closed parts; rebuilt from the ticks), in version 3 (no
    // boot mark), in version 5 (no memory_peak), in version 6 (no families' stages: they are
    // drained into their members, as `reports_text` did) and in version 7 (fixed-width rows,
    // which take more than twice this version's compact ones): read alike, but for memory_peak
    // (0).
    let mut now = Vec::new();
    let mut w = Writer::new(&mut now);
    encode(&a, &mut w).unwrap();
    w.finish().unwrap();
    for version in [1, 3, 5, 6, 7] {
        let mut old = Vec::new();
        let mut w = Writer::new(&mut old);
        encode_as(&a, &mut w, version).unwrap();
        w.finish().unwrap();
        if version == 7 {
            assert!(
                now.len() * 2 < old.len(),
                "{} bytes against version 7's {}",
                now.len(),
                old.len()
            );
        }
        let sc = tempfile::tempdir().unwrap();
        let mut c = shared(config(sc.path()));
        c.restore(&reseal(old)).unwrap();
        assert_eq!(c.snapshot.restored_reports as usize, a.reports().len());
        assert_eq!(
            (pool_text(&c), without_memory_peak(reports_text(&c))),
            (pool_text(&a), without_memory_peak(ra.clone())),
            "version {version}"
        );
        assert!(
            (reports_text(&c) == ra) == (version >= 6),
            "the corpus has memory_peak, which version {version} keeps or not"
        );
    }
    // More traffic into both: still equal (the restored windows and family go on).
    feed(&a, 500, 3);
    feed(&b, 500, 3);
    assert_eq!(reports_text(&a), reports_text(&b));
    // The same requests with the same ids (merged at different times).
    let untimed = |s: &Core| -> Vec<String> {
        pool_text(s)
            .iter()
            .map(|l| {
                let mut w: Vec<&str> = l.splitn(3, ' ').collect();
                w.remove(1);
                w.join(" ")
            })
            .collect()
    };
    assert_eq!(untimed(&a), untimed(&b));
}

/// [`config`] on two merge threads, with the families (the built-ins', and the timer reports'
/// `tag_info_group` and `tag_report_group`) or without.
fn family_config(state: &Path, families: bool) -> Config {
    let mut c = config(state);
    c.merge.families = families;
    c.merge.threads = 2;
    c.merge.split_reports = false;
    c
}

/// [`feed`], each family's stage split over the two merge threads when `split` (its leader's
/// thread counting half of each round into the stage, the other half into a part).
fn feed_split(shared: &Arc<Core>, n: usize, seed: u64, split: bool) {
    let ring = Arc::clone(shared.ring());
    let mut merger = Merger::new(Arc::clone(shared), Arc::clone(&ring));
    if split {
        for c in shared.reports().snapshot() {
            if c.family().is_some_and(|f| f.is_led_by(&c)) {
                merger.assign(&c, 0, Some(&[1]));
                assert!(c.family().unwrap().split().is_some());
            }
        }
    }
    let mut corpus = Corpus::new(CorpusSpec {
        seed,
        scripts: 50,
        ..CorpusSpec::default()
    });
    ring.push(corpus.decoded_batch(n)).unwrap();
    while merger.round() {}
    merger.round();
    merger.finish();
}

/// Requests the families' stages hold, not yet folded into their members.
fn staged(shared: &Core) -> u64 {
    let mut seen: Vec<Arc<crate::report::Family>> = Vec::new();
    for c in shared.reports().snapshot() {
        if let Some(f) = c
            .family()
            .filter(|f| !seen.iter().any(|s| Arc::ptr_eq(s, f)))
        {
            seen.push(Arc::clone(f));
        }
    }
    seen.iter().map(|f| f.staged_requests()).sum()
}

/// Issue 59: a stop no longer folds the families' stages into their members (after a flood of
/// new names, most of the stop's time and memory); the snapshot keeps them, split stages with
/// their parts folded in, and the restore puts them back: the stages hold what they held, and
/// every report then answers what the same reports without families answer (fed the same
/// requests), every row, sum and percentile: at once (the stages folded as a query would), and
/// after a tick and more traffic (the restored stages frozen and handed to the members at that
/// tick, as without the restart). A configuration that dropped a family's member gets that
/// family's stages folded into the remaining members at the restore, exactly too.
#[test]
fn families_stages_are_restored_not_folded_at_the_stop() {
    for split in [false, true] {
        let dirs: Vec<_> = (0..5).map(|_| tempfile::tempdir().unwrap()).collect();
        let alone = Arc::new(shared(family_config(dirs[0].path(), false)));
        let a = Arc::new(shared(family_config(dirs[1].path(), true)));
        feed_split(&alone, 1500, 1, false);
        feed_split(&a, 1500, 1, split);
        let bytes = encoded(&a);
        // The write folded the parts into the stages, and nothing into the members.
        let held = staged(&a);
        assert!(
            held >= 1500,
            "{split}: the stages hold the last round: {held}"
        );
        let restored = |config: Config| {
            let mut b = shared(config);
            b.restore(&bytes).unwrap();
            assert!(b.snapshot.skipped_reports.is_empty(), "{:?}", b.snapshot);
            Arc::new(b)
        };
        let b = restored(family_config(dirs[2].path(), true));
        assert_eq!(
            (b.snapshot.restored_stages, b.snapshot.folded_stages),
            (2, 0),
            "{split}"
        );
        assert_eq!(staged(&b), held, "{split}: the stages as they were saved");
        let expected = reports_text(&alone);
        assert_eq!(reports_text(&b), expected, "{split}: at once");

        // A member gone: its family's stages go to the one left, at the restore.
        let mut changed = family_config(dirs[3].path(), true);
        changed.report.retain(|d| d.name != "tag_info_group");
        let c = restored(changed);
        assert_eq!(
            (c.snapshot.restored_stages, c.snapshot.folded_stages),
            (1, 1),
            "{split}"
        );
        assert!(c
            .reports()
            .get("tag_report_group")
            .unwrap()
            .family()
            .is_none());
        let without: Vec<_> = expected
            .iter()
            .filter(|(n, ..)| n != "tag_info_group")
            .cloned()
            .collect();
        assert_eq!(reports_text(&c), without, "{split}: a member gone");

        // A tick later, more traffic: the restored stages reach the members at the tick.
        let d = restored(family_config(dirs[4].path(), true));
        std::thread::sleep(std::time::Duration::from_millis(1100));
        feed_split(&alone, 500, 3, false);
        feed_split(&d, 500, 3, split);
        assert_eq!(
            reports_text(&d),
            reports_text(&alone),
            "{split}: a tick later"
        );
    }
}

/// A report whose definition changed starts empty; the others are restored.
#[test]
fn a_changed_report_starts_empty() {
    let (sa, sb) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = Arc::new(shared(config(sa.path())));
    feed(&a, 300, 1);
    let bytes = encoded(&a);
    let mut cb = config(sb.path());
    cb.report[0].percentiles = vec![50.0];
    let mut b = shared(cb);
    b.restore(&bytes).unwrap();
    assert_eq!(
        b.snapshot.skipped_reports,
        vec!["tag_info_group".to_string()]
    );
    let cell = b.reports().get("tag_info_group").unwrap();
    assert!(
        !cell.is_filled(),
        "the merger fills it from the restored pool"
    );
    assert_eq!(cell.report.read().total_requests(), 0);
    // Its share of its family's stage was not folded into it; the other member's was, at
    // once (the family changed: one member is not restored), and the built-ins' family's
    // stage is put back as it was: folded, `info` holds every request.
    assert_eq!(
        (b.snapshot.restored_stages, b.snapshot.folded_stages),
        (1, 1)
    );
    b.reports().get("info").unwrap().family().unwrap().drain();
    assert!(
        b.reports()
            .get("info")
            .unwrap()
            .report
            .read()
            .total_requests()
            == 300
    );
}

#[test]
fn damaged_snapshots_are_refused_with_the_reason() {
    let (sa, sb) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = Arc::new(shared(config(sa.path())));
    feed(&a, 200, 1);
    let bytes = encoded(&a);
    let fresh = || shared(config(sb.path()));
    // A flipped byte anywhere in the content.
    for at in [20, bytes.len() / 2, bytes.len() - TRAILER_BYTES - 1] {
        let mut bad = bytes.clone();
        bad[at] ^= 0x40;
        let e = fresh().restore(&bad).unwrap_err();
        assert!(matches!(e, SnapshotError::Checksum), "{at}: {e}");
    }
    let mut bad = bytes.clone();
    bad[8] = 9;
    let e = fresh().restore(&bad).unwrap_err();
    assert!(e.to_string().contains("version 9"), "{e}");
    let e = fresh()
        .restore(b"GIF89a, not a snapshot at all")
        .unwrap_err();
    assert!(matches!(e, SnapshotError::Magic), "{e}");
    let e = fresh().restore(&bytes[..bytes.len() - 7]).unwrap_err();
    assert!(matches!(e, SnapshotError::Truncated(_)), "{e}");
    // Too old: saved two windows ago (the epoch and the wall time of the save moved back,
    // resealed); saved an hour from now by the wall clock: refused.
    let moved = |by: i64| {
        let mut c = content(&bytes);
        shift_header(&mut c, by, by, by);
        reseal(c)
    };
    let mut b = fresh();
    let e = b.restore(&moved(-120_000)).unwrap_err();
    assert!(matches!(e, SnapshotError::TooOld { .. }), "{e}");
    assert_eq!(b.pool().read().len(), 0);
    let e = fresh().restore(&moved(3_600_000)).unwrap_err();
    assert!(e.to_string().contains("saved in the future"), "{e}");
    // A garbage clock reading (the merger's milliseconds at the save), sealed as valid:
    // refused, where it was resumed as a clock ages ahead.
    for reading in [1u64 << 50, u64::MAX - 5000] {
        let mut c = content(&bytes);
        c[20..28].copy_from_slice(&reading.to_le_bytes());
        let e = fresh().restore(&reseal(c)).unwrap_err();
        assert!(e.to_string().contains("clock reading is later"), "{e}");
    }
    // The intact one restores.
    let mut b = fresh();
    b.restore(&bytes).unwrap();
    assert_eq!(b.pool().read().len(), 200);
}

/// The file is consumed: deleted once restored, moved aside when damaged; the status says why.
#[test]
fn restore_at_start_consumes_the_file() {
    let (sa, sb) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = Arc::new(shared(config(sa.path())));
    feed(&a, 100, 1);
    write(&a, sb.path()).unwrap();
    let mut b = shared(config(sb.path()));
    b.restore_at_start();
    assert!(b.snapshot.restored && b.snapshot.restored_requests == 100);
    assert!(!sb.path().join(FILE).exists());
    let partial = sb.path().join(format!("{FILE}.tmp-1"));
    std::fs::write(&partial, b"half written").unwrap();
    let mut b = shared(config(sb.path()));
    b.restore_at_start();
    assert_eq!(b.snapshot.skipped_reason.as_deref(), Some("no snapshot"));
    assert!(!partial.exists(), "an unfinished write is removed");
    write(&a, sb.path()).unwrap();
    let path = sb.path().join(FILE);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[30] ^= 1;
    std::fs::write(&path, bytes).unwrap();
    let mut b = shared(config(sb.path()));
    b.restore_at_start();
    assert!(!b.snapshot.restored);
    assert!(b
        .snapshot
        .skipped_reason
        .as_deref()
        .unwrap()
        .contains("checksum"));
    assert!(sb.path().join(SKIPPED_FILE).exists() && !path.exists());
    assert_eq!(b.pool().read().len(), 0);
    // A snapshot that cannot be read at all (here a directory in its place: EISDIR) is kept
    // aside too, not deleted; so is a device in its place, refused unread.
    std::fs::remove_file(sb.path().join(SKIPPED_FILE)).unwrap();
    std::fs::create_dir(&path).unwrap();
    let mut c = shared(config(sb.path()));
    c.restore_at_start();
    assert!(!c.snapshot.restored && c.snapshot.skipped_reason.is_some());
    assert!(sb.path().join(SKIPPED_FILE).is_dir() && !path.exists());
    std::fs::remove_dir(sb.path().join(SKIPPED_FILE)).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
    let mut d = shared(config(sb.path()));
    d.restore_at_start();
    let why = d.snapshot.skipped_reason.clone().unwrap_or_default();
    assert!(!d.snapshot.restored && why.contains("a device"), "{why}");
    assert!(!path.exists() && sb.path().join(SKIPPED_FILE).is_symlink());
    assert_eq!(b.dictionary().read().len(), {
        let c = shared(config(sb.path()));
        let n = c.dictionary().read().len();
        n
    });
}

/// Write and restore times of a full default pool (1M requests, 4M timers, 12M tags: the
/// PHP-like corpus fills the timer and tag rings first) under the default report set (info,
/// the 18 built-ins, the benches' 4 timer-tag reports) with a full 15-minute window (60
/// ticks), in `state_dir` on this machine's disk. Requests are stamped over 15 virtual
/// minutes, as a daemon that ran that long at ~1.4k requests/s would hold them.
///
/// `cargo test --release --lib full_default_pool -- --ignored --nocapture`
#[test]
#[ignore = "a measurement: ~1 minute and ~7 GiB of memory"]
fn full_default_pool_write_and_restore_times() {
    // `RssAnon` of /proc/self/status (KiB): memory of the process's own, not file cache.
    fn rss_anon_kib() -> i64 {
        std::fs::read_to_string("/proc/self/status")
            .unwrap()
            .lines()
            .find_map(|l| l.strip_prefix("RssAnon:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap()
    }
    let state = tempfile::tempdir().unwrap();
    let mut c = config(state.path());
    let d = Config::default();
    (c.stats_history, c.report_ticks) = (d.stats_history, d.report_ticks);
    (c.request_pool_size, c.timer_pool_size, c.tag_pool_size) =
        (d.request_pool_size, d.timer_pool_size, d.tag_pool_size);
    let mut shared = shared(c.clone());
    let history_ms = c.stats_history.0.as_millis() as u64;
    shared
        .core_mut()
        .set_clock(Clock::resume(unix_now_ms() - history_ms, 0));
    let shared = Arc::new(shared);
    let (requests, per_batch) = (1_300_000usize, 1024usize);
    let batches = requests / per_batch;
    let mut corpus = Corpus::new(CorpusSpec::default());
    let mut interned = crate::merger::Interned::default();
    let mut prepared = crate::report::PreparedBatch::default();
    let cells = shared.reports().snapshot();
    let started = Instant::now();
    for i in 0..batches {
        let t = 5_000 + i as u64 * (history_ms - 10_000) / batches as u64;
        let batch = corpus.decoded_batch(per_batch);
        let mut pool = shared.pool().write();
        {
            let mut dict = shared.dictionary().write();
            dict.set_now((t / 1000) as u32);
            interned.intern(&batch, t as u32, &mut *dict);
        }
        for (record, timers, tags) in interned.requests() {
            let (id, _) = pool.insert(*record, timers, tags, &mut |_, _| {});
            prepared.push(&pool.get(id).unwrap());
        }
        drop(pool);
        for cell in &cells {
            let mut r = cell.report.write();
            r.advance(t);
            r.add_batch(&prepared);
        }
        interned.clear();
        prepared.clear();
    }
    let now = shared.clock().now_ms64();
    for cell in &cells {
        let mut r = cell.report.write();
        r.advance(now);
        cell.publish(&r);
    }
    let (len, timers, tags) = {
        let p = shared.pool().read();
        (p.len(), p.timers_used(), p.tags_used())
    };
    let rows: u64 = cells.iter().map(|c| c.published_rows()).sum();
    eprintln!(
        "filled in {:?}: pool {len} requests, {timers} timers, {tags} tags; {} strings; {} \
         reports, {rows} rows",
        started.elapsed(),
        shared.dictionary().read().len(),
        cells.len()
    );
    let mut write_ms = Vec::new();
    let mut restore_ms = Vec::new();
    let mut bytes = 0;
    for _ in 0..3 {
        let w = write(&shared, state.path()).unwrap();
        write_ms.push(w.write_ms);
        bytes = w.bytes;
        let mut fresh = Started::new(c.clone());
        let anon = rss_anon_kib();
        let file = read_file(&state.path().join(FILE)).unwrap();
        let touched: u64 = file.iter().step_by(4096).map(|&b| b as u64).sum();
        eprintln!(
            "the file read: {} MiB of it, the process's anonymous memory +{} MiB ({touched})",
            file.len() >> 20,
            (rss_anon_kib() - anon) >> 10
        );
        drop(file);
        fresh.restore_at_start();
        assert_eq!(fresh.snapshot.restored_requests, len as u64);
        assert_eq!(fresh.snapshot.restored_reports, cells.len() as u64);
        restore_ms.push(fresh.snapshot.restore_ms);
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    eprintln!(
        "snapshot {bytes} bytes ({:.0} MiB): write {:.0} ms, restore {:.0} ms (medians of 3; \
         write {write_ms:?}, restore {restore_ms:?})",
        bytes as f64 / (1 << 20) as f64,
        median(&mut write_ms),
        median(&mut restore_ms)
    );
}

/// A snapshot left as `snapshot.bin.restoring` (a start died restoring it) is moved aside,
/// not tried again; a snapshot.bin beside it is restored as usual, and consumed (no file
/// left under either name).
#[test]
fn a_snapshot_a_start_died_restoring_is_not_tried_again() {
    let dir = tempfile::tempdir().unwrap();
    let a = Arc::new(shared(config(dir.path())));
    feed(&a, 40, 1);
    let bytes = encoded(&a);
    std::fs::write(dir.path().join(RESTORING_FILE), &bytes).unwrap();
    let mut b = shared(config(dir.path()));
    b.restore_at_start();
    assert!(!b.snapshot.restored);
    let reason = b.snapshot.skipped_reason.clone().unwrap();
    assert!(
        reason.contains("previous start stopped while restoring"),
        "{reason}"
    );
    assert!(!dir.path().join(RESTORING_FILE).exists());
    assert_eq!(std::fs::read(dir.path().join(SKIPPED_FILE)).unwrap(), bytes);
    // The next snapshot is restored, and leaves nothing behind.
    std::fs::write(dir.path().join(FILE), &bytes).unwrap();
    let mut c = shared(config(dir.path()));
    c.restore_at_start();
    assert!(c.snapshot.restored, "{:?}", c.snapshot.skipped_reason);
    assert_eq!(c.pool().read().len(), a.pool().read().len());
    assert!(!dir.path().join(FILE).exists() && !dir.path().join(RESTORING_FILE).exists());
}

/// A regular file is mapped, not copied into the process's memory (see `read_file`), and
/// reads as its bytes; an empty one too (mmap refuses a length of 0).
#[test]
fn a_snapshot_file_is_mapped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(FILE);
    let bytes: Vec<u8> = (0..3 * 4096 + 17).map(|i| (i * 7 % 251) as u8).collect();
    std::fs::write(&path, &bytes).unwrap();
    let read = read_file(&path).unwrap();
    assert!(matches!(read, FileBytes::Mapped(_)));
    assert_eq!(&*read, &bytes[..]);
    // Removed while mapped (as a restore removes it before it lets the bytes go): still read.
    std::fs::remove_file(&path).unwrap();
    assert_eq!(&*read, &bytes[..]);
    std::fs::write(&path, b"").unwrap();
    assert!(read_file(&path).unwrap().is_empty());
    // A file that cannot be mapped (sysfs: no mmap) is read instead.
    let sysfs = Path::new("/sys/devices/system/cpu/online");
    let read = read_file(sysfs).unwrap();
    assert!(matches!(read, FileBytes::Read(_)));
    assert_eq!(&*read, &std::fs::read(sysfs).unwrap()[..]);
}

fn small_snapshot() -> &'static (Vec<u8>, tempfile::TempDir) {
    static S: std::sync::OnceLock<(Vec<u8>, tempfile::TempDir)> = std::sync::OnceLock::new();
    S.get_or_init(|| {
        let sa = tempfile::tempdir().unwrap();
        let a = Arc::new(shared(config(sa.path())));
        feed(&a, 40, 1);
        (encoded(&a), sa)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]
    /// Content cut anywhere (and resealed, so the parser itself meets the cut), or with
    /// garbage written over it: an error or a restore, never a panic.
    #[test]
    fn cut_or_garbled_content_never_panics(cut in 0.0f64..1.0, at in 0.0f64..1.0, garbage in proptest::collection::vec(any::<u8>(), 1..16)) {
        let (bytes, dir) = small_snapshot();
        let content = content(bytes);
        let n = (cut * content.len() as f64) as usize;
        let mut b = shared(config(dir.path()));
        let r = b.restore(&reseal(content[..n].to_vec()));
        prop_assert!(r.is_err());
        let mut garbled = content.clone();
        let start = 12 + (at * (garbled.len() - 12) as f64) as usize;
        for (i, g) in garbage.iter().enumerate() {
            if let Some(x) = garbled.get_mut(start + i) {
                *x = *g;
            }
        }
        let mut b = shared(config(dir.path()));
        let _ = b.restore(&reseal(garbled));
    }
}
