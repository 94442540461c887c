//! Property tests: any interleaving of requests and window moves leaves every report equal to
//! one built from scratch over the requests in its window.

use super::*;

/// Inserting requests and letting the window move over them, in any interleaving, leaves every
/// report equal to one built from scratch over the requests inside its window; with a row
/// limit, its totals exact and its rows with "(other)" summing to them (see [`check_kept`]). Once everything left, the reports are empty and a
/// dictionary sweep leaves only the reports' pins.
fn check_incremental(ops: &[(Req, usize)], max_rows: usize) -> Result<(), TestCaseError> {
    let mut w = World::new(property_defs(), max_rows);
    for (r, remove) in ops {
        w.insert(r);
        w.remove_oldest(*remove);
        for i in 0..w.reports.len() {
            let scratch = w.scratch(i);
            check_kept(&w.reports[i], &scratch, max_rows)?;
        }
    }
    w.remove_oldest(usize::MAX);
    for r in &w.reports {
        prop_assert_eq!(r.rows(), 0);
        prop_assert_eq!(totals_of(r), (Sums::default(), vec![]));
        prop_assert_eq!(
            other_of(r),
            (Sums::default(), vec![]),
            "(other) empties too"
        );
    }
    w.dict.set_now(10);
    w.dict.sweep(10);
    prop_assert_eq!(w.dict.len(), property_pins(&w));
    Ok(())
}

/// Dictionary entries still alive once the reports are empty and swept: only the reports' pins.
fn property_pins(w: &World) -> usize {
    let mut ids: Vec<u32> = w
        .reports
        .iter()
        .flat_map(|r| r.pins.iter().copied())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    ids.len()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn incremental_equals_from_scratch(
        ops in proptest::collection::vec((arb_req(), prop_oneof![3 => Just(0usize), 1 => 1usize..3]), 1..40),
    ) {
        check_incremental(&ops, usize::MAX)?;
    }

    #[test]
    fn row_limit_keeps_rows_exact(
        ops in proptest::collection::vec((arb_req(), prop_oneof![3 => Just(0usize), 1 => 1usize..3]), 1..40),
        max_rows in 1usize..4,
    ) {
        check_incremental(&ops, max_rows)?;
    }
}
