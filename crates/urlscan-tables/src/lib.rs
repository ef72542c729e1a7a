//! Tables out of the urlscan.io API: answers decoded from their bytes into
//! Arrow record batches (`decode`, of the values and cells of `cells`), by the documented flat schemas
//! (`schema`), and written as Parquet files as a walk goes (`parquet_out`);
//! data-dump files read as served (`dumps`); a table read page by page
//! (`walk`).
mod cells;
pub mod csv_out;
pub mod decode;
pub mod dumps;
pub mod parquet_out;
pub mod schema;
pub mod sources;
pub mod walk;

pub use cells::{At, Item};
pub use decode::TableBuilder;
