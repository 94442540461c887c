//! The set of live reports, and the state file that replays run-time changes.

use super::*;
use crate::config::Config;

#[test]
fn report_set_inserts_gets_and_removes() {
    let mut dict = Dictionary::new(100);
    let set = ReportSet::default();
    set.insert(Report::new(builtin_defs().remove(0), &mut dict, 10).unwrap())
        .unwrap();
    set.insert(Report::new(def("x", &["tag:a"]), &mut dict, 10).unwrap())
        .unwrap();
    let (e, mut back) = set
        .try_insert(Report::new(def("x", &[]), &mut dict, 10).unwrap())
        .unwrap_err();
    assert!(e.to_string().contains("already exists"));
    back.release(&mut dict);
    assert_eq!(
        set.snapshot()
            .iter()
            .map(|c| c.name().to_string())
            .collect::<Vec<_>>(),
        vec!["info", "x"]
    );
    assert!(set.get("info").unwrap().builtin());
    assert!(!set.get("x").unwrap().builtin());
    let cell = set.get("x").unwrap();
    cell.instrument.record(None, 10);
    assert_eq!(cell.instrument.count(), 10);
    assert_eq!(cell.instrument.name(), "report:x");
    assert_eq!(cell.update_ns_per_request(), 0.0, "untimed");
    let (gone, unread) = set.remove("x").unwrap();
    assert!(unread, "no other report reads its table");
    gone.report.write().release(&mut dict);
    dict.sweep(1);
    assert_eq!(dict.len(), 0);
    assert!(set.get("x").is_none() && set.remove("x").is_none());
    assert_eq!(set.len(), 1);
}

#[test]
fn state_file_round_trips_and_replays() {
    let dir = temp_dir("state");
    assert_eq!(load_state(&dir).unwrap(), None);
    let mut config = Config {
        state_dir: dir.clone(),
        ..Config::default()
    };
    config.report.push(def("configured", &["hostname"]));
    assert_eq!(
        initial_defs(config.builtin_reports, &config.report, &config.state_dir)
            .unwrap()
            .len(),
        22
    );

    let set = ReportSet::default();
    let created = with_filters(
        def("by_country", &["tag:country"]),
        &[("status", 200.into())],
    );
    set.persist_change(&set.lock_changes(), &dir, |s| s.record_create(&created))
        .unwrap();
    set.persist_change(&set.lock_changes(), &dir, |s| {
        s.record_delete("report_by_status", true)
    })
    .unwrap();
    set.persist_change(&set.lock_changes(), &dir, |s| s.record_delete("info", true))
        .unwrap();
    // Re-creating a deleted built-in with other keys: the new one replaces it.
    let info2 = def("info", &["hostname"]);
    set.persist_change(&set.lock_changes(), &dir, |s| s.record_create(&info2))
        .unwrap();
    let state = load_state(&dir).unwrap().unwrap();
    assert_eq!(state.created, vec![created.clone(), info2.clone()]);
    assert_eq!(state.deleted, vec!["report_by_status", "info"]);

    let defs = initial_defs(config.builtin_reports, &config.report, &config.state_dir).unwrap();
    let names: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
    assert!(!names.contains(&"report_by_status"));
    assert!(names.contains(&"configured"));
    assert_eq!(&names[names.len() - 2..], ["by_country", "info"]);
    assert_eq!(defs.iter().find(|d| d.name == "info").unwrap(), &info2);

    // Deleting a run-time report forgets it; built-ins can be turned off entirely.
    set.persist_change(&set.lock_changes(), &dir, |s| {
        s.record_delete("by_country", false)
    })
    .unwrap();
    config.builtin_reports = false;
    let names: Vec<String> =
        initial_defs(config.builtin_reports, &config.report, &config.state_dir)
            .unwrap()
            .into_iter()
            .map(|d| d.name)
            .collect();
    assert_eq!(names, vec!["configured", "info"]);

    std::fs::write(dir.join(STATE_FILE), "{not json").unwrap();
    let e = initial_defs(config.builtin_reports, &config.report, &config.state_dir)
        .unwrap_err()
        .to_string();
    assert!(e.contains(STATE_FILE), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_shared_table_outlives_its_owner_until_no_report_reads_it() {
    let mut dict = Dictionary::new(100);
    let set = ReportSet::default();
    set.insert(Report::new(ReportDef::new("a", &["tag:x"]), &mut dict, 10).unwrap())
        .unwrap();
    let owner = set.get("a").unwrap();
    let twin = |name: &str| ReportDef::new(name, &["tag:x"]);
    let b = set.insert_twin(&twin("b"), &owner).unwrap();
    set.insert_twin(&twin("c"), &b).unwrap();
    assert!(
        set.insert_twin(&twin("b"), &owner).is_err(),
        "names stay unique"
    );
    set.seal_twins();
    let names = |cells: Vec<Arc<ReportCell>>| {
        cells
            .iter()
            .map(|c| c.name().to_string())
            .collect::<Vec<_>>()
    };
    assert!(owner.has_twins());
    assert_eq!(b.shares_table_with(), Some("a"));
    assert_eq!(set.get("c").unwrap().shares_table_with(), Some("a"));
    assert_eq!(b.def_of(&b.report.read()).name, "b");
    assert_eq!(names(set.owners()), vec!["a"]);
    assert_eq!(names(b.sharers()), vec!["a", "b", "c"]);
    // The owner dropped: its table is still updated (by its cell) and read by the twins.
    let (_, unread) = set.remove("a").unwrap();
    assert!(!unread);
    assert_eq!(names(set.owners()), vec!["a"]);
    assert_eq!(names(b.sharers()), vec!["b", "c"]);
    assert!(!set.remove("b").unwrap().1);
    let (c, unread) = set.remove("c").unwrap();
    assert!(unread, "the last reader gone");
    assert!(set.owners().is_empty());
    c.report.write().release(&mut dict);
    dict.sweep(1);
    assert_eq!(dict.len(), 0);
}
