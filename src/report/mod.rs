//! Reports: HTML pages from `templates/`, with PNG plots and CSV/JSON data.

pub mod cantilever;
