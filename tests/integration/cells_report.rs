//! `vsr2d cells-report`: the quick report on a reduced `--only` subset in a temp dir, checked for facts
//! (every section named, `fd.csv`'s header and rows, the pressure ordering, valid non-empty PNGs). No
//! timing is asserted.

use std::collections::BTreeMap;
use std::process::Command;

/// The spec's `fd.csv` header (cells.md §15).
const FD_HEADER: &str = "preset,C,phase,F_N,delta_m,delta_over_D,area_ratio,perimeter_error,bodies_on_bar,model_F_N";

#[test]
fn cells_report_quick_fd_names_every_section_and_keeps_the_pressure_ordering() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("report");
    // 32 substeps: at the default 16 the C 450 sweep of the quick report becomes unstable near δ = 0.45·D
    // (the report shows that as a failed run); the test needs both curves to compare them.
    let out = Command::new(env!("CARGO_BIN_EXE_vsr2d"))
        .args(["cells-report", "--quick", "--only", "fd,folding", "--substeps", "32", "-o"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    for section in
        ["1 Settings", "2 Force–deflection", "3 Timing", "4 Demonstrations", "5 Self-folding", "6 Acceptance"]
    {
        assert!(html.contains(section), "index.html does not name the section {section:?}");
    }
    assert!(html.contains("reconstruction, not the paper"));
    assert!(html.contains("fold_L_filmstrip.png"));
    assert!(html.contains("id=\"verdict\""));
    assert!(html.contains("Substep convergence"));

    let csv = std::fs::read_to_string(dir.join("fd.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some(FD_HEADER));
    // (C → loading levels (δ, F)).
    let mut loading: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    let mut rows: BTreeMap<String, usize> = BTreeMap::new();
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f.len(), 10, "{line}");
        assert_eq!(f[0], "scs-paper");
        *rows.entry(f[1].to_string()).or_default() += 1;
        if f[2] == "load" {
            loading.entry(f[1].to_string()).or_default().push((f[4].parse().unwrap(), f[3].parse().unwrap()));
        }
    }
    for c in ["50", "450"] {
        assert_eq!(rows.get(c), Some(&20), "C {c}: 10 loading and 10 unloading levels");
        assert_eq!(loading[c].len(), 10);
    }
    // Pressure ordering: at equal (commanded) δ, F_bar rises with C.
    for ((d50, f50), (d450, f450)) in loading["50"].iter().zip(&loading["450"]) {
        assert!((d50 - d450).abs() < 1e-3, "levels differ: {d50} vs {d450}");
        assert!(f450 > f50, "at δ = {d50} m: C 450 gives {f450} N, C 50 {f50} N");
    }

    for png in ["fd_linear.png", "fd_loglog.png", "fold_error.png", "fold_L_filmstrip.png"] {
        let img = image::open(dir.join(png)).unwrap_or_else(|e| panic!("{png}: {e}")).to_rgb8();
        assert!(img.width() > 100 && img.height() > 100, "{png}");
        let coloured = img.pixels().filter(|p| !(p[0] == p[1] && p[1] == p[2])).count();
        assert!(coloured > 1000, "{png} has almost no coloured pixels ({coloured})");
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("results.json")).unwrap()).unwrap();
    assert!(json["timing"].is_null() && json["demos"].is_null(), "--only fd,folding ran other sections");
    // --quick folds L only; the straight chain is far from the letter and the fold brings it closer,
    // gluing no cells the letter keeps apart.
    let runs = json["folding"]["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    let m = &runs[0]["metrics"];
    assert_eq!(m["program"], "L");
    let (initial, last) = (m["initial_rms"].as_f64().unwrap(), m["final_rms"].as_f64().unwrap());
    assert!(last < 0.6 * initial, "L: RMS error {initial} m straight, {last} m at the end");
    assert_eq!(m["unintended_pairs"], 0);
    let fold_csv = std::fs::read_to_string(dir.join("fold.csv")).unwrap();
    assert!(fold_csv.starts_with("letter,t_s,rms_error_over_d\nL,0,"), "{}", &fold_csv[..60]);
}

#[test]
fn cells_report_refuses_an_unwritable_directory_and_unknown_sections() {
    let tmp = tempfile::tempdir().unwrap();
    let blocker = tmp.path().join("file");
    std::fs::write(&blocker, "x").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_vsr2d"))
        .args(["cells-report", "--quick", "-o"])
        .arg(blocker.join("report"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("report directory"));
    let out = Command::new(env!("CARGO_BIN_EXE_vsr2d"))
        .args(["cells-report", "--only", "fd,speed", "-o"])
        .arg(tmp.path().join("r"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("\"speed\""));
    assert!(!tmp.path().join("r").exists(), "the directory was created before the options were checked");
}
