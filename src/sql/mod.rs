//! SQL over the MySQL protocol: pinba_engine's and pinba2's tables for the tools that already
//! query them (the `mysql` client, Grafana's MySQL data source, Pinboard). The front end is being
//! built: so far it holds [`layout`], the pure mapping from a report to the columns of its SQL
//! table (names, MySQL types, and what each column holds), which the listener and its SQLite
//! virtual tables will read.

pub mod layout;
