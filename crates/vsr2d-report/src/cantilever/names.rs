//! The cantilever runs in words: sizes, scaffoldings, runs, lists of frequencies.

use super::select::same_fs;
use vsr2d::format::short;
use vsr2d::model::voxel::scaffolding::Scaffolding;

/// A size in words: "10×4".
pub fn size_name(s: (u32, u32)) -> String {
    format!("{}×{}", s.0, s.1)
}

/// A size in keys and file names: "10x4".
pub fn size_id(s: (u32, u32)) -> String {
    format!("{}x{}", s.0, s.1)
}

/// A scaffolding in words: "all groups" or its set, e.g. "E+C".
pub fn scaffolding_name(s: Scaffolding) -> String {
    if s == Scaffolding::ALL {
        "all groups".into()
    } else {
        s.to_string()
    }
}

/// One run in words: "10×4, f_s 8 Hz, all groups".
pub fn run_name(size: (u32, u32), fs: f64, s: Scaffolding) -> String {
    format!("{}, f_s {} Hz, {}", size_name(size), short(fs), scaffolding_name(s))
}

/// A list of frequencies in words: "4, 8, 10 Hz".
pub fn fs_list(fs: &[f64]) -> String {
    format!("{} Hz", fs.iter().map(|f| short(*f)).collect::<Vec<_>>().join(", "))
}

/// (f_s, scaffolding) pairs in words, grouped by scaffolding: "all groups at 4, 8 Hz; E+C at 8 Hz".
pub fn variants_text(pairs: &[(f64, Scaffolding)]) -> String {
    let mut sets: Vec<Scaffolding> = Vec::new();
    for p in pairs {
        if !sets.contains(&p.1) {
            sets.push(p.1);
        }
    }
    sets.sort_by_key(|s| if *s == Scaffolding::ALL { 0 } else { 1 + s.springs_per_voxel() });
    sets.iter()
        .map(|s| {
            let mut fs: Vec<f64> = pairs.iter().filter(|p| p.1 == *s).map(|p| p.0).collect();
            fs.sort_by(f64::total_cmp);
            fs.dedup_by(|a, b| same_fs(*a, *b));
            format!("{} at {}", scaffolding_name(*s), fs_list(&fs))
        })
        .collect::<Vec<_>>()
        .join("; ")
}
