//! What columns a report's SQL table has and what each holds (placeholder: pinbad's own column
//! names, until the pinba_engine layouts land).

use crate::report::{Kind, ReportDef};

/// The MySQL type a column shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SqlType {
    Int,
    BigInt,
    Float,
    Text,
}

/// What a column holds.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    Key(usize),
    Column { name: String, scale: f64 },
    IndexValue,
    TimeInterval,
    Null,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SqlColumn {
    pub name: String,
    pub ty: SqlType,
    pub source: Source,
}

/// The report's SQL columns.
pub fn layout(def: &ReportDef, kind: Kind, key_columns: &[String]) -> Vec<SqlColumn> {
    let mut out: Vec<SqlColumn> = key_columns
        .iter()
        .enumerate()
        .map(|(i, k)| SqlColumn {
            name: k.clone(),
            ty: SqlType::Text,
            source: Source::Key(i),
        })
        .collect();
    let metrics: &[&str] = match kind {
        Kind::Timer => &[
            "req_count",
            "req_per_sec",
            "hit_count",
            "hit_per_sec",
            "timer_value",
        ],
        _ => &[
            "req_count",
            "req_per_sec",
            "req_time_total",
            "req_time_per_sec",
        ],
    };
    for m in metrics {
        out.push(SqlColumn {
            name: m.to_string(),
            ty: SqlType::Float,
            source: Source::Column {
                name: m.to_string(),
                scale: 1.0,
            },
        });
    }
    for p in &def.percentiles {
        let name = crate::report::percentile_column(*p);
        out.push(SqlColumn {
            name: name.clone(),
            ty: SqlType::Float,
            source: Source::Column { name, scale: 1.0 },
        });
    }
    out
}
