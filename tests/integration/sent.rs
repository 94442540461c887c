//! One sent request as the tests understand it, independent of pinbad's code, and its datagram.

use prost::Message;

use crate::common::dictionary_index;
use pinbad::proto::Request;

/// A request as sent: what the tests compute the daemon's answers from.
#[derive(Clone, Debug)]
pub struct Sent {
    pub hostname: String,
    pub server_name: String,
    pub script_name: String,
    pub status: u32,
    pub schema: Option<String>,
    pub request_time: f32,
    pub ru_utime: f32,
    pub ru_stime: f32,
    pub document_size: u32,
    pub memory_footprint: u32,
    pub tags: Vec<(String, String)>,
    pub timers: Vec<SentTimer>,
}

/// (hit_count, value, ru_utime, ru_stime, tags)
pub type SentTimer = (u32, f32, f32, f32, Vec<(String, String)>);

impl Sent {
    /// The datagram: strings in one deduplicated dictionary, every timer with its rusage.
    pub fn encode(&self) -> Vec<u8> {
        let mut dict: Vec<String> = Vec::new();
        let mut idx = |s: &str| dictionary_index(&mut dict, s);
        let mut r = Request {
            hostname: self.hostname.clone().into_bytes(),
            server_name: self.server_name.clone().into_bytes(),
            script_name: self.script_name.clone().into_bytes(),
            request_count: 0,
            document_size: self.document_size,
            memory_peak: 1 << 20,
            request_time: self.request_time,
            ru_utime: self.ru_utime,
            ru_stime: self.ru_stime,
            status: Some(self.status),
            memory_footprint: Some(self.memory_footprint),
            schema: self.schema.clone().map(String::into_bytes),
            ..Default::default()
        };
        for (n, v) in &self.tags {
            r.tag_name.push(idx(n));
            r.tag_value.push(idx(v));
        }
        for (hits, value, ru_u, ru_s, tags) in &self.timers {
            r.timer_hit_count.push(*hits);
            r.timer_value.push(*value);
            r.timer_ru_utime.push(*ru_u);
            r.timer_ru_stime.push(*ru_s);
            r.timer_tag_count.push(tags.len() as u32);
            for (n, v) in tags {
                r.timer_tag_name.push(idx(n));
                r.timer_tag_value.push(idx(v));
            }
        }
        r.dictionary = dict.into_iter().map(String::into_bytes).collect();
        r.encode_to_vec()
    }
}
