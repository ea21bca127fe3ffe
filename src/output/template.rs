//! The minijinja environment HTML pages render with (the reports and the viewer): templates from
//! `templates/` embedded at build time (the installed binary needs no template files), HTML auto-escaping
//! of every value whatever the template's name, and an undefined value an error instead of an empty string,
//! so a typo in a template cannot pass silently. Values reach the pages only quoted (attributes) or as text;
//! the one value inside a `<script>`, the viewer's data, is JSON made safe there by
//! [`crate::view::script_json`].

use serde::Serialize;

/// The look shared by report pages (`{% include "report.css" %}` inside their `<style>`).
const REPORT_CSS: &str = include_str!("../../templates/report.css");

/// Renders the template `source`, named `name` (e.g. `cantilever.html`), with `context`.
pub fn render(name: &str, source: &str, context: impl Serialize) -> Result<String, minijinja::Error> {
    let mut env = minijinja::Environment::new();
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    // Not by name (minijinja's default): a template added under another name must not lose its escaping.
    env.set_auto_escape_callback(|_| minijinja::AutoEscape::Html);
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
        // Whatever the name, and in attributes too.
        let html = render("t", "<a title=\"{{ x }}\">", minijinja::context! { x => "\"><!--&" }).unwrap();
        assert_eq!(html, "<a title=\"&quot;&gt;&lt;!--&amp;\">");
    }

    /// The pages' templates keep every value escaped: none is marked safe or unescaped by the template,
    /// and values stand only where escaping suffices (the viewer's script data is checked in `view`).
    #[test]
    fn no_template_unescapes_a_value() {
        let templates = [
            ("cantilever.html", include_str!("../../templates/cantilever.html")),
            ("cells.html", include_str!("../../templates/cells.html")),
            ("pom.html", include_str!("../../templates/pom.html")),
            ("study.html", include_str!("../../templates/study.html")),
            ("viewer.html", include_str!("../../templates/viewer.html")),
            ("report.css", REPORT_CSS),
        ];
        for (name, source) in templates {
            for bad in ["|safe", "| safe", "autoescape", "|tojson", "| tojson"] {
                assert!(!source.contains(bad), "{name} has {bad}");
            }
            // A value inside a script or style element would need that context's own escaping: the only
            // ones are the viewer's data (`script_json`) and blob (base64), each a whole element.
            let outside = |tag: &str| {
                source.split(&format!("<{tag}")).skip(1).all(|rest| {
                    let element = rest.split(&format!("</{tag}>")).next().unwrap_or("");
                    let content = element.split_once('>').map_or(element, |(_, c)| c);
                    !element.contains("{{")
                        || (name == "viewer.html" && tag == "script" && ["{{ data }}", "{{ blob }}"].contains(&content))
                })
            };
            assert!(outside("script") && outside("style"), "{name} puts a value inside <script> or <style>");
        }
    }
}
