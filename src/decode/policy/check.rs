//! Checks 2 to 8 of the order in `policy/mod.rs`: whether a well-formed request is accepted, or
//! the one reason it is not. Reads the request as sent (every timer on the wire, including those
//! then skipped or cut by the caps), changes nothing.

use super::DecodePolicy;
use crate::counters::Reject;
use crate::decode::message::Message;

/// `Message::present` with all of the required fields 1–9 seen.
const REQUIRED_FIELDS: u16 = (1 << 9) - 1;

/// The checks of the module doc, in that order. `#[inline]`: called once per request from
/// `Work::accept`, in another module (maybe another codegen unit), where it belongs inlined.
#[inline]
pub(super) fn check(m: &Message, policy: &DecodePolicy) -> Result<(), Reject> {
    if !policy.lenient_required && m.present != REQUIRED_FIELDS {
        return Err(Reject::MissingRequired);
    }
    let timers = m.timer_hit_count.len();
    if m.timer_value.len() != timers || m.timer_tag_count.len() != timers {
        return Err(Reject::TimerArrayMismatch);
    }
    let timer_tags: u64 = m.timer_tag_count.iter().map(|&n| u64::from(n)).sum();
    if timer_tags != m.timer_tag_name.len() as u64 || timer_tags != m.timer_tag_value.len() as u64 {
        return Err(Reject::TimerTagMismatch);
    }
    if m.tag_name.len() != m.tag_value.len() {
        return Err(Reject::RequestTagMismatch);
    }
    // Folds rather than short-circuits: these loops vectorize and nearly every request passes.
    let dictionary_len = m.dictionary.len();
    let in_range = |indices: &[u32]| {
        indices.is_empty() || (indices.iter().fold(0, |a, &i| a.max(i)) as usize) < dictionary_len
    };
    if !(in_range(&m.timer_tag_name)
        && in_range(&m.timer_tag_value)
        && in_range(&m.tag_name)
        && in_range(&m.tag_value))
    {
        return Err(Reject::BadDictionaryIndex);
    }
    // One test for both checks (NaN fails both comparisons, ±Inf one of them; a finite negative
    // time passes, to be clamped to 0); the reason is told apart only for the rare request that
    // fails it.
    let within = |values: &[f32]| {
        values
            .iter()
            .fold(true, |ok, v| ok & (f32::MIN..=MAX_SECONDS).contains(v))
    };
    let ru_utime = &m.timer_ru_utime[..m.timer_ru_utime.len().min(timers)];
    let ru_stime = &m.timer_ru_stime[..m.timer_ru_stime.len().min(timers)];
    let times = [m.request_time, m.ru_utime, m.ru_stime];
    let all = [&times[..], &m.timer_value, ru_utime, ru_stime];
    if !all.iter().all(|values| within(values)) {
        let finite = all
            .iter()
            .all(|values| values.iter().all(|v| v.is_finite()));
        return Err(if finite {
            Reject::TimeOutOfRange
        } else {
            Reject::NonFinite
        });
    }
    Ok(())
}

/// The largest time a request or timer may carry, in seconds (~31.7 years; negative times are
/// clamped to 0 rather than refused, see the module doc). No request runs that long: a larger
/// value is a client's garbage. In nanoseconds it fits a `u64` (what a row adds per request);
/// the rows sum them in 96 bits (see `report::Sum96`), where ~7.9·10^10 requests at this bound
/// fit (2^96 ns over 10^18 ns each) before a sum wraps.
pub const MAX_SECONDS: f32 = 1e9;
