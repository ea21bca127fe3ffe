//! The SVG writer of a [`Scene`]: one `<path>`, `<rect>` or `<text>` per item, a group as a translated,
//! clipped `<g>`. Sizes are CSS pixels (so a 1280 × 720 scene is 1280 × 720 px, as its PNG); text stays
//! text in the embedded font's family (DejaVu Sans), each character placed where the PNG has it.
//! The XML (escaping included) is written by quick-xml.

use std::fmt::Write as _;

use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};
use quick_xml::Writer;

use super::scene::{Cap, Group, Item, Join, Path, PathCmd, Scene, Stroke};
use super::style::Rgba;
use super::text::TextRenderer;

/// The family the text names: the embedded font's.
pub(crate) const FONT_FAMILY: &str = "DejaVu Sans";

/// Why a scene could not be written as SVG.
#[derive(Debug, thiserror::Error)]
#[error("could not write the SVG: {0}")]
pub(crate) struct SvgError(#[from] std::io::Error);

/// The scene as an SVG document.
pub(crate) fn to_svg(scene: &Scene) -> Result<String, SvgError> {
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 1);
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    let mut root = BytesStart::new("svg");
    let (width, height) = (scene.width.to_string(), scene.height.to_string());
    root.push_attribute(("xmlns", "http://www.w3.org/2000/svg"));
    root.push_attribute(("width", width.as_str()));
    root.push_attribute(("height", height.as_str()));
    root.push_attribute(("viewBox", format!("0 0 {width} {height}").as_str()));
    root.push_attribute(("xml:space", "preserve"));
    root.push_attribute(("font-family", format!("{FONT_FAMILY}, sans-serif").as_str()));
    w.write_event(Event::Start(root))?;
    let mut clips = 0usize;
    write_items(&mut w, &scene.items, &mut clips)?;
    w.write_event(Event::End(BytesEnd::new("svg")))?;
    let bytes = w.into_inner();
    // quick-xml writes what it is given as UTF-8 text.
    String::from_utf8(bytes).map_err(|e| SvgError(std::io::Error::other(e)))
}

type W = Writer<Vec<u8>>;

fn write_items(w: &mut W, items: &[Item], clips: &mut usize) -> std::io::Result<()> {
    for item in items {
        match item {
            Item::Path { path, fill, stroke } => {
                let d = path_data(path);
                if d.is_empty() {
                    continue;
                }
                let mut el = BytesStart::new("path");
                el.push_attribute(("d", d.as_str()));
                match fill {
                    Some(c) => paint_attrs(&mut el, "fill", *c),
                    None => el.push_attribute(("fill", "none")),
                }
                if let Some(s) = stroke {
                    stroke_attrs(&mut el, s);
                }
                w.write_event(Event::Empty(el))?;
            }
            Item::Rect { rect: [x, y, rw, rh], color, crisp } => {
                if !(*rw > 0.0 && *rh > 0.0) {
                    continue;
                }
                let mut el = BytesStart::new("rect");
                for (name, v) in [("x", x), ("y", y), ("width", rw), ("height", rh)] {
                    el.push_attribute((name, num(*v).as_str()));
                }
                paint_attrs(&mut el, "fill", *color);
                if *crisp {
                    el.push_attribute(("shape-rendering", "crispEdges"));
                }
                w.write_event(Event::Empty(el))?;
            }
            Item::Text { text, x, baseline, size, color } => {
                let placed = TextRenderer::layout(text, *size);
                if placed.is_empty() {
                    continue;
                }
                let xs: Vec<String> = placed.iter().map(|c| num(x + c.x)).collect();
                let mut el = BytesStart::new("text");
                el.push_attribute(("x", xs.join(" ").as_str()));
                el.push_attribute(("y", num(*baseline).as_str()));
                el.push_attribute(("font-size", num(*size).as_str()));
                paint_attrs(&mut el, "fill", *color);
                w.write_event(Event::Start(el))?;
                w.write_event(Event::Text(BytesText::new(text)))?;
                w.write_event(Event::End(BytesEnd::new("text")))?;
            }
            Item::Group(g) => write_group(w, g, clips)?,
        }
    }
    Ok(())
}

fn write_group(w: &mut W, g: &Group, clips: &mut usize) -> std::io::Result<()> {
    *clips += 1;
    let id = format!("clip{clips}");
    let mut outer = BytesStart::new("g");
    if (g.x, g.y) != (0, 0) {
        outer.push_attribute(("transform", format!("translate({} {})", g.x, g.y).as_str()));
    }
    w.write_event(Event::Start(outer))?;
    let mut clip = BytesStart::new("clipPath");
    clip.push_attribute(("id", id.as_str()));
    w.write_event(Event::Start(clip))?;
    let mut r = BytesStart::new("rect");
    r.push_attribute(("width", g.width.to_string().as_str()));
    r.push_attribute(("height", g.height.to_string().as_str()));
    w.write_event(Event::Empty(r))?;
    w.write_event(Event::End(BytesEnd::new("clipPath")))?;
    let mut inner = BytesStart::new("g");
    inner.push_attribute(("clip-path", format!("url(#{id})").as_str()));
    w.write_event(Event::Start(inner))?;
    if let Some(c) = g.backdrop {
        let mut r = BytesStart::new("rect");
        r.push_attribute(("width", g.width.to_string().as_str()));
        r.push_attribute(("height", g.height.to_string().as_str()));
        paint_attrs(&mut r, "fill", c);
        w.write_event(Event::Empty(r))?;
    }
    write_items(w, &g.items, clips)?;
    w.write_event(Event::End(BytesEnd::new("g")))?;
    w.write_event(Event::End(BytesEnd::new("g")))?;
    Ok(())
}

/// A number as SVG reads it: the shortest text that gives the same f32.
fn num(v: f32) -> String {
    if v == v.trunc() && v.abs() < 1e7 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// The alpha a colour is drawn with: tiny-skia's 8-bit value.
pub(crate) fn alpha(c: Rgba) -> f32 {
    f32::from((c.a.clamp(0.0, 1.0) * 255.0).round() as u8) / 255.0
}

fn paint_attrs(el: &mut BytesStart<'_>, what: &str, c: Rgba) {
    el.push_attribute((what, format!("rgb({},{},{})", c.r, c.g, c.b).as_str()));
    let a = alpha(c);
    if a < 1.0 {
        el.push_attribute((format!("{what}-opacity").as_str(), num(a).as_str()));
    }
}

fn stroke_attrs(el: &mut BytesStart<'_>, s: &Stroke) {
    paint_attrs(el, "stroke", s.color);
    el.push_attribute(("stroke-width", num(s.width).as_str()));
    if s.cap == Cap::Round {
        el.push_attribute(("stroke-linecap", "round"));
    }
    if s.join == Join::Round {
        el.push_attribute(("stroke-linejoin", "round"));
    }
    if let Some(d) = &s.dash {
        let list: Vec<String> = d.iter().map(|v| num(*v)).collect();
        el.push_attribute(("stroke-dasharray", list.join(" ").as_str()));
    }
}

/// The path's `d`: M, L, Z, and a circle as two half arcs.
fn path_data(path: &Path) -> String {
    let mut d = String::new();
    for cmd in &path.cmds {
        if !d.is_empty() {
            d.push(' ');
        }
        let _ = match *cmd {
            PathCmd::Move(x, y) => write!(d, "M{} {}", num(x), num(y)),
            PathCmd::Line(x, y) => write!(d, "L{} {}", num(x), num(y)),
            PathCmd::Close => write!(d, "Z"),
            PathCmd::Circle(x, y, r) => {
                let (r_, a, b, y_) = (num(r), num(x + r), num(x - r), num(y));
                write!(d, "M{a} {y_} A{r_} {r_} 0 1 0 {b} {y_} A{r_} {r_} 0 1 0 {a} {y_} Z")
            }
        };
    }
    d
}
