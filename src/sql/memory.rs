//! SQL's share of the memory budget: what SQL holds (`sqlite_heap`: SQLite's blocks made for the
//! sessions' engines, and the rows read and not yet sent) settled into an account of
//! `limits.max_memory`, and the cap it may hold: `mysql.max_memory`, and never more than what
//! the budget has left below its tight mark, so that no SQL load makes the budget tight (report
//! rows, strings and reports are never refused for SQL's sake: SQL statements are, error 1041).
//!
//! Settled at each statement's start and end, every few thousand of SQLite's steps while it runs
//! (the engine's progress handler), and when a session ends; cheap (a few atomics).

use std::sync::Arc;

use crate::budget::{Account, Budget};
use crate::sqlite_heap::HEAP;

pub struct SqlMemory {
    account: Account,
    /// `mysql.max_memory`.
    max: u64,
}

impl SqlMemory {
    pub fn new(budget: Arc<Budget>, max: u64) -> SqlMemory {
        let memory = SqlMemory {
            account: Account::new(budget),
            max,
        };
        memory.settle();
        memory
    }

    /// Tells the budget what SQL holds now, and SQL what it may hold.
    pub fn settle(&self) {
        let held = HEAP.held();
        self.account.settle(held);
        let budget = self.account.budget();
        let others = budget.used().saturating_sub(held);
        HEAP.set_cap(cap(self.max, budget.tight_at(), others));
    }
}

/// What SQL may hold: `max`, and no more than leaves the budget below `tight_at` with what the
/// others hold.
fn cap(max: u64, tight_at: u64, others: u64) -> u64 {
    max.min(tight_at.saturating_sub(others))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sql_gets_what_the_budget_has_left_up_to_its_maximum() {
        assert_eq!(cap(256, 1000, 100), 256);
        assert_eq!(cap(256, 1000, 900), 100);
        assert_eq!(
            cap(256, 1000, 1200),
            0,
            "a tight budget leaves SQL nothing new"
        );
        assert_eq!(cap(256, u64::MAX, 0), 256, "no budget");
    }
}
