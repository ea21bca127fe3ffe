//! The minijinja environment report pages render with: templates from `templates/` embedded at build
//! time (the installed binary needs no template files), HTML auto-escaping by the `.html` name, and an
//! undefined value an error instead of an empty string, so a typo in a template cannot pass silently.

use serde::Serialize;

/// The look shared by report pages (`{% include "report.css" %}` inside their `<style>`).
const REPORT_CSS: &str = include_str!("../../templates/report.css");

/// Renders the template `source`, named `name` (e.g. `cantilever.html`), with `context`.
pub fn render(name: &str, source: &str, context: impl Serialize) -> Result<String, minijinja::Error> {
    let mut env = minijinja::Environment::new();
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    env.add_template("report.css", REPORT_CSS)?;
    env.add_template(name, source)?;
    env.get_template(name)?.render(context)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_is_escaped_and_undefined_values_are_errors() {
        let html = render("t.html", "<p>{{ x }}</p>", minijinja::context! { x => "<b>" }).unwrap();
        assert_eq!(html, "<p>&lt;b&gt;</p>");
        assert!(render("t.html", "{{ y }}", minijinja::context! {}).is_err());
    }
}
