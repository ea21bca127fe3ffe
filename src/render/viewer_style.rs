//! The renderer's look (`style`) as JSON for the HTML viewer's script, which draws with the same
//! colours, widths and text metrics.

use super::style::*;
use super::text::TextRenderer;
use crate::model::voxel::scaffolding::SpringGroup;

/// The look as JSON for the HTML viewer's script, which draws with the same colours and widths: colours
/// as CSS `rgba(…)` strings.
pub fn style_json() -> serde_json::Value {
    let css = |c: Rgba| format!("rgba({},{},{},{})", c.r, c.g, c.b, c.a);
    let text_metrics = [TEXT_PX, SMALL_TEXT_PX].map(|size| {
        let m = TextRenderer::metrics(size);
        serde_json::json!({"size": size, "ascent": m.ascent, "descent": m.descent, "line_height": m.line_height})
    });
    let px = serde_json::json!({
        "grid_line": GRID_LINE_PX, "terrain_outline": TERRAIN_OUTLINE_PX, "voxel_outline": VOXEL_OUTLINE_PX,
        "spring": SPRING_PX, "rope": ROPE_PX, "rope_dash": ROPE_DASH_PX, "arrow": ARROW_PX,
        "touching": TOUCHING_PX, "weld_radius_m": WELD_RADIUS_M, "weld_min_radius": WELD_MIN_RADIUS_PX,
        "text": TEXT_PX, "small_text": SMALL_TEXT_PX, "minor_tick": MINOR_TICK_PX, "major_tick": MAJOR_TICK_PX,
        "hatch_spacing": HATCH_SPACING_PX, "material_hatch": MATERIAL_HATCH_PX, "cell_body_outline": CELL_BODY_OUTLINE_PX,
        "ramp_hatch": RAMP_HATCH_PX, "ramp_hatch_spacing": RAMP_HATCH_SPACING_PX,
    });
    let spring_colors: serde_json::Map<String, serde_json::Value> = SpringGroup::ALL
        .iter()
        .map(|&g| {
            (
                serde_json::to_value(g).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default(),
                css(spring_color(g)).into(),
            )
        })
        .collect();
    serde_json::json!({
        "background": css(BACKGROUND),
        "world_grid": css(WORLD_GRID),
        "terrain_fill": css(TERRAIN_FILL),
        "object_fill": css(OBJECT_FILL),
        "terrain_outline": css(TERRAIN_OUTLINE),
        "voxel_outline": css(VOXEL_OUTLINE),
        "voxel_fill_alpha": VOXEL_FILL_ALPHA,
        "mass_fill": css(MASS_FILL),
        "rope": css(ROPE),
        "weld": css(WELD),
        "arrow": css(ARROW),
        "touching": css(TOUCHING),
        "text": css(TEXT),
        "overlay_box": css(OVERLAY_BOX),
        "ground_tick": css(GROUND_TICK),
        "material_hatch": css(MATERIAL_HATCH),
        "cell_membrane": css(CELL_MEMBRANE),
        "cell_body_outline": css(CELL_BODY_OUTLINE),
        "connector_active": css(CONNECTOR_ACTIVE),
        "connector_passive": css(CONNECTOR_PASSIVE),
        "connector_outline": css(CONNECTOR_OUTLINE),
        "connector_types": CONNECTOR_TYPES.map(css),
        "cell_pair": css(CELL_PAIR),
        "cell_pin": css(CELL_PIN),
        "cell_area_domain": CELL_AREA_DOMAIN,
        "text_metrics": text_metrics,
        "spring_colors": spring_colors,
        "px": px,
    })
}
