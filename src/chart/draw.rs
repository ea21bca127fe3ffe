//! The series and legend macros every chart uses. Macros, because plotters' chart types are deeply
//! generic and each marker shape is a different element type. Callers import `plotters::prelude::*`
//! (the macros call its traits' methods). Exported (at the crate root, hidden, under `chart_` names) so
//! the reports' charts use them too; use them by their names here.

/// The legend box every chart uses, at `$position` (a `SeriesLabelPosition`).
#[macro_export]
#[doc(hidden)]
macro_rules! chart_draw_legend {
    ($chart:expr, $position:expr) => {
        $chart
            .configure_series_labels()
            .position($position)
            .label_font($crate::chart::legend_style())
            .background_style(::plotters::style::WHITE.mix(0.9))
            .border_style(::plotters::style::RGBColor(160, 160, 160))
            .draw()?
    };
}
pub use chart_draw_legend as draw_legend;

/// Draws `$points` as a line in the look `$look` (solid or dashed), markers at `$marks`, and one
/// legend entry showing both. A macro, because each marker shape is a different element type.
#[macro_export]
#[doc(hidden)]
macro_rules! chart_look_series {
    ($chart:expr, $points:expr, $marks:expr, $look:expr, $label:expr) => {{
        let look: $crate::chart::look::LineLook = $look;
        let stroke = look.color.stroke_width(look.width);
        match look.dash {
            None => {
                $chart.draw_series(::plotters::series::LineSeries::new($points.iter().copied(), stroke))?;
            }
            Some((on, off)) => {
                $chart.draw_series(::plotters::series::DashedLineSeries::new(
                    $points.iter().copied(),
                    on,
                    off,
                    stroke,
                ))?;
            }
        }
        let fill = if look.hollow { look.color.stroke_width(2) } else { look.color.filled() };
        let white = ::plotters::style::WHITE.filled();
        // Triangle markers are always drawn filled: a hollow one is a white triangle inside.
        let inner = if look.hollow { ::plotters::style::WHITE.filled() } else { look.color.filled() };
        // A long "on" and no gap draws the legend's line solid.
        let (on, off) = look.dash.unwrap_or((100, 0));
        let line = move |x: i32, y: i32| {
            ::plotters::element::EmptyElement::at((x, y))
                + ::plotters::element::DashedPathElement::new(vec![(0, 0), (24, 0)], on, off, stroke)
        };
        let anchor = $points[0];
        let legend =
            $chart.draw_series(::std::iter::once(::plotters::element::EmptyElement::at(anchor)))?.label($label);
        match look.marker {
            None => {
                legend.legend(move |(x, y)| line(x, y));
            }
            Some(0) => {
                legend.legend(move |(x, y)| {
                    line(x, y)
                        + ::plotters::element::Circle::new((12, 0), 6, white)
                        + ::plotters::element::Circle::new((12, 0), 6, fill)
                });
                $chart.draw_series($marks.iter().map(|p| {
                    ::plotters::element::EmptyElement::at(*p)
                        + ::plotters::element::Circle::new((0, 0), 6, white)
                        + ::plotters::element::Circle::new((0, 0), 6, fill)
                }))?;
            }
            Some(1) => {
                legend.legend(move |(x, y)| {
                    line(x, y)
                        + ::plotters::element::TriangleMarker::new((12, 0), 7, fill)
                        + ::plotters::element::TriangleMarker::new((12, 1), 3, inner)
                });
                $chart.draw_series($marks.iter().map(|p| {
                    ::plotters::element::EmptyElement::at(*p)
                        + ::plotters::element::TriangleMarker::new((0, 0), 7, fill)
                        + ::plotters::element::TriangleMarker::new((0, 1), 3, inner)
                }))?;
            }
            Some(_) => {
                legend.legend(move |(x, y)| {
                    line(x, y)
                        + ::plotters::element::Rectangle::new([(8, -4), (16, 4)], white)
                        + ::plotters::element::Rectangle::new([(8, -4), (16, 4)], fill)
                });
                $chart.draw_series($marks.iter().map(|p| {
                    ::plotters::element::EmptyElement::at(*p)
                        + ::plotters::element::Rectangle::new([(-4, -4), (4, 4)], white)
                        + ::plotters::element::Rectangle::new([(-4, -4), (4, 4)], fill)
                }))?;
            }
        }
    }};
}
pub use chart_look_series as look_series;

/// Draws one series as a solid line with markers of shape `$kind` (circle, triangle, square) and its
/// legend entry.
#[macro_export]
#[doc(hidden)]
macro_rules! chart_marker_series {
    ($chart:expr, $points:expr, $kind:expr, $color:expr, $width:expr, $label:expr) => {{
        let color: ::plotters::style::RGBColor = $color;
        let style = color.filled();
        let line = ::plotters::series::LineSeries::new($points.iter().cloned(), color.stroke_width($width));
        let stroke = color.stroke_width($width);
        let path = move |x: i32, y: i32| {
            ::plotters::element::EmptyElement::at((x, y))
                + ::plotters::element::PathElement::new(vec![(0, 0), (24, 0)], stroke)
        };
        match $kind {
            0 => {
                $chart
                    .draw_series(line)?
                    .label($label)
                    .legend(move |(x, y)| path(x, y) + ::plotters::element::Circle::new((12, 0), 6, style));
                $chart.draw_series($points.iter().map(|p| ::plotters::element::Circle::new(p.clone(), 6, style)))?;
            }
            1 => {
                $chart
                    .draw_series(line)?
                    .label($label)
                    .legend(move |(x, y)| path(x, y) + ::plotters::element::TriangleMarker::new((12, 0), 7, style));
                $chart.draw_series(
                    $points.iter().map(|p| ::plotters::element::TriangleMarker::new(p.clone(), 7, style)),
                )?;
            }
            _ => {
                $chart
                    .draw_series(line)?
                    .label($label)
                    .legend(move |(x, y)| path(x, y) + ::plotters::element::Rectangle::new([(8, -4), (16, 4)], style));
                $chart.draw_series($points.iter().map(|p| {
                    ::plotters::element::EmptyElement::at(p.clone())
                        + ::plotters::element::Rectangle::new([(-4, -4), (4, 4)], style)
                }))?;
            }
        }
    }};
}
pub use chart_marker_series as marker_series;
