//! vendor/rapier2d is pristine rapier2d 0.36.1 plus the numbered patches in vendor/rapier2d/patches/
//! (`scripts/rapier-patches.sh check`; the pristine crate comes from cargo's cache or `cargo fetch`).

use std::process::Command;

#[test]
fn the_vendored_rapier_is_pristine_plus_the_patch_series() {
    let root = crate::ROOT;
    let out =
        Command::new("bash").arg(format!("{root}/scripts/rapier-patches.sh")).arg("check").output().expect("bash runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let patches = std::fs::read_dir(format!("{root}/vendor/rapier2d/patches"))
        .expect("the patch directory exists")
        .filter(|e| e.as_ref().is_ok_and(|e| e.file_name().to_string_lossy().ends_with(".patch")))
        .count();
    assert!(patches >= 8, "the series has the 8 documented patches, found {patches}");
    assert!(stdout.contains(&format!("+ {patches} patches")), "{stdout}");
}
