//! Families: members equal to standalone reports, how families form, who leads a round, and
//! members detaching for queries and rejoining their stage.

use super::*;
use crate::report::StageSplit;

/// The property reports plus projections of some of them, so that request, request-tag, timer
/// and filtered families form.
fn family_defs() -> Vec<ReportDef> {
    let mut defs = property_defs();
    defs.extend([
        def("host_script", &["hostname", "script_name"]),
        def("status", &["status"]),
        def("country_host", &["hostname", "tag:country"]),
        def("script_group", &["script_name", "timer_tag:group"]),
        def(
            "group_server_host",
            &[
                "timer_tag:server",
                "hostname",
                "timer_tag:group",
                "tag:app",
                "script_name",
            ],
        ),
        with_filters(
            def("filtered_status", &["status"]),
            &[
                ("min_time", 0.01.into()),
                ("status", 200.into()),
                ("timer_tag:group", "db".into()),
            ],
        ),
    ]);
    defs
}

/// Feeds the same requests, at the same times, to standalone reports and to the same reports in
/// families (stage updated per request, drained at ticks and at random "queries"); every member
/// always equals its standalone twin once drained. With a row limit, its totals are exact and its
/// rows with "(other)" sum to them (see [`check_kept`]). An op's mask, when set, says from then on which reports count as queried (bit `i % 8`
/// for the `i`th report): members detach from their stage and rejoin it at random.
type FamilyOp = (Req, u64, bool, Option<u8>);

fn check_families(ops: &[FamilyOp], max_rows: usize) -> Result<(), TestCaseError> {
    check_families_of(
        &family_defs(),
        &[5, 2, 2, 2, 2],
        "families: request, country, group, mixed, filtered",
        false,
        ops,
        max_rows,
        false,
    )
}

/// Timer reports over every subset of the timer tags `group` and `server`, with and without
/// request fields, around one keyed on all of their keys (the top), and a filtered pair: a
/// lattice family of eight, and one of two (see `lattice`).
fn lattice_defs() -> Vec<ReportDef> {
    let on_db = |d: ReportDef| with_filters(d, &[("timer_tag:group", "db".into())]);
    vec![
        def("g", &["timer_tag:group"]),
        def("s", &["timer_tag:server"]),
        def("gs", &["timer_tag:group", "timer_tag:server"]),
        def("script_g", &["script_name", "timer_tag:group"]),
        def("host_s_status", &["hostname", "timer_tag:server", "status"]),
        def(
            "s_schema_g",
            &["timer_tag:server", "schema", "timer_tag:group"],
        ),
        def(
            "script_host_s",
            &["script_name", "hostname", "timer_tag:server"],
        ),
        // Keyed on all of the stage's keys: closes no tick straight from it (rows lack tags).
        def(
            "all",
            &[
                "timer_tag:group",
                "script_name",
                "hostname",
                "status",
                "schema",
                "timer_tag:server",
            ],
        ),
        def("script", &["script_name"]),
        on_db(def("db_s", &["timer_tag:server"])),
        on_db(def(
            "db_script_g_s",
            &["script_name", "timer_tag:group", "timer_tag:server"],
        )),
    ]
}

/// A request of 17 to 40 timers: past the timers a lattice stage compares one by one, it looks
/// their values up (see `lattice`).
fn arb_req_of_many_timers() -> impl Strategy<Value = Req> {
    let timer = (
        prop_oneof![Just(0.01f32), 0.0f32..1.0],
        0u32..4,
        arb_tags(&["group", "server"], &["db", "cache", "m1"]),
    );
    (arb_req(), proptest::collection::vec(timer, 17..40)).prop_map(|(mut r, timers)| {
        r.timers.extend(timers);
        r
    })
}

fn check_families_of(
    defs: &[ReportDef],
    sizes: &[usize],
    what: &str,
    lattice: bool,
    ops: &[FamilyOp],
    max_rows: usize,
    split: bool,
) -> Result<(), TestCaseError> {
    let win = window_of_ticks(4);
    let mut dict = Dictionary::new(1_000_000);
    let mut make = |limit: usize| -> Vec<Report> {
        defs.iter()
            .map(|d| {
                let mut r = Report::new(d.clone(), &mut dict, limit)
                    .unwrap()
                    .with_exact_window(win, 0);
                r.keep_closed_ticks();
                r
            })
            .collect()
    };
    let mut alone = make(usize::MAX);
    let mut grouped = make(max_rows);
    let families = form_families(&mut grouped, true, lattice);
    let formed: Vec<usize> = families.iter().map(|(m, _)| m.len()).collect();
    prop_assert_eq!(formed, sizes.to_vec(), "{}", what);
    let cells = in_families(grouped, families);
    // Split: each family's stage gets a part counted on thread 2 (a thread of the test's own),
    // and each round holds three requests, so that both slices count some.
    let mut splits: Vec<(Arc<Family>, Arc<StageSplit>)> = Vec::new();
    if split {
        for c in &cells {
            if let Some(f) = c.family().filter(|f| f.is_led_by(c)) {
                let s = Arc::new(f.with_stage(|stage| StageSplit::new(stage, &[2], 0)));
                f.set_split(Some(Arc::clone(&s)));
                splits.push((Arc::clone(f), s));
            }
        }
        prop_assert_eq!(splits.len(), sizes.len());
    }
    let per_round = if split { 3 } else { 1 };
    let (to_part, rounds) = std::sync::mpsc::channel::<(u64, Arc<PreparedBatch>)>();
    let part = {
        let splits = splits.clone();
        std::thread::spawn(move || {
            for (number, batch) in rounds {
                for (f, s) in &splits {
                    if s.count_part(2, number, &batch, s.slice(batch.len(), 1)) {
                        f.fold_parts();
                    }
                }
            }
        })
    };
    let compare = |alone: &[Report], dict: &Dictionary| -> Result<(), TestCaseError> {
        // Queries of members: the same table as the standalone report's.
        if max_rows == usize::MAX {
            let all = Query {
                limit: Some(1000),
                percentiles: Some(vec![50.0, 99.0]),
                ..q()
            };
            for (a, cell) in alone.iter().zip(&cells) {
                // As the API does: a member is detached from its stage first. The log is not
                // applied: queries read its samples for the rows they show.
                if let Some(f) = cell.family() {
                    f.detach_for_query(cell);
                }
                let r = cell.report.read();
                let mine = r.query(&all, dict, 1.0).unwrap();
                let theirs = a.query(&all, dict, 1.0).unwrap();
                prop_assert_eq!(
                    serde_json::to_value(&mine).unwrap(),
                    serde_json::to_value(&theirs).unwrap(),
                    "query of {}",
                    a.def.name
                );
            }
        }
        // Drained, every member's rows are exactly the standalone report's.
        for cell in &cells {
            if let Some(f) = cell.family() {
                f.drain();
            }
        }
        for (a, cell) in alone.iter().zip(&cells) {
            cell.apply_hist_log();
            let r = cell.report.read();
            check_kept(&r, a, max_rows)?;
            if max_rows == usize::MAX {
                prop_assert_eq!(r.rows_lost(), 0);
            }
        }
        Ok(())
    };
    let mut now = 0;
    let mut mask = 0u8;
    let queried = |mask: u8, c: &ReportCell| {
        cells
            .iter()
            .position(|x| std::ptr::eq(&**x, c))
            .is_some_and(|i| mask >> (i % 8) & 1 == 1)
    };
    // A round of the merge threads, one after the other: a leader counts the round into its
    // stage, its detached members and the members on its thread; the members on the other
    // thread take their turn at the frozen stage themselves, before or after their leader.
    let leaders = round_leaders(&cells);
    // Each thread gives one member a turn per round (as the merger does). Every third round the
    // merger is behind: turns wait in the first half of the time they have.
    let number = std::cell::Cell::new(0u64);
    let round = |now: u64, batch: &PreparedBatch, mask: u8| {
        number.set(number.get() + 1);
        let behind = now.is_multiple_of(3).then_some(now);
        let mut turned = [false; 2];
        for (i, cell) in cells.iter().enumerate() {
            let w = cell.worker();
            match cell.family() {
                Some(f) if leaders[i] == i => {
                    let round = f.update(
                        now,
                        batch,
                        |c| queried(mask, c),
                        (!turned[w]).then_some(w),
                        behind,
                        number.get(),
                    );
                    turned[w] |= round.handed;
                    for c in round.detached {
                        let mut rep = c.report.write();
                        rep.advance(now);
                        rep.add_batch(batch);
                    }
                }
                Some(f) => {
                    if w != cells[leaders[i]].worker() && !turned[w] {
                        turned[w] = f.take_turn(cell, behind);
                    }
                }
                None => {
                    let mut rep = cell.report.write();
                    rep.advance(now);
                    rep.add_batch(batch);
                }
            }
        }
    };
    for (r, step, query, new_mask) in ops {
        now += step;
        if let Some(m) = new_mask {
            mask = *m;
            // The balancer moves reports between the two threads now and then (between rounds).
            for (i, c) in cells.iter().enumerate() {
                c.set_worker((mask >> ((i + 4) % 8) & 1) as usize);
            }
        }
        let at = ops.iter().position(|o| std::ptr::eq(&o.0, r)).unwrap_or(0);
        let reqs: Vec<Req> = (0..per_round)
            .map(|k| ops[(at + k) % ops.len()].0.clone())
            .collect();
        let batch = Arc::new(prepared(&mut dict, &reqs));
        for a in alone.iter_mut() {
            a.advance(now);
            for v in batch.views() {
                a.add(&v);
            }
        }
        if split {
            // The part's thread may count the round before, beside or after the leader.
            to_part
                .send((number.get() + 1, Arc::clone(&batch)))
                .unwrap();
        }
        round(now, &batch, mask);
        if *query {
            compare(&alone, &dict)?;
        }
    }
    // Everything leaves the window.
    now += 10 * TICK_MS;
    for a in alone.iter_mut() {
        a.advance(now);
    }
    if split {
        to_part
            .send((number.get() + 1, Arc::new(PreparedBatch::default())))
            .unwrap();
    }
    round(now, &PreparedBatch::default(), mask);
    compare(&alone, &dict)?;
    drop(to_part);
    part.join().unwrap();
    for cell in &cells {
        prop_assert_eq!(cell.report.read().rows(), 0, "{} empties", cell.name());
    }
    // The ticks handed to the history writer: a member closes the same ticks as its standalone
    // twin (families need nothing special for history).
    if max_rows == usize::MAX {
        for (a, cell) in alone.iter_mut().zip(&cells) {
            let (mine, lost) = cell.report.write().take_closed_ticks();
            let (theirs, _) = a.take_closed_ticks();
            prop_assert_eq!(lost, 0);
            if a.def.name == "script" {
                // Unfiltered: its ticks hold every request sent.
                let counted: u64 = ticks_of(&mine).iter().map(|t| t.1.req_count).sum();
                prop_assert_eq!(counted, (ops.len() * per_round) as u64);
            }
            prop_assert_eq!(
                ticks_of(&mine),
                ticks_of(&theirs),
                "ticks of {}",
                a.def.name
            );
        }
    }
    Ok(())
}

/// Closed ticks as comparable values: per tick with data, its index, totals and rows by key.
type TickView = (
    u64,
    Sums,
    Vec<(u16, u64)>,
    BTreeMap<Vec<u32>, (Sums, Vec<(u16, u64)>)>,
);

fn ticks_of(ticks: &[Arc<ClosedTick>]) -> Vec<TickView> {
    ticks
        .iter()
        .filter(|t| t.totals().0 != &Sums::default())
        .map(|t| {
            let rows = t
                .rows()
                .map(|(k, s, h)| (k.to_vec(), (s, h.iter().collect())))
                .collect();
            (
                t.index(),
                *t.totals().0,
                t.totals().1.iter().collect(),
                rows,
            )
        })
        .collect()
}

/// Rounds of one request each, at steps of none to 3 s, a query after some, and now and then a
/// new mask of the reports queries read (see [`FamilyOp`]).
fn arb_family_ops() -> impl Strategy<Value = Vec<FamilyOp>> {
    proptest::collection::vec(
        (
            arb_req(),
            prop_oneof![3 => Just(0u64), 2 => 1u64..700, 1 => 700u64..3000],
            proptest::bool::weighted(0.3),
            prop_oneof![4 => Just(None), 1 => any::<u8>().prop_map(Some)],
        ),
        1..60,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn family_members_equal_standalone_reports(
        ops in arb_family_ops(),
    ) {
        check_families(&ops, usize::MAX)?;
    }

    #[test]
    fn family_members_with_a_row_limit_keep_exact_rows(
        ops in arb_family_ops(),
        max_rows in 1usize..4,
    ) {
        check_families(&ops, max_rows)?;
    }

    #[test]
    fn lattice_members_equal_standalone_reports(
        ops in proptest::collection::vec(
            (
                prop_oneof![4 => arb_req(), 1 => arb_req_of_many_timers()],
                prop_oneof![3 => Just(0u64), 2 => 1u64..700, 1 => 700u64..3000],
                proptest::bool::weighted(0.3),
                prop_oneof![4 => Just(None), 1 => any::<u8>().prop_map(Some)],
            ),
            1..60),
        max_rows in prop_oneof![3 => Just(usize::MAX), 1 => 1usize..4],
    ) {
        check_families_of(&lattice_defs(), &[8, 2], "lattice families", true, &ops, max_rows, false)?;
    }

    /// Split stages (see `split`): every family's stage counted by its leader and by a part on
    /// a thread of its own, which runs its rounds as the merge threads do, behind or beside the
    /// leader, while queries detach members and drains read the stages: members still equal
    /// their standalone twins, closed ticks included.
    #[test]
    fn members_of_split_stages_equal_standalone_reports(
        ops in arb_family_ops(),
        max_rows in prop_oneof![3 => Just(usize::MAX), 1 => 1usize..4],
    ) {
        check_families_of(
            &family_defs(),
            &[5, 2, 2, 2, 2],
            "families: request, country, group, mixed, filtered",
            false,
            &ops,
            max_rows,
            true,
        )?;
    }
}

/// A report of `def` over 15 minutes in 60 ticks, complete from 0.
fn windowed(def: ReportDef, dict: &mut Dictionary) -> Report {
    Report::new(def, dict, 100)
        .unwrap()
        .with_window(std::time::Duration::from_secs(900), 60, 0)
}

#[test]
fn families_form_only_from_projections_with_equal_filters_tags_and_windows() {
    let mut dict = Dictionary::new(1000);
    let mut reports: Vec<Report> = [
        def("a", &["script_name"]),
        def("b", &["hostname", "script_name"]),
        def("c", &["tag:x"]),
        with_filters(def("d", &["script_name"]), &[("status", 200.into())]),
        ReportDef {
            history: Some(crate::units::HumanDuration(std::time::Duration::from_secs(
                60,
            ))),
            ..def("e", &["status"])
        },
        def("f", &["timer_tag:g"]),
        def("g", &["hostname", "timer_tag:g"]),
    ]
    .into_iter()
    .map(|d| windowed(d, &mut dict))
    .collect();
    let families = form_families(&mut reports, true, false);
    let members: Vec<Vec<usize>> = families.iter().map(|(m, _)| m.clone()).collect();
    assert_eq!(members, vec![vec![0, 1], vec![5, 6]]);
    // Members share the first one's phase; the stage keys on the union of their keys.
    assert_eq!(reports[1].window().phase_ms, reports[0].window().phase_ms);
    assert_eq!(reports[6].window().phase_ms, reports[5].window().phase_ms);
    assert_eq!(families[0].1.keys, vec![Key::Hostname, Key::ScriptName]);
}

#[test]
fn lattice_families_form_around_the_reports_whose_keys_include_theirs() {
    let mut dict = Dictionary::new(1000);
    let defs = [
        def("g", &["timer_tag:g"]),
        def("script_g", &["script_name", "timer_tag:g"]),
        def("g_s", &["timer_tag:g", "timer_tag:s"]),
        def(
            "op",
            &["script_name", "hostname", "server_name", "timer_tag:op"],
        ),
        def(
            "top",
            &["script_name", "timer_tag:g", "timer_tag:s", "timer_tag:op"],
        ),
        def("host_g", &["hostname", "timer_tag:g"]),
    ];
    let make = |dict: &mut Dictionary| -> Vec<Report> {
        defs.iter()
            .map(|d| Report::new(d.clone(), dict, 100).unwrap())
            .collect()
    };
    // Without the lattice: one family per set of timer tags, over the union of its fields.
    let mut reports = make(&mut dict);
    let families = form_families(&mut reports, true, false);
    let members: Vec<Vec<usize>> = families.iter().map(|(m, _)| m.clone()).collect();
    assert_eq!(members, vec![vec![0, 1, 5]]);
    assert!(families[0].1.lattice.is_none());
    // With it: a report joins the top with the fewest keys that includes its own (g joins
    // host_g, not top), its stage keyed like the top, a lattice where the tags differ; "op"
    // is alone.
    let mut reports = make(&mut dict);
    let families = form_families(&mut reports, true, true);
    let members: Vec<Vec<usize>> = families.iter().map(|(m, _)| m.clone()).collect();
    assert_eq!(members, vec![vec![0, 5], vec![1, 2, 4]]);
    assert!(families[0].1.lattice.is_none());
    assert_eq!(families[0].1.keys.len(), 2);
    let stage = &families[1].1;
    assert!(stage.lattice.is_some());
    let mut keys = stage.keys.clone();
    let mut top = reports[4].keys.clone();
    keys.sort_by_key(|k| format!("{k:?}"));
    top.sort_by_key(|k| format!("{k:?}"));
    assert_eq!(keys, top);
    // Members take the first one's phase.
    for &i in &members[1] {
        assert_eq!(reports[i].window().phase_ms, reports[1].window().phase_ms);
    }
}

/// `reports` as cells of a set, each member of `families` (from `form_families`) joined to its
/// family.
fn in_families(reports: Vec<Report>, families: Vec<(Vec<usize>, Report)>) -> Vec<Arc<ReportCell>> {
    let set = ReportSet::default();
    let cells: Vec<Arc<ReportCell>> = reports
        .into_iter()
        .map(|r| set.try_insert(r).unwrap())
        .collect();
    for (members, stage) in families {
        let member_cells: Vec<_> = members.iter().map(|&i| Arc::clone(&cells[i])).collect();
        let family = Arc::new(Family::new(stage, &member_cells));
        for c in &member_cells {
            c.join(Arc::clone(&family));
        }
    }
    cells
}

/// `reports`, all of one family, as cells of a set joined to it.
fn one_family(mut reports: Vec<Report>) -> (Arc<Family>, Vec<Arc<ReportCell>>) {
    let families = form_families(&mut reports, true, false);
    assert_eq!(families.len(), 1, "one family");
    assert_eq!(
        families[0].0,
        (0..reports.len()).collect::<Vec<_>>(),
        "one family of all"
    );
    let cells = in_families(reports, families);
    let family = Arc::clone(cells[0].family().unwrap());
    (family, cells)
}

/// One family of reports named and keyed as `defs` say (100 rows each), over a window of
/// `history_ms` in `ticks` ticks starting at 0.
fn family_over(
    dict: &mut Dictionary,
    history_ms: u64,
    ticks: u64,
    defs: &[(&str, &[&str])],
) -> (Arc<Family>, Vec<Arc<ReportCell>>) {
    let win = Window {
        history_ms,
        tick_ms: history_ms / ticks,
        ticks,
        phase_ms: 0,
    };
    let reports = defs
        .iter()
        .map(|(name, keys)| {
            Report::new(def(name, keys), dict, 100)
                .unwrap()
                .with_exact_window(win, 0)
        })
        .collect();
    one_family(reports)
}

/// A round's leader of each family is its first member among the round's reports, in whatever
/// order the round lists them; when that member is not in the round (dropped), the next one
/// leads. Reports in no family have none.
#[test]
fn each_family_is_led_by_its_first_member_in_the_round() {
    let mut dict = Dictionary::new(1000);
    let mut reports: Vec<Report> = [
        def("script", &["script_name"]),
        def("tag", &["tag:x"]),
        def("host_script", &["hostname", "script_name"]),
        def("tag_script", &["tag:x", "script_name"]),
        def("status", &["status"]),
        def("lone_timer", &["timer_tag:y"]),
    ]
    .into_iter()
    .map(|d| Report::new(d, &mut dict, 100).unwrap())
    .collect();
    let families = form_families(&mut reports, true, false);
    let cells = in_families(reports, families);
    let led = |order: &[usize]| -> Vec<(String, Option<String>)> {
        let round: Vec<Arc<ReportCell>> = order.iter().map(|&i| Arc::clone(&cells[i])).collect();
        round_leaders(&round)
            .iter()
            .zip(&round)
            .map(|(&l, c)| {
                let leader = (l != usize::MAX).then(|| round[l].name().to_string());
                (c.name().to_string(), leader)
            })
            .collect()
    };
    let of = |v: &[(&str, Option<&str>)]| -> Vec<(String, Option<String>)> {
        v.iter()
            .map(|(n, l)| (n.to_string(), l.map(str::to_string)))
            .collect()
    };
    assert_eq!(
        led(&[3, 2, 5, 1, 0, 4]),
        of(&[
            ("tag_script", Some("tag")),
            ("host_script", Some("script")),
            ("lone_timer", None),
            ("tag", Some("tag")),
            ("script", Some("script")),
            ("status", Some("script")),
        ])
    );
    // `script` and `tag` left the set: the next members lead.
    assert_eq!(
        led(&[4, 3, 2]),
        of(&[
            ("status", Some("host_script")),
            ("tag_script", Some("tag_script")),
            ("host_script", Some("host_script")),
        ])
    );
}

/// While the merger is behind (`behind`), members' turns at a frozen stage wait for the first half
/// of the time the stage has to reach them, then go on one per round; whatever waited, every
/// member has the stage, and has moved into the new tick, by the time the next tick begins.
#[test]
fn turns_wait_while_the_merger_is_behind_for_half_the_tick() {
    let mut dict = Dictionary::new(1000);
    let (family, cells) = family_over(
        &mut dict,
        20 * TICK_MS,
        2,
        &[
            ("script", &["script_name"]),
            ("host_script", &["hostname", "script_name"]),
            ("host", &["hostname"]),
        ],
    );
    let batch = prepared(&mut dict, &[Req::default()]);
    let empty = prepared(&mut dict, &[]);
    let round = |now: u64, batch: &PreparedBatch, behind: bool| -> bool {
        family
            .update(now, batch, |_| false, Some(0), behind.then_some(now), 0)
            .handed
    };
    let closed = |c: &ReportCell| c.report.read().open_index;
    assert!(!round(100, &batch, true), "nothing frozen yet");
    // The tick ends at 10 s: the stage is frozen, due by 20 s; behind, no turn before 15 s.
    let frozen_at = 10 * TICK_MS + 50;
    for now in [frozen_at, frozen_at + 2_000, frozen_at + 4_900] {
        assert!(!round(now, &empty, true), "behind at {now}: turns wait");
        assert!(!family.take_turn(&cells[1], Some(now)), "{now}");
    }
    assert!(cells.iter().all(|c| closed(c) == 0), "nobody moved yet");
    // Past half the time: one member per round again, though still behind.
    assert!(round(frozen_at + 5_000, &empty, true), "half-way: a turn");
    assert_eq!(
        cells.iter().filter(|c| closed(c) == 1).count(),
        1,
        "one member moved into the new tick"
    );
    // Not behind: the next one at once.
    assert!(round(frozen_at + 5_100, &empty, false));
    assert_eq!(cells.iter().filter(|c| closed(c) == 1).count(), 2);
    // The last one is handed the stage at the next tick whatever the merger's state, before
    // the stage freezes again.
    round(20 * TICK_MS + 10, &empty, true);
    for c in &cells {
        assert!(closed(c) >= 1, "{} has the stage", c.name());
        assert_eq!(c.report.read().total_requests(), 1, "{}", c.name());
    }
}

/// A member queries read is detached: the query makes it take what the stage holds for it, so it
/// holds every request merged so far, and from then on the merge thread updates it directly; a
/// member no longer queried rejoins the stage once the stage was drained, with no request
/// counted twice or missed. The merge thread detaches a queried member too (a query that did
/// not do it itself: tests).
#[test]
fn a_queried_member_detaches_from_its_stage_and_rejoins_it() {
    let mut dict = Dictionary::new(1000);
    let (family, cells) = family_over(
        &mut dict,
        60 * TICK_MS,
        1,
        &[
            ("script", &["script_name"]),
            ("host_script", &["hostname", "script_name"]),
        ],
    );
    let (script, host_script) = (&cells[0], &cells[1]);
    let batch = prepared(&mut dict, &[Req::default()]);
    let mut sent = 0;
    // One round: the family's step, then the detached members' own updates.
    let mut round = |now: u64, queried: &[&str]| -> Vec<String> {
        sent += 1;
        let detached = family
            .update(
                now,
                &batch,
                |c| queried.contains(&c.name()),
                Some(0),
                None,
                0,
            )
            .detached;
        for c in &detached {
            let mut r = c.report.write();
            r.advance(now);
            r.add_batch(&batch);
        }
        detached.iter().map(|c| c.name().to_string()).collect()
    };
    let total = |cell: &ReportCell| cell.report.read().total_requests();
    assert!(round(100, &[]).is_empty());
    assert_eq!(total(script), 0, "the stage holds the request");
    // A query detaches the member at once: it then holds everything itself.
    family.detach_for_query(script);
    assert_eq!(total(script), 1);
    assert_eq!(round(200, &["script"]), ["script"]);
    assert_eq!(total(script), 2, "updated directly");
    assert_eq!(
        total(host_script),
        0,
        "the other member still through the stage"
    );
    // The merge thread detaches a member queried lately.
    assert_eq!(
        round(300, &["script", "host_script"]),
        ["script", "host_script"]
    );
    assert_eq!(total(host_script), 3);
    // Both detached: nobody needs the stage, which is kept empty, so one no longer queried
    // rejoins at once.
    assert_eq!(round(400, &["script"]), ["script"]);
    // The other, no longer queried, stays detached while the stage holds requests it has...
    assert_eq!(round(500, &[]), ["script"]);
    assert_eq!(total(script), 5);
    assert_eq!(round(500 + family::DRAIN_EVERY_MS, &[]), ["script"]);
    // ... until the periodic drain empties the stage.
    assert!(
        round(600 + family::DRAIN_EVERY_MS, &[]).is_empty(),
        "rejoined"
    );
    for c in &cells {
        assert_eq!(
            total(c),
            sent - 1,
            "{}: the last request is in the stage",
            c.name()
        );
    }
    family.drain();
    for c in &cells {
        assert_eq!(total(c), sent, "{} drained", c.name());
    }
}

/// Queries detach members on their own thread while the merge thread runs the family's rounds
/// (ticks, drains, expiry) and detaches and rejoins members as the queried flags change: once
/// both stop, every member equals its standalone twin, closed ticks included, whatever the
/// interleaving was.
#[test]
fn detaching_queries_racing_the_merge_thread_lose_and_double_nothing() {
    use std::sync::atomic::{AtomicBool, AtomicU8, Ordering::Relaxed};
    let win = window_of_ticks(4);
    let mut dict = Dictionary::new(100_000);
    let defs = [
        def("info", &[]),
        def("script", &["script_name"]),
        def("host_script", &["hostname", "script_name"]),
        def("script_status", &["script_name", "status"]),
    ];
    let make = |dict: &mut Dictionary| -> Vec<Report> {
        defs.iter()
            .map(|d| {
                let mut r = Report::new(d.clone(), dict, usize::MAX)
                    .unwrap()
                    .with_exact_window(win, 0);
                r.keep_closed_ticks();
                r
            })
            .collect()
    };
    let mut alone = make(&mut dict);
    let grouped = make(&mut dict);
    let (family, cells) = one_family(grouped);
    let mut rng = crate::corpus::SplitMix64::new(11);
    // Stages of hundreds of rows, so that a member's turn on the other thread takes a while
    // (the leader's rounds meet it busy), and a tick ends every ~3 rounds.
    let scripts: Vec<&'static str> = (0..300)
        .map(|i| &*Box::leak(format!("/s{i}").into_boxed_str()))
        .collect();
    let batches: Vec<PreparedBatch> = (0..400)
        .map(|_| {
            let reqs: Vec<Req> = (0..1 + rng.next_u64() % 120)
                .map(|_| Req {
                    host: ["h0", "h1"][(rng.next_u64() % 2) as usize],
                    script: scripts[(rng.next_u64() % 300) as usize],
                    status: [200, 404][(rng.next_u64() % 2) as usize],
                    time: (1 + rng.next_u64() % 1000) as f32 / 1e3,
                    ..Req::default()
                })
                .collect();
            prepared(&mut dict, &reqs)
        })
        .collect();
    let queried = AtomicU8::new(0);
    let done = AtomicBool::new(false);
    let ops = std::sync::atomic::AtomicUsize::new(0);
    let mut detaches = 0;
    let mut rejoins_seen = 0;
    // Two members are on the other merge thread: they take their turns at the frozen stage
    // there, racing the leader's rounds (tick ends wait for them) and the queries' detaches.
    cells[2].set_worker(1);
    cells[3].set_worker(1);
    let turns = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        s.spawn(|| {
            while !done.load(Relaxed) {
                for c in &cells[2..] {
                    turns.fetch_add(usize::from(family.take_turn(c, None)), Relaxed);
                }
                std::thread::yield_now();
            }
        });
        s.spawn(|| {
            // The query thread: marks members queried and detaches them, or stops querying
            // some (they rejoin), at its own pace.
            let mut rng = crate::corpus::SplitMix64::new(12);
            while !done.load(Relaxed) {
                let i = (rng.next_u64() % 4) as usize;
                if rng.next_u64().is_multiple_of(3) {
                    queried.fetch_and(!(1 << i), Relaxed);
                } else {
                    queried.fetch_or(1 << i, Relaxed);
                    family.detach_for_query(&cells[i]);
                    let _ = cells[i].report.read().query(&q(), &dict, 1.0);
                }
                ops.fetch_add(1, Relaxed);
                std::thread::yield_now();
            }
        });
        // The merge thread.
        let mut was_detached = [false; 4];
        for (round, batch) in batches.iter().enumerate() {
            // Each round waits for a query thread's step, so that the two interleave (they
            // still race within the round).
            let (seen, deadline) = (
                ops.load(Relaxed),
                std::time::Instant::now() + std::time::Duration::from_secs(20),
            );
            while ops.load(Relaxed) == seen {
                assert!(
                    std::time::Instant::now() < deadline,
                    "the query thread made no step"
                );
                std::thread::yield_now();
            }
            let now = round as u64 * 337;
            let mask = queried.load(Relaxed);
            let detached = family
                .update(
                    now,
                    batch,
                    |c| {
                        let i = cells.iter().position(|x| std::ptr::eq(&**x, c)).unwrap();
                        mask >> i & 1 == 1
                    },
                    Some(0),
                    None,
                    0,
                )
                .detached;
            let mut is_detached = [false; 4];
            for c in &detached {
                let i = cells.iter().position(|x| Arc::ptr_eq(x, c)).unwrap();
                is_detached[i] = true;
                let mut r = c.report.write();
                r.advance(now);
                r.add_batch(batch);
                // As the merger's update of a detached member counts it.
                c.instrument.record(None, batch.len() as u64);
            }
            for i in 0..4 {
                detaches += usize::from(is_detached[i] && !was_detached[i]);
                rejoins_seen += usize::from(!is_detached[i] && was_detached[i]);
            }
            was_detached = is_detached;
            for a in alone.iter_mut() {
                a.advance(now);
                for v in batch.views() {
                    a.add(&v);
                }
            }
        }
        done.store(true, Relaxed);
    });
    assert!(
        detaches > 0 && rejoins_seen > 0,
        "{detaches} detaches, {rejoins_seen} rejoins"
    );
    assert!(
        turns.load(Relaxed) > 0,
        "the other thread's members took no turn"
    );
    family.drain();
    // Each member counted every request once: attached, by the leader's step, under the lock a
    // query's detachment takes (counted after it, a member detached in between missed a round).
    let requests: u64 = batches.iter().map(|b| b.len() as u64).sum();
    for cell in &cells {
        assert_eq!(cell.instrument.count(), requests, "{}", cell.name());
    }
    for (a, cell) in alone.iter_mut().zip(&cells) {
        let mut r = cell.report.write();
        r.flush_hist();
        assert_eq!(rows_of(&r), rows_of(a), "rows of {}", a.def.name);
        assert_eq!(totals_of(&r), totals_of(a), "totals of {}", a.def.name);
        let (mine, _) = r.take_closed_ticks();
        let (theirs, _) = a.take_closed_ticks();
        assert_eq!(
            ticks_of(&mine),
            ticks_of(&theirs),
            "ticks of {}",
            a.def.name
        );
    }
}

/// A member whose keys are its stage's (in any order) closes its ticks straight from the frozen
/// stage: its open table stays empty while it takes the stage, and its closed ticks, rows and
/// totals equal a standalone report's; a member with fewer keys folds the stage as before.
#[test]
fn a_member_keyed_like_its_stage_closes_ticks_from_it() {
    let mut dict = Dictionary::new(1000);
    let defs: &[(&str, &[&str])] = &[
        ("script", &["script_name"]),
        ("host_script", &["hostname", "script_name"]),
        ("script_host", &["script_name", "hostname"]),
    ];
    let (family, cells) = family_over(&mut dict, 20 * TICK_MS, 2, defs);
    let win = cells[0].report.read().window();
    let mut alone: Vec<Report> = defs
        .iter()
        .map(|(name, keys)| {
            let mut r = Report::new(def(name, keys), &mut dict, 100)
                .unwrap()
                .with_exact_window(win, 0);
            r.keep_closed_ticks();
            r
        })
        .collect();
    for c in &cells {
        c.report.write().keep_closed_ticks();
    }
    let reqs = |n: usize| -> Vec<Req> {
        (0..n)
            .map(|i| Req {
                host: ["h0", "h1", "h2"][i % 3],
                script: ["/a", "/b", "/c", "/d", "/e"][i % 5],
                time: 0.01 * (i % 7 + 1) as f32,
                ..Req::default()
            })
            .collect()
    };
    // Three ticks of 10 s with requests in each, then one more round in the fourth.
    for (now, n) in [
        (100, 7),
        (5_000, 4),
        (10_100, 11),
        (15_000, 2),
        (20_100, 9),
        (30_100, 0),
    ] {
        let batch = prepared(&mut dict, &reqs(n));
        for a in alone.iter_mut() {
            a.advance(now);
            for v in batch.views() {
                a.add(&v);
            }
        }
        family.update(now, &batch, |_| false, Some(0), None, 0);
        for c in &cells[1..] {
            while family.take_turn(c, None) {}
        }
        if now > 10_000 {
            // Each tick's turn has come: the members keyed like the stage have no open rows.
            for c in &cells[1..] {
                assert_eq!(c.report.read().open.len(), 0, "{} at {now}", c.name());
            }
        }
    }
    assert!(
        cells[0].report.read().open.len() > 0,
        "`script` folds the stage"
    );
    family.drain();
    for (a, c) in alone.iter_mut().zip(&cells) {
        let mut r = c.report.write();
        check_kept(&r, a, usize::MAX).unwrap();
        let (mine, _) = r.take_closed_ticks();
        let (theirs, _) = a.take_closed_ticks();
        assert_eq!(ticks_of(&mine), ticks_of(&theirs), "ticks of {}", c.name());
        assert_eq!(mine.len(), 3, "{}", c.name());
    }
}

/// A stage holding a flood of new names within a tick (more rows than `reserve_for_stage`
/// samples, so members make room for the new rows at once): every member still equals its
/// standalone twin after the drain, the member keyed by the new names (room made for them) and
/// the one whose keys collapse them to a few rows (none made) alike.
#[test]
fn members_absorbing_a_flood_of_new_names_equal_standalone_reports() {
    let mut dict = Dictionary::new(1 << 20);
    let defs: &[(&str, &[&str])] = &[
        ("host_script", &["hostname", "script_name"]),
        ("script", &["script_name"]),
        ("host", &["hostname"]),
    ];
    let win = Window {
        history_ms: 60_000,
        tick_ms: 15_000,
        ticks: 4,
        phase_ms: 0,
    };
    let make = |dict: &mut Dictionary| -> Vec<Report> {
        defs.iter()
            .map(|(name, keys)| {
                Report::new(def(name, keys), dict, usize::MAX)
                    .unwrap()
                    .with_exact_window(win, 0)
            })
            .collect()
    };
    let mut alone = make(&mut dict);
    let (family, cells) = one_family(make(&mut dict));
    let names: Vec<&'static str> = (0..70_000)
        .map(|i| &*Box::leak(format!("/flood/{i}").into_boxed_str()))
        .collect();
    let hosts = ["h0", "h1", "h2", "h3", "h4"];
    let reqs: Vec<Req> = names
        .iter()
        .enumerate()
        .map(|(i, &script)| Req {
            host: hosts[i % hosts.len()],
            script,
            time: 0.001 * (i % 50 + 1) as f32,
            ..Req::default()
        })
        .collect();
    let batch = prepared(&mut dict, &reqs);
    for a in alone.iter_mut() {
        a.advance(100);
        for v in batch.views() {
            a.add(&v);
        }
    }
    family.update(100, &batch, |_| false, Some(0), None, 0);
    family.drain();
    for (a, c) in alone.iter().zip(&cells) {
        c.apply_hist_log();
        let r = c.report.read();
        check_kept(&r, a, usize::MAX).unwrap();
        assert_eq!(r.rows_lost(), 0, "{}", c.name());
    }
    assert_eq!(cells[1].report.read().rows(), 70_000);
    assert_eq!(cells[2].report.read().rows(), hosts.len());
}

/// The definitions a report follows (`compat`) are part of what a family shares: reports that
/// differ only in them form no family together, and a pinba_engine family's stage samples whole
/// timer values as its members do.
#[test]
fn reports_of_other_definitions_form_no_family_together() {
    let mut dict = Dictionary::new(1000);
    let pe = |d: ReportDef| ReportDef {
        compat: Some(Compat::PinbaEngine),
        ..d
    };
    let mut reports: Vec<Report> = [
        pe(def("a", &["timer_tag:g"])),
        def("b", &["timer_tag:g"]),
        pe(def("c", &["script_name", "timer_tag:g"])),
        def("d", &["script_name", "timer_tag:g"]),
    ]
    .into_iter()
    .map(|d| windowed(d, &mut dict))
    .collect();
    let families = form_families(&mut reports, true, false);
    let members: Vec<Vec<usize>> = families.iter().map(|(m, _)| m.clone()).collect();
    assert_eq!(members, vec![vec![0, 2], vec![1, 3]]);
    assert!(families[0].1.whole_timer_samples && !families[1].1.whole_timer_samples);
}
