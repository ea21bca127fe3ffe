//! What a check tells CI: a JUnit XML file (one test case per case) and a Markdown job summary, and
//! the numbers table of a case.

use std::path::Path;

use super::{CaseReport, CheckError, CheckReport, FieldReport, Status};

/// GitHub refuses a job summary over 1 MiB; stay well under it.
pub const SUMMARY_MAX_BYTES: usize = 1 << 20;

/// Text for an XML attribute or element: the five markup characters escaped, and the characters XML 1.0
/// forbids (most control characters) replaced, so any user string (case names, paths, messages) is safe.
pub(crate) fn xml_escape(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => s.push_str("&amp;"),
            '<' => s.push_str("&lt;"),
            '>' => s.push_str("&gt;"),
            '"' => s.push_str("&quot;"),
            '\'' => s.push_str("&apos;"),
            '\t' | '\n' | '\r' => s.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => s.push('\u{FFFD}'),
            c => s.push(c),
        }
    }
    s
}

/// JUnit XML: one `<testcase>` per case, a `<failure>` with the counts for a failed case or a missing
/// baseline, the notes and updates as `<system-out>`.
pub fn junit(report: &CheckReport, suite: &str) -> String {
    let failures = report.cases.iter().filter(|c| matches!(c.status, Status::Fail | Status::MissingBaseline)).count();
    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let head = format!(
        "tests=\"{}\" failures=\"{failures}\" errors=\"0\" skipped=\"0\" time=\"{:.3}\"",
        report.cases.len(),
        report.seconds
    );
    x.push_str(&format!("<testsuites name=\"vsr2d check\" {head}>\n"));
    x.push_str(&format!("  <testsuite name=\"{}\" {head}>\n", xml_escape(suite)));
    for c in &report.cases {
        x.push_str(&format!(
            "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\"",
            xml_escape(suite),
            xml_escape(&c.name),
            c.seconds
        ));
        let out: Vec<String> = c.notes.iter().chain(&c.updated).cloned().collect();
        let failed = matches!(c.status, Status::Fail | Status::MissingBaseline);
        if !failed && out.is_empty() {
            x.push_str("/>\n");
            continue;
        }
        x.push_str(">\n");
        if failed {
            let kind = if c.status == Status::MissingBaseline { "missing-baseline" } else { "difference" };
            let message = c.failure_message();
            let mut body = message.replace("; ", "\n");
            for a in &c.artefacts {
                body.push_str(&format!("\n{}", a.display()));
            }
            x.push_str(&format!(
                "      <failure type=\"{kind}\" message=\"{}\">{}</failure>\n",
                xml_escape(&message),
                xml_escape(&body)
            ));
        }
        if !out.is_empty() {
            x.push_str(&format!("      <system-out>{}</system-out>\n", xml_escape(&out.join("\n"))));
        }
        x.push_str("    </testcase>\n");
    }
    x.push_str("  </testsuite>\n</testsuites>\n");
    x
}

/// Text for a Markdown table cell: no line breaks, `|` escaped, HTML markup neutralised.
fn cell(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('`', "'")
        .replace(['\n', '\r'], " ")
}

/// "1 234" for people.
fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut s = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            s.push('\u{202F}');
        }
        s.push(c);
    }
    s
}

/// The Markdown job summary: a verdict line, a table of the cases (pass/fail, pixels differing, the
/// largest channel difference, the fields out of tolerance), the notes, and where the artefacts are.
/// Kept under [`SUMMARY_MAX_BYTES`]: rows past that are counted, not listed.
pub fn summary(report: &CheckReport, out: Option<&std::path::Path>) -> String {
    let failed = report.cases.iter().filter(|c| c.status == Status::Fail).count();
    let missing = report.cases.iter().filter(|c| c.status == Status::MissingBaseline).count();
    let updated = report.cases.iter().filter(|c| c.status == Status::Updated).count();
    let total = report.cases.len();
    let mut verdict = if failed + missing == 0 {
        format!("✅ all {total} cases pass")
    } else {
        format!("❌ {} of {total} cases fail", failed + missing)
    };
    if missing > 0 {
        verdict.push_str(&format!(" ({missing} without a baseline)"));
    }
    if updated > 0 {
        verdict.push_str(&format!(", {updated} baselines updated"));
    }
    let mut md = format!("## vsr2d check: {verdict}\n\n");
    md.push_str("| case | result | pixels differing | largest channel difference | fields out of tolerance |\n");
    md.push_str("|---|---|---:|---:|---|\n");
    let mut notes = Vec::new();
    // Failures first: in a long table they are what the reader came for.
    let mut rows: Vec<&CaseReport> = report.cases.iter().collect();
    rows.sort_by_key(|c| match c.status {
        Status::Fail | Status::MissingBaseline => 0,
        Status::Updated => 1,
        Status::Pass => 2,
    });
    let reserve = 4096;
    for (i, c) in rows.iter().enumerate() {
        let result = match c.status {
            Status::Pass => "✅ pass",
            Status::Fail => "❌ fail",
            Status::MissingBaseline => "❌ no baseline",
            Status::Updated => "🔄 updated",
        };
        let compared: Vec<_> = c.images.iter().filter_map(|i| i.comparison.as_ref().map(|cmp| (i, cmp))).collect();
        let pixels = if compared.is_empty() {
            "–".to_string()
        } else {
            compared
                .iter()
                .map(|(i, cmp)| format!("{} / {}", grouped(cmp.differing), grouped(i.budget)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let delta = compared.iter().map(|(_, cmp)| cmp.max_channel_delta).max().map_or("–".into(), |d| d.to_string());
        let out_of: Vec<String> = c
            .fields
            .iter()
            .filter(|f| !f.passed)
            .map(|f| match f.expected {
                Some(e) => format!("{}: {} → {}", f.field, short(e), short(f.actual)),
                None => format!("{}: not in the baseline", f.field),
            })
            .collect();
        let row = format!(
            "| {} | {result} | {pixels} | {delta} | {} |\n",
            cell(&c.name),
            if out_of.is_empty() { "–".to_string() } else { cell(&out_of.join(", ")) }
        );
        if md.len() + row.len() + reserve > SUMMARY_MAX_BYTES {
            md.push_str(&format!(
                "\n… and {} more cases, left out to keep this summary under 1 MiB.\n",
                rows.len() - i
            ));
            break;
        }
        md.push_str(&row);
        notes.extend(c.notes.iter().map(|n| format!("{}: {n}", c.name)));
    }
    md.push_str("\nPixels differing: differing / allowed, per image.\n");
    if !notes.is_empty() {
        md.push_str("\n**Notes** (not failures):\n\n");
        for n in notes.iter().take(50) {
            md.push_str(&format!("- {}\n", cell(n)));
        }
    }
    if failed + missing > 0 {
        match out {
            Some(dir) => md.push_str(&format!(
                "\nExpected, actual and difference images, and one `CASE-compare.png` per failing image, are in \
                 `{}` (the job's artefact). If the change is intended, run `vsr2d check --update`, look at the \
                 new baselines and commit them.\n",
                cell(&dir.display().to_string())
            )),
            None => md.push_str("\nGive `--out DIR` to get the expected, actual and difference images.\n"),
        }
    }
    md
}

/// A number short enough for a table, all its digits if it has few.
fn short(x: f64) -> String {
    let s = x.to_string();
    if s.len() <= 12 {
        s
    } else if (1e-3..1e7).contains(&x.abs()) {
        // Seven significant digits show a change of 1e-6 relative.
        let decimals = (6 - x.abs().log10().floor() as i32).max(0) as usize;
        format!("{x:.decimals$}")
    } else {
        format!("{x:.6e}")
    }
}

/// Writes the JUnit file (atomically) and the summary: appended to when the file exists and is not
/// empty, as CI summary files (`$GITHUB_STEP_SUMMARY`) collect every step's part; else atomically.
pub fn write_files(
    report: &CheckReport,
    suite: &str,
    junit_path: Option<&Path>,
    summary_path: Option<&Path>,
    out: Option<&Path>,
) -> Result<(), CheckError> {
    if let Some(path) = junit_path {
        crate::output::atomic::write(path, junit(report, suite).as_bytes())
            .map_err(|source| CheckError::Write { path: path.to_path_buf(), source })?;
    }
    if let Some(path) = summary_path {
        let text = summary(report, out);
        if std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() > 0) {
            use std::io::Write;
            std::fs::OpenOptions::new()
                .append(true)
                .open(path)
                .and_then(|mut f| f.write_all(format!("\n{text}").as_bytes()))
                .map_err(|source| CheckError::Write { path: path.to_path_buf(), source })?;
        } else {
            crate::output::atomic::write(path, text.as_bytes())
                .map_err(|source| CheckError::Write { path: path.to_path_buf(), source })?;
        }
    }
    Ok(())
}

/// The numbers of a case as a Markdown table: field, expected, actual, tolerance, verdict.
pub(crate) fn numbers_table(fields: &[FieldReport]) -> String {
    let mut md = String::from("| field | expected | actual | tolerance | verdict |\n|---|---:|---:|---|---|\n");
    for f in fields {
        md.push_str(&format!(
            "| {} (`{}`) | {} | {} | {} | {} |\n",
            cell(&f.field),
            cell(&f.pointer),
            f.expected.map_or("–".into(), |e| e.to_string()),
            f.actual,
            f.tolerance(),
            if f.passed { "pass" } else { "FAIL" }
        ));
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_escaping_covers_markup_and_forbidden_characters() {
        assert_eq!(xml_escape("a<b>&\"c'\u{1}"), "a&lt;b&gt;&amp;&quot;c&apos;\u{FFFD}");
    }

    #[test]
    fn a_huge_report_keeps_its_summary_under_one_mebibyte() {
        let case = |i: usize| CaseReport {
            name: format!("case-{i}-{}", "x".repeat(80)),
            status: Status::Fail,
            images: Vec::new(),
            fields: Vec::new(),
            notes: Vec::new(),
            updated: Vec::new(),
            artefacts: Vec::new(),
            seconds: 0.0,
        };
        let report = CheckReport { cases: (0..50_000).map(case).collect(), seconds: 1.0 };
        let md = summary(&report, None);
        assert!(md.len() < SUMMARY_MAX_BYTES, "{}", md.len());
        assert!(md.contains("more cases, left out"));
    }
}
