//! Section 3 of the cells report (spec `cells.md` §15 item 3, the paper's Fig. 4): the timing figures,
//! measured by the soft cells' benchmark ([`crate::bench::cells`], `vsr2d bench --cells`) called as a
//! library; this module only chooses its options and reads its rows.

use serde::Serialize;

use crate::bench::cell_increments::{measure_increments, size, Element, IncrementRow};
use crate::bench::cells::{
    run_cell_bench, CellBenchError, CellBenchOptions, CellBenchReport, CellBenchRow, CellSeries,
};

/// The benchmark's options for the report: the full series (1 … 10 000 cells, N 10 … 1000), or the
/// quick ones (up to 100 cells, N up to 300, spec §15).
pub fn options(quick: bool) -> CellBenchOptions {
    if quick {
        CellBenchOptions {
            counts: vec![1, 10, 100],
            resolutions: vec![10, 30, 100, 300],
            warmup: 10,
            repeats: 3,
            body_steps: 200_000,
            ..CellBenchOptions::full()
        }
    } else {
        CellBenchOptions::full()
    }
}

/// What section 3 shows.
#[derive(Debug, Clone, Serialize)]
pub struct TimingData {
    pub report: CellBenchReport,
    pub counts: Vec<usize>,
    pub resolutions: Vec<usize>,
    pub repeats: usize,
    pub warmup: u64,
    pub stepping: Option<vsr2d::sim::Stepping>,
    /// The incremental costs (§15 item 3a) and the cells and steps they were timed with.
    pub increments: Vec<IncrementRow>,
    pub increment_cells: usize,
    pub increment_steps: u64,
}

impl TimingData {
    pub fn measure(quick: bool) -> Result<TimingData, CellBenchError> {
        let o = options(quick);
        let report = run_cell_bench(&o, |_| {})?;
        let (increment_cells, increment_steps) = size(quick);
        let increments = measure_increments(increment_cells, increment_steps, &o)?;
        Ok(TimingData {
            increments,
            increment_cells,
            increment_steps,
            report,
            counts: o.counts,
            resolutions: o.resolutions,
            repeats: o.repeats,
            warmup: o.warmup,
            stepping: o.stepping,
        })
    }

    pub fn rows(&self, series: CellSeries) -> impl Iterator<Item = &CellBenchRow> {
        self.report.rows.iter().filter(move |r| r.series == series)
    }

    /// The grid row with `cells` cells.
    pub fn cells_row(&self, cells: usize) -> Option<&CellBenchRow> {
        self.rows(CellSeries::Cells).find(|r| r.cells == cells)
    }

    /// The single-cell row with N bodies.
    pub fn resolution_row(&self, n: usize) -> Option<&CellBenchRow> {
        self.rows(CellSeries::Resolution).find(|r| r.bodies_per_cell == n)
    }

    /// The increment of `element`, µs per step.
    pub fn increment(&self, element: Element) -> Option<&IncrementRow> {
        self.increments.iter().find(|r| r.element == element)
    }

    /// The largest cell count at ≤ 20 ms per step among the measured ones.
    pub fn real_time_cells(&self) -> Option<usize> {
        self.rows(CellSeries::Cells).filter(|r| r.ms_per_step <= 20.0).map(|r| r.cells).max()
    }
}
