//! Turns: work that threads prepare in parallel, handed on in one order.
//!
//! The merge shards (`merger`) store and prepare their rounds side by side, but every report
//! worker must apply the rounds in one order, the order of their times: a report's window moves
//! by its rounds' times, and a split report's close waits for its parts' round before (see
//! `report::split`). So each shard takes a ticket where the order is decided (under the pool's
//! write lock, where a round's requests get their time and their pool ids), prepares its round
//! without any lock, and then waits for its ticket's turn to hand the round on. The state the
//! hand-off needs (the workers' queues, the round count) is the turn's, so holding the turn is
//! holding it.

use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::{Condvar, MappedMutexGuard, Mutex, MutexGuard};

/// The order of the turns and the state each turn holds.
pub struct Turns<T> {
    /// The next ticket to hand out.
    next_ticket: AtomicU64,
    state: Mutex<Turn<T>>,
    /// Signalled when a turn ends.
    ended: Condvar,
}

/// What a turn holds: the state, and whose turn is next.
struct Turn<T> {
    next: u64,
    state: T,
}

/// A ticket: a place in the order. Every ticket taken must be used by [`Turns::wait`], or the
/// turns after it never come.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
#[must_use = "every ticket's turn must be taken, or the later ones wait for ever"]
pub struct Ticket(u64);

impl<T> Turns<T> {
    pub fn new(state: T) -> Turns<T> {
        Turns {
            next_ticket: AtomicU64::new(0),
            state: Mutex::new(Turn { next: 0, state }),
            ended: Condvar::new(),
        }
    }

    /// The next place in the order. Callers take it where the order is decided, under the lock
    /// that decides it, so that tickets follow that lock's order.
    pub fn ticket(&self) -> Ticket {
        Ticket(self.next_ticket.fetch_add(1, Ordering::Relaxed))
    }

    /// Waits until every ticket before `ticket` has had its turn, then holds the state until the
    /// returned guard drops, which gives the turn to the next ticket.
    pub fn wait(&self, ticket: Ticket) -> InTurn<'_, T> {
        let mut turn = self.state.lock();
        while turn.next != ticket.0 {
            self.ended.wait(&mut turn);
        }
        InTurn { turns: self, turn }
    }

    /// Holds the state between turns, out of order (a rebalancing, a test): no turn ends
    /// meanwhile.
    pub fn hold(&self) -> MappedMutexGuard<'_, T> {
        MutexGuard::map(self.state.lock(), |t| &mut t.state)
    }
}

/// A ticket's turn, held until dropped.
pub struct InTurn<'a, T> {
    turns: &'a Turns<T>,
    turn: MutexGuard<'a, Turn<T>>,
}

impl<T> std::ops::Deref for InTurn<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.turn.state
    }
}

impl<T> std::ops::DerefMut for InTurn<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.turn.state
    }
}

impl<T> Drop for InTurn<'_, T> {
    fn drop(&mut self) {
        self.turn.next += 1;
        self.turns.ended.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn turns_come_in_ticket_order_whatever_order_threads_wait_in() {
        let turns = Arc::new(Turns::new(Vec::new()));
        let tickets: Vec<Ticket> = (0..8).map(|_| turns.ticket()).collect();
        // The threads wait for their turns in reverse order of their tickets.
        let threads: Vec<_> = tickets
            .into_iter()
            .enumerate()
            .rev()
            .map(|(i, t)| {
                let turns = Arc::clone(&turns);
                std::thread::spawn(move || turns.wait(t).push(i))
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(*turns.hold(), (0..8).collect::<Vec<_>>());
    }

    #[test]
    fn a_hold_between_turns_keeps_the_order() {
        let turns = Turns::new(0u32);
        let (a, b) = (turns.ticket(), turns.ticket());
        *turns.hold() += 10;
        *turns.wait(a) += 1;
        *turns.hold() *= 2;
        *turns.wait(b) += 1;
        assert_eq!(*turns.hold(), 23);
    }
}
