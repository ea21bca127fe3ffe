//! Renderer tests on hand-built snapshots (never simulation output, so physics changes never touch them):
//! golden images of suite `render`, plus pixel, camera, tiling and frame-timing facts.

use image::RgbaImage;
use vsr2d::geom::{Aabb, Polygon, Vec2};
use vsr2d::model::voxel::scaffolding::SpringGroup;
use vsr2d::model::voxel::sensors::{SensorKind, SensorReadings};
use vsr2d::output::sinks::Filmstrip;
use vsr2d::render::{
    auto_layout, cell_rect, frame_count, frame_count_of, frame_time, nice_spacing, pick_index, pixmap_to_rgba_image,
    render_snapshot, Camera, CellFrame, FrameCursor, GridLayout, GridRenderer, LayoutParseError, RenderError,
    RenderOptions, TextRenderer, ViewTransform, FOLLOW_TIME_CONSTANT_S,
};
use vsr2d::snapshot::{BodyId, BodySnapshot, RopeSegment, Snapshot, SpringSegment, VoxelRobotSnapshot, VoxelSnapshot};

use crate::golden::{assert_golden, GoldenOptions};

const SUITE: &str = "render";
/// Voxel side and mass side ratio of the spec defaults.
const L: f64 = 3.0;
const RHO: f64 = 0.3;
/// Corner signs SW, SE, NE, NW.
const SIGNS: [(f64, f64); 4] = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)];

// ---------------------------------------------------------------------------------------------------
// Hand-built snapshots

/// How a hand-built voxel is posed: scaled uniformly about its centre to `area_ratio`, rotated by `angle`.
#[derive(Clone, Copy)]
struct Pose {
    center: Vec2,
    area_ratio: f64,
    angle: f64,
    velocity: Vec2,
    touching: bool,
}

impl Pose {
    fn at(x: f64, y: f64) -> Self {
        Pose { center: Vec2::new(x, y), area_ratio: 1.0, angle: 0.0, velocity: Vec2::ZERO, touching: false }
    }
    fn area(self, area_ratio: f64) -> Self {
        Pose { area_ratio, ..self }
    }
    fn angle(self, angle: f64) -> Self {
        Pose { angle, ..self }
    }
    fn velocity(self, x: f64, y: f64) -> Self {
        Pose { velocity: Vec2::new(x, y), ..self }
    }
    fn touching(self) -> Self {
        Pose { touching: true, ..self }
    }
}

fn rotate(v: Vec2, a: f64) -> Vec2 {
    let (s, c) = a.sin_cos();
    Vec2::new(c * v.x - s * v.y, s * v.x + c * v.y)
}

/// A voxel posed geometrically: the outline is the square of side l·√AR, each rigid mass (side ρ·l) sits
/// with its outer corner on the outline's corner.
fn voxel(cell: [u32; 2], p: Pose) -> VoxelSnapshot {
    let half = L * p.area_ratio.sqrt() / 2.0;
    let h = RHO * L / 2.0;
    let at = |local: Vec2| p.center + rotate(local, p.angle);
    let outline = SIGNS.map(|(sx, sy)| at(Vec2::new(sx * half, sy * half)));
    let masses = SIGNS.map(|(sx, sy)| {
        let c = Vec2::new(sx * (half - h), sy * (half - h));
        SIGNS.map(|(cx, cy)| at(c + Vec2::new(cx * h, cy * h)))
    });
    let v = p.velocity;
    let (s, c) = p.angle.sin_cos();
    let sensors = SensorReadings {
        area_ratio: p.area_ratio,
        velocity_magnitude: v.length(),
        x_velocity: v.x,
        y_velocity: v.y,
        angle: p.angle,
        x_rot_velocity: v.x * c + v.y * s,
        y_rot_velocity: v.x * s - v.y * c,
        touching: f64::from(u8::from(p.touching)),
    };
    VoxelSnapshot {
        cell,
        masses,
        outline,
        center: p.center,
        velocity: v,
        area_ratio: p.area_ratio,
        control: 0.0,
        raw_control: 0.0,
        sensors,
        touching: p.touching,
        material: 0,
    }
}

fn mass_center(v: &VoxelSnapshot, i: usize) -> Vec2 {
    v.masses[i].iter().fold(Vec2::ZERO, |a, &b| a + b) * 0.25
}

/// The 18 springs of a voxel (spec §3): for side s between masses a = s and b = s+1, E joins the outer gap
/// corners, I the inner ones, X the diagonals; C joins the mass centres across.
fn springs(v: &VoxelSnapshot) -> Vec<SpringSegment> {
    let mut out = Vec::new();
    for s in 0..4 {
        let (a, b) = (&v.masses[s], &v.masses[(s + 1) % 4]);
        let (a_out, a_in) = (a[(s + 1) % 4], a[(s + 2) % 4]);
        let (b_out, b_in) = (b[s], b[(s + 3) % 4]);
        out.push(SpringSegment { a: a_out, b: b_out, group: SpringGroup::SideExternal });
        out.push(SpringSegment { a: a_in, b: b_in, group: SpringGroup::SideInternal });
        out.push(SpringSegment { a: a_out, b: b_in, group: SpringGroup::SideCross });
        out.push(SpringSegment { a: a_in, b: b_out, group: SpringGroup::SideCross });
    }
    for (i, j) in [(0, 2), (1, 3)] {
        out.push(SpringSegment { a: mass_center(v, i), b: mass_center(v, j), group: SpringGroup::CentralCross });
    }
    out
}

fn ropes(v: &VoxelSnapshot) -> Vec<RopeSegment> {
    (0..4).map(|s| RopeSegment { a: mass_center(v, s), b: mass_center(v, (s + 1) % 4), active: s == 0 }).collect()
}

/// Weld pairs of edge-adjacent voxels (spec §6).
fn welds(voxels: &[VoxelSnapshot]) -> Vec<[Vec2; 2]> {
    let find = |x: u32, y: u32| voxels.iter().find(|v| v.cell == [x, y]);
    let mut out = Vec::new();
    for v in voxels {
        let [x, y] = v.cell;
        if let Some(r) = find(x + 1, y) {
            out.push([mass_center(v, 1), mass_center(r, 0)]);
            out.push([mass_center(v, 2), mass_center(r, 3)]);
        }
        if let Some(u) = find(x, y + 1) {
            out.push([mass_center(v, 3), mass_center(u, 0)]);
            out.push([mass_center(v, 2), mass_center(u, 1)]);
        }
    }
    out
}

fn robot(id: usize, voxels: Vec<VoxelSnapshot>, detail: bool) -> VoxelRobotSnapshot {
    let center = voxels.iter().fold(Vec2::ZERO, |a, v| a + v.center) * (1.0 / voxels.len() as f64);
    let bbox = Aabb::from_points(voxels.iter().flat_map(|v| v.masses.iter().flatten().copied()));
    let (springs, ropes, welds) = if detail {
        (
            Some(voxels.iter().flat_map(springs).collect()),
            Some(voxels.iter().flat_map(ropes).collect()),
            Some(welds(&voxels)),
        )
    } else {
        (None, None, None)
    };
    VoxelRobotSnapshot {
        id: BodyId(id),
        label: format!("robot {id}"),
        grid: [4, 2],
        center,
        bbox,
        voxels,
        touching_ground: false,
        materials: vec![],
        springs,
        ropes,
        welds,
        controller: None,
    }
}

/// The spec's flat terrain (§10), closed down to y = −10.
fn flat_terrain() -> Polygon {
    [(0.0, -10.0), (0.0, 100.0), (10.0, 0.0), (1990.0, 0.0), (2000.0, 100.0), (2000.0, -10.0)]
        .map(|(x, y)| Vec2::new(x, y))
        .to_vec()
}

/// Voxel robot `i` of a snapshot.
fn robot_of(snapshot: &Snapshot, i: usize) -> &VoxelRobotSnapshot {
    snapshot.bodies[i].as_voxel_robot().expect("a voxel robot")
}

fn robot_mut(snapshot: &mut Snapshot, i: usize) -> &mut VoxelRobotSnapshot {
    match &mut snapshot.bodies[i] {
        BodySnapshot::VoxelRobot(r) => r,
        _ => panic!("body {i} is not a voxel robot"),
    }
}

fn snapshot(t: f64, robots: Vec<VoxelRobotSnapshot>) -> Snapshot {
    Snapshot {
        step: (t * 60.0).round() as u64,
        t,
        bodies: robots.into_iter().map(BodySnapshot::VoxelRobot).collect(),
        terrain: Some(std::sync::Arc::new(flat_terrain())),
        statics: vec![],
    }
}

/// A robot of voxels at the given cells, its lower-left lattice corner at `origin`, each posed by `pose`.
fn lattice_robot(
    id: usize,
    origin: Vec2,
    cells: &[[u32; 2]],
    detail: bool,
    pose: impl Fn(usize, Pose) -> Pose,
) -> VoxelRobotSnapshot {
    let voxels = cells
        .iter()
        .enumerate()
        .map(|(i, &[x, y])| {
            let c = origin + Vec2::new((f64::from(x) + 0.5) * L, (f64::from(y) + 0.5) * L);
            voxel([x, y], pose(i, Pose::at(c.x, c.y)))
        })
        .collect();
    robot(id, voxels, detail)
}

/// One voxel standing on the terrain at x = 20 m.
fn single_voxel(area_ratio: f64) -> Snapshot {
    let half = L * area_ratio.sqrt() / 2.0;
    snapshot(1.25, vec![robot(0, vec![voxel([0, 0], Pose::at(20.0, half).area(area_ratio))], false)])
}

/// A "table" of six voxels with mixed states: shrunk, enlarged, rotated, moving, two touching the ground.
const TABLE: [[u32; 2]; 6] = [[0, 0], [3, 0], [0, 1], [1, 1], [2, 1], [3, 1]];

fn table_robot(id: usize, origin: Vec2, detail: bool) -> VoxelRobotSnapshot {
    lattice_robot(id, origin, &TABLE, detail, |i, p| match i {
        0 => p.area(0.85).velocity(1.5, 0.0).touching(),
        1 => p.area(1.15).velocity(2.0, -1.0).touching(),
        2 => p.angle(0.08).velocity(1.0, 1.0),
        3 => p.area(0.78).velocity(0.5, 2.0),
        4 => p.area(1.22).velocity(-0.5, 1.5),
        _ => p.area(1.0).angle(-0.05).velocity(2.5, 0.5),
    })
}

// ---------------------------------------------------------------------------------------------------
// Pixel helpers

fn rgb(img: &RgbaImage, x: f64, y: f64) -> [u8; 3] {
    let p = img.get_pixel(x.floor() as u32, y.floor() as u32);
    [p[0], p[1], p[2]]
}

fn assert_rgb_near(actual: [u8; 3], expected: [u8; 3], tol: u8, what: &str) {
    let ok = actual.iter().zip(expected.iter()).all(|(a, e)| a.abs_diff(*e) <= tol);
    assert!(ok, "{what}: pixel {actual:?}, expected {expected:?} ± {tol}");
}

/// The colour of `c` (0–255) at alpha 0.75 over white, as the spec's voxel fill shows on the background.
fn over_white(c: [f64; 3]) -> [u8; 3] {
    c.map(|v| (v * 0.75 + 255.0 * 0.25).round() as u8)
}

fn is_blue(p: [u8; 3]) -> bool {
    p[2] >= 200 && p[0] <= 90 && p[1] <= 110
}

fn render_one(snap: &Snapshot, w: u32, h: u32, options: RenderOptions) -> (RgbaImage, ViewTransform) {
    let mut r = GridRenderer::new(w, h, 1, 1, options).unwrap();
    r.render(&[CellFrame::new(snap)]).unwrap();
    (pixmap_to_rgba_image(r.pixmap()), r.transform(0).unwrap())
}

// ---------------------------------------------------------------------------------------------------
// Goldens

/// Checks the look of a single voxel: fill colour at its centre region, blue outline, white sky, gray grid
/// line and terrain, and that the first frame frames the 1.5× box exactly.
fn check_single_voxel(name: &str, area_ratio: f64, expected_fill: [f64; 3]) {
    let snap = single_voxel(area_ratio);
    let (img, _) = render_one(&snap, 240, 180, RenderOptions::default());
    assert_golden(SUITE, name, &img, GoldenOptions::default());
    // The pixel checks below look at the scene without the overlay, legend and ticks on top of it.
    let plain = RenderOptions { text: false, legend: false, ground_ticks: false, ..RenderOptions::default() };
    let (img, tf) = render_one(&snap, 240, 180, plain);

    // First frame: the view is the robot box ×1.5, its height extended to the 4:3 cell.
    let b = robot_of(&snap, 0).bbox;
    assert!((tf.view.height() - 1.5 * b.height()).abs() < 1e-9);
    assert!((tf.view.width() - 1.5 * b.height() * 4.0 / 3.0).abs() < 1e-9);
    assert!((tf.scale - 180.0 / (1.5 * b.height())).abs() < 1e-9);

    // Grid spacing 0.5 m (g0 = 0.6 m); sample halfway between grid lines.
    let g = nice_spacing(tf.view.width()).unwrap();
    assert!((g - 0.5).abs() < 1e-12, "spacing {g}");
    let c = robot_of(&snap, 0).voxels[0].center;
    let sample = Vec2::new(20.25, (c.y / g).floor() * g + g / 2.0);
    let (x, y) = tf.to_pixel(sample);
    assert_rgb_near(rgb(&img, x, y), over_white(expected_fill), 2, "voxel fill");

    // The left edge of the outline is blue (1.5 px stroke centred on it).
    let left = robot_of(&snap, 0).voxels[0].outline[0].x;
    let (ex, ey) = tf.to_pixel(Vec2::new(left, sample.y));
    assert!((-1..=1).any(|d| is_blue(rgb(&img, ex + f64::from(d), ey))), "no blue outline near x = {ex}");

    // Sky between grid lines is white; a grid line is (220, 220, 220); the terrain is 50 % gray.
    let sky_y = ((b.max.y + 0.1 - g / 2.0) / g).ceil() * g + g / 2.0;
    let (sx, sy) = tf.to_pixel(Vec2::new(21.25, sky_y));
    assert_rgb_near(rgb(&img, sx, sy), [255, 255, 255], 0, "sky");
    let (gx, gy) = tf.to_pixel(Vec2::new(21.5, sky_y));
    assert_rgb_near(rgb(&img, gx, gy), [220, 220, 220], 0, "grid line");
    let (tx, ty) = tf.to_pixel(Vec2::new(22.25, -0.25));
    assert_rgb_near(rgb(&img, tx, ty), [128, 128, 128], 0, "terrain");
    // The terrain's top edge (y = 0), right of the voxel, is outlined in black.
    let (_, top) = tf.to_pixel(Vec2::new(22.25, 0.0));
    let darkest = (-1..=1).map(|d| *rgb(&img, tx, top + f64::from(d)).iter().max().unwrap()).min().unwrap();
    assert!(darkest < 100, "terrain outline not dark: {darkest}");
}

#[test]
fn golden_voxel_at_rest_is_green() {
    // u = ½ → pure green.
    check_single_voxel("voxel_rest", 1.0, [0.0, 255.0, 0.0]);
}

#[test]
fn golden_voxel_shrunk_is_red() {
    // AR 0.8 on [0.75, 1.25]: u = 0.1 → (0.8, 0.2, 0).
    check_single_voxel("voxel_shrunk", 0.8, [204.0, 51.0, 0.0]);
}

#[test]
fn golden_voxel_enlarged_is_yellow() {
    // AR 1.2: u = 0.9 → (0.8, 1, 0).
    check_single_voxel("voxel_enlarged", 1.2, [204.0, 255.0, 0.0]);
}

#[test]
fn golden_robot_with_every_layer() {
    let robot = table_robot(0, Vec2::new(30.0, 0.0), true);
    let wall = vec![Vec2::new(44.0, 0.0), Vec2::new(45.0, 0.0), Vec2::new(45.0, 8.0), Vec2::new(44.0, 8.0)];
    let mut snap = snapshot(3.5, vec![robot]);
    snap.statics.push(std::sync::Arc::new(wall));
    let (img, tf) = render_one(&snap, 480, 270, RenderOptions::all_layers());
    assert_golden(SUITE, "robot_all_layers", &img, GoldenOptions::default());

    let r = robot_of(&snap, 0);
    // Welds: pure red at the dot centres (drawn over masses and springs).
    for pair in r.welds.as_ref().unwrap() {
        let (x, y) = tf.to_pixel(pair[0]);
        assert_rgb_near(rgb(&img, x, y), [255, 0, 0], 40, "weld dot");
    }
    assert_eq!(r.welds.as_ref().unwrap().len(), 2 * 5, "5 adjacencies in the table");
    // Touching ring: magenta on the left edge of the touching voxel 0, blue on the non-touching voxel 2.
    let v0 = &r.voxels[0];
    let mid = (v0.outline[3] + v0.outline[0]) * 0.5 + Vec2::new(0.0, 0.3);
    let (x, y) = tf.to_pixel(mid);
    let magenta = (-2..=2).any(|d| {
        let p = rgb(&img, x + f64::from(d), y);
        p[0] > 170 && p[2] > 170 && p[1] < 80
    });
    assert!(magenta, "no touching marker near {x},{y}");
    // The wall is drawn like the terrain.
    let (wx, wy) = tf.to_pixel(Vec2::new(44.5, 4.0));
    assert_rgb_near(rgb(&img, wx, wy), [128, 128, 128], 0, "wall");
    // Ropes are dashed: along the bottom rope of voxel 2 (SW–SE mass centres), dark and light pixels alternate.
    let rope = r.ropes.as_ref().unwrap()[4 * 2];
    let samples: Vec<bool> = (0..40)
        .map(|i| {
            let p = rope.a + (rope.b - rope.a) * (0.3 + 0.4 * f64::from(i) / 40.0);
            let (x, y) = tf.to_pixel(p);
            rgb(&img, x, y).iter().all(|&c| c < 110)
        })
        .collect();
    assert!(samples.iter().any(|&d| d) && samples.iter().any(|&d| !d), "rope not dashed: {samples:?}");
}

/// Counts near-black pixels in a box around a world point.
fn dark_pixels_around(img: &RgbaImage, tf: &ViewTransform, p: Vec2, half_w: i32, half_h: i32) -> usize {
    let (cx, cy) = tf.to_pixel(p);
    (-half_w..=half_w)
        .flat_map(|dx| (-half_h..=half_h).map(move |dy| (dx, dy)))
        .filter(|&(dx, dy)| rgb(img, cx + f64::from(dx), cy + f64::from(dy)).iter().all(|&c| c < 60))
        .count()
}

#[test]
fn sensor_values_and_springs_layers() {
    let snap = snapshot(0.0, vec![table_robot(0, Vec2::new(30.0, 0.0), true)]);
    let plain = RenderOptions { world_grid: false, text: false, ..RenderOptions::default() };
    let (off, tf) = render_one(&snap, 480, 270, plain.clone());
    let (on, _) = render_one(&snap, 480, 270, RenderOptions { sensor_values: true, ..plain.clone() });
    for v in &robot_of(&snap, 0).voxels {
        assert_eq!(dark_pixels_around(&off, &tf, v.center, 14, 6), 0);
        let dark = dark_pixels_around(&on, &tf, v.center, 14, 6);
        assert!(dark >= 10, "no sensor text at voxel {:?} ({dark} dark pixels)", v.cell);
    }
    // Springs only: where the two central-cross springs cross (the voxel centre) the pixel is orange over
    // the fill, and it is the plain fill without the layer.
    let (springs, _) = render_one(&snap, 480, 270, RenderOptions { springs: true, ..plain });
    let v = &robot_of(&snap, 0).voxels[1];
    let (x, y) = tf.to_pixel(v.center);
    let p = rgb(&springs, x, y);
    assert!(p[0] > 200 && (100..=200).contains(&p[1]) && p[2] < 110, "central cross not orange: {p:?}");
    assert_ne!(rgb(&off, x, y), p);
}

#[test]
fn golden_grid_of_four_cells_with_labels() {
    let two =
        snapshot(2.0, vec![table_robot(0, Vec2::new(20.0, 0.0), false), table_robot(1, Vec2::new(60.0, 0.0), false)]);
    let single = single_voxel(0.9);
    let rotated = snapshot(0.5, vec![robot(0, vec![voxel([0, 0], Pose::at(50.0, 3.0).angle(0.5).area(1.1))], false)]);
    let (w, h) = (640, 360);
    let mut r = GridRenderer::new(w, h, 2, 2, RenderOptions::default()).unwrap();
    let (only0, only1) = ([BodyId(0)], [BodyId(1)]);
    let frames = [
        CellFrame::new(&single).label("single voxel"),
        CellFrame::new(&rotated).label("rotated\nsecond line"),
        CellFrame::new(&two).bodies(&only0).label("robot 0"),
        CellFrame::new(&two).bodies(&only1).label("robot 1"),
    ];
    let img = pixmap_to_rgba_image(r.render(&frames).unwrap());
    assert_golden(SUITE, "grid_2x2_labels", &img, GoldenOptions::default());

    // Cells tile the image per the spec.
    assert_eq!(r.cell_rect(3).unwrap(), cell_rect(w, h, 2, 2, 1, 1));
    assert_eq!(r.cell_rect(1).unwrap().x, 320);
    // The robot filter frames only the chosen robot: each camera is centred across on its robot's box,
    // with the 1.5× margin (a quarter of the box height) under it and the rest of the height above.
    for (cell, id) in [(2, 0), (3, 1)] {
        let tf = r.transform(cell).unwrap();
        let b = robot_of(&two, id).bbox;
        assert!(
            (tf.center.x - b.center().x).abs() < 1e-9 && (tf.view.min.y - (b.min.y - 0.25 * b.height())).abs() < 1e-9
        );
        assert!(tf.view.width() < 30.0, "cell {cell} frames both robots");
    }
    // Every cell has its text top-left (dark pixels within the first line's box), and only there.
    for cell in 0..4 {
        let rect = r.cell_rect(cell).unwrap();
        let dark = (rect.x + 4..rect.x + 70)
            .flat_map(|x| (rect.y + 3..rect.y + 17).map(move |y| (x, y)))
            .filter(|&(x, y)| img.get_pixel(x, y).0[..3].iter().all(|&c| c < 80))
            .count();
        assert!(dark > 30, "cell {cell}: no time text ({dark} dark pixels)");
    }
}

#[test]
fn golden_text_overlay() {
    // No robots and no terrain: only the white background and the two text lines (grid off).
    let snap = Snapshot { step: 740, t: 12.3456, bodies: vec![], terrain: None, statics: vec![] };
    let options = RenderOptions { world_grid: false, ..RenderOptions::default() };
    let mut r = GridRenderer::new(200, 48, 1, 1, options).unwrap();
    let img = pixmap_to_rgba_image(r.render(&[CellFrame::new(&snap).label("run 7: worm")]).unwrap());
    assert_golden(SUITE, "text_overlay", &img, GoldenOptions::default());

    // The text is black on white and covers exactly the measured width of "t = 12.35 s" on line 1.
    let dark_cols = |y0: u32, y1: u32| -> Vec<u32> {
        (0..img.width()).filter(|&x| (y0..y1).any(|y| img.get_pixel(x, y)[0] < 128)).collect()
    };
    let line1 = dark_cols(2, 18);
    let width = TextRenderer::measure("t = 12.35 s", 12.0);
    assert!((4..=6).contains(line1.first().unwrap()), "text starts at the 4 px margin: {line1:?}");
    let last = f64::from(*line1.last().unwrap());
    assert!(last > 4.0 + f64::from(width) - 4.0 && last < 4.0 + f64::from(width) + 1.0, "line 1 ends at {last}");
    let line2 = dark_cols(19, 32);
    assert!(!line2.is_empty(), "label line missing");
    // Nothing below the second line, and the darkest text pixel is black.
    assert!(dark_cols(34, 48).is_empty());
    assert!(img.pixels().map(|p| p[0]).min().unwrap() < 20);
    assert!(img.pixels().all(|p| p[0] == p[1] && p[1] == p[2] && p[3] == 255), "text must be gray-scale on white");
}

// ---------------------------------------------------------------------------------------------------
// Materials

/// A 4×2 robot standing at x = 30 m: a hard bottom row (material 0) under a soft top row (material 1),
/// breathing a little so the hatch is seen over several fills.
fn two_material_snapshot() -> Snapshot {
    let cells: Vec<[u32; 2]> = (0..2).flat_map(|y| (0..4).map(move |x| [x, y])).collect();
    let mut robot = lattice_robot(0, Vec2::new(30.0, 0.0), &cells, false, |i, p| match i {
        1 | 4 => p,
        2 => p.area(0.85),
        7 => p.area(1.2).angle(0.05),
        _ => p.area(1.05),
    });
    robot.label = "two-material".into();
    robot.materials = vec!["h: 25 Hz, all".into(), "s: 5 Hz, E+C".into()];
    for v in &mut robot.voxels {
        v.material = v.cell[1];
    }
    snapshot(2.0, vec![robot])
}

/// Pixels inside voxel `v` (its rest square shrunk by a quarter on each side) that are not its plain fill.
fn off_fill_pixels(img: &RgbaImage, tf: &ViewTransform, v: &VoxelSnapshot) -> usize {
    let fill = rgb(img, tf.to_pixel(v.center).0, tf.to_pixel(v.center).1);
    let (a, b) = (tf.to_pixel(v.center - Vec2::new(0.75, 0.75)), tf.to_pixel(v.center + Vec2::new(0.75, 0.75)));
    let (x0, x1, y0, y1) = (a.0.min(b.0) as u32, a.0.max(b.0) as u32, a.1.min(b.1) as u32, a.1.max(b.1) as u32);
    (x0..=x1)
        .flat_map(|x| (y0..=y1).map(move |y| (x, y)))
        .filter(|&(x, y)| {
            let p = img.get_pixel(x, y);
            p.0[..3].iter().zip(fill.iter()).any(|(a, b)| a.abs_diff(*b) > 30)
        })
        .count()
}

#[test]
fn golden_two_materials_hatched_with_a_key() {
    let snap = two_material_snapshot();
    let (img, tf) = render_one(&snap, 480, 270, RenderOptions::default());
    assert_golden(SUITE, "materials_two", &img, GoldenOptions::default());

    // The soft row (material 1) is hatched, the hard row (material 0) is its plain fill. Voxels 1 and 4 are
    // at rest: the centre pixel of 4 may sit on a hatch line, so the fill is read off the hard voxel 1.
    let r = robot_of(&snap, 0);
    let (hard, soft) = (&r.voxels[1], &r.voxels[5]);
    assert_eq!(off_fill_pixels(&img, &tf, hard), 0, "the first material is plain");
    let hatched = off_fill_pixels(&img, &tf, soft);
    assert!(hatched > 60, "the second material is hatched: {hatched} pixels off the fill");

    // The key turned off (`--no-key`) leaves the voxels as they are: the soft row stays hatched, and
    // below the keys (whose boxes end above the robot) the picture is the same pixel for pixel.
    let off = RenderOptions { materials: false, ..RenderOptions::default() };
    let (img_off, _) = render_one(&snap, 480, 270, off.clone());
    assert_eq!(off_fill_pixels(&img_off, &tf, soft), hatched, "hiding the key changed the hatch");
    let below_keys = tf.to_pixel(r.bbox.max).1 as u32 - 3;
    assert!(img.enumerate_pixels().filter(|(_, y, _)| *y >= below_keys).all(|(x, y, p)| img_off.get_pixel(x, y) == p));
    // A one-material robot looks the same with the key or without, and so does a recording from before
    // materials were recorded (no names, every index 0).
    let mut single = snap.clone();
    let robot = robot_mut(&mut single, 0);
    robot.materials = vec!["#".into()];
    robot.voxels.iter_mut().for_each(|v| v.material = 0);
    let (single_on, _) = render_one(&single, 480, 270, RenderOptions::default());
    let (single_off, _) = render_one(&single, 480, 270, off);
    assert!(single_on == single_off, "a one-material robot has no key to hide");
    robot_mut(&mut single, 0).materials.clear();
    assert!(render_one(&single, 480, 270, RenderOptions::default()).0 == single_on);

    // The key: top-right, left of the colour key (there is no room under it above the robot), clear of
    // the robot; its text is dark.
    let top = tf.to_pixel(r.bbox.max).1;
    let key_pixels = img
        .enumerate_pixels()
        .filter(|(x, y, p)| *x > 120 && f64::from(*y) < top - 3.0 && img_off.get_pixel(*x, *y) != *p)
        .collect::<Vec<_>>();
    assert!(key_pixels.len() > 100, "no material key: {} pixels", key_pixels.len());
    assert!(key_pixels.iter().any(|(_, _, p)| p.0[..3].iter().all(|&c| c < 60)), "key text not dark");
    let (right, bottom) = key_pixels.iter().fold((0, 0), |(r, b), (x, y, _)| (r.max(*x), b.max(*y)));
    assert!(right < 480 - 100 && f64::from(bottom) + 2.0 < top, "key reaches x = {right}, y = {bottom}");
    // The overlay (top-left) is untouched.
    assert!(img
        .enumerate_pixels()
        .filter(|(x, y, _)| *x < 120 && *y < 50)
        .all(|(x, y, p)| img_off.get_pixel(x, y) == p));
}

/// The robot of [`two_material_snapshot`] near the world's left end: its lower-left corner at x = `x0`,
/// on the terrain outline the simulator records (`Terrain::outline`).
fn near_the_left_ramp(x0: f64) -> Snapshot {
    let cells: Vec<[u32; 2]> = (0..2).flat_map(|y| (0..4).map(move |x| [x, y])).collect();
    let robot = lattice_robot(0, Vec2::new(x0, 0.0), &cells, false, |_, p| p);
    let mut snap = snapshot(1.0, vec![robot]);
    snap.terrain = Some(std::sync::Arc::new(vsr2d::model::terrain::Terrain::flat().outline()));
    snap
}

/// The world's 100 m end ramp beside a robot near the start (issue 49): no grey slab, but the ramp's
/// face as a thick line hatched on its solid side, and the ground's grey level under it.
#[test]
fn the_end_ramp_is_drawn_as_the_worlds_edge() {
    for options in [RenderOptions::default(), RenderOptions::paper()] {
        let look = options.style.look();
        let fill = [look.terrain_fill.r, look.terrain_fill.g, look.terrain_fill.b];
        let (img, tf) = render_one(&near_the_left_ramp(11.0), 480, 270, options.clone());
        let px = |x: f64, y: f64| tf.to_pixel(Vec2::new(x, y));
        let (foot_x, ground_y) = px(10.0, 0.0);
        assert!(foot_x > 40.0, "the ramp's foot is in view at x = {foot_x:.0} px");
        // The face at height y: x = 10 − y/10 m. Left of it, above the ground and clear of its hatch
        // (which reaches 6 px beside the face), nothing is terrain-grey: the world's grid or white.
        let face_x = |y_px: f64| px(10.0 - (ground_y - y_px) / tf.scale / 10.0, 0.0).0;
        let mut slab = 0;
        let mut beside = 0;
        for y in 20..(ground_y as u32 - 12) {
            let fx = face_x(f64::from(y));
            for x in 0..(fx - 12.0).max(0.0) as u32 {
                slab += usize::from(img.get_pixel(x, y).0[..3] == fill);
            }
            // The hatch: dark pixels within 8 px left of the face.
            beside += ((fx - 8.0).max(0.0) as u32..(fx - 1.5) as u32)
                .filter(|&x| img.get_pixel(x, y).0[..3].iter().all(|&c| c < 195))
                .count();
        }
        assert_eq!(slab, 0, "{:?}: terrain fill above the ground left of the ramp's face", options.style);
        assert!(beside > 100, "{:?}: {beside} hatch pixels beside the face", options.style);
        // Below the ground the fill continues level under the ramp, to the world's end at x = 0.
        let under = 0.5 * (px(0.0, 0.0).0.max(0.0) + foot_x);
        assert_eq!(rgb(&img, under, ground_y + 6.0), fill, "{:?}: ground under the ramp", options.style);
        // Right of the foot the ground is as before: grey under a dark outline.
        assert_eq!(rgb(&img, foot_x + 60.0, ground_y + 6.0), fill);
    }
}

/// Every text item of a scene with its left end and baseline in the picture's pixels.
fn placed_texts(items: &[vsr2d::render::scene::Item], ox: f32, oy: f32) -> Vec<(String, f32, f32)> {
    use vsr2d::render::scene::Item;
    items
        .iter()
        .flat_map(|item| match item {
            Item::Text { text, x, baseline, .. } => vec![(text.clone(), ox + x, oy + baseline)],
            Item::Group(g) => placed_texts(&g.items, ox + g.x as f32, oy + g.y as f32),
            _ => vec![],
        })
        .collect()
}

/// Paper figures are stills: a ground tick label cut by the frame's edge is left out (on screen it
/// scrolls by with the ground and stays). The robot walks 10 m past the 30 m and 40 m ticks.
#[test]
fn paper_tick_labels_are_whole_or_absent() {
    let m_label = |t: &str| t.ends_with(" m") && t[..t.len() - 2].parse::<f64>().is_ok();
    let (mut screen_cut, mut paper_cut, mut paper_labels) = (0, 0, 0);
    for step in 0..40 {
        let x0 = 24.0 + 0.25 * f64::from(step);
        let cells: Vec<[u32; 2]> = (0..2).flat_map(|y| (0..4).map(move |x| [x, y])).collect();
        let snap = snapshot(1.0, vec![lattice_robot(0, Vec2::new(x0, 0.0), &cells, false, |_, p| p)]);
        for (options, cut) in [(RenderOptions::default(), &mut screen_cut), (RenderOptions::paper(), &mut paper_cut)] {
            let size = options.style.look().small_text_px;
            let mut r = GridRenderer::new(400, 260, 1, 1, options.clone()).unwrap();
            let scene = r.scene(&[CellFrame::new(&snap)]).unwrap();
            let metrics = TextRenderer::metrics(size);
            for (text, x, baseline) in placed_texts(&scene.items, 0.0, 0.0).into_iter().filter(|t| m_label(&t.0)) {
                paper_labels += usize::from(options.style == vsr2d::render::Style::Paper);
                let w = TextRenderer::measure(&text, size);
                let whole = x >= 0.0
                    && x + w <= 400.0
                    && baseline - metrics.ascent >= 0.0
                    && baseline + metrics.descent.abs() <= 260.0;
                *cut += usize::from(!whole);
            }
        }
    }
    assert!(screen_cut > 0, "the sweep never brings a label to the edge");
    assert!(paper_labels > 40, "{paper_labels} paper labels");
    assert_eq!(paper_cut, 0, "paper labels cut by the frame's edge");
}

#[test]
fn material_hatches_cycle_after_the_plain_first() {
    use vsr2d::render::{material_hatch, Hatch};
    let seq: Vec<Hatch> = (0..8).map(material_hatch).collect();
    assert_eq!(
        seq,
        [
            Hatch::Plain,
            Hatch::Rising,
            Hatch::Falling,
            Hatch::Cross,
            Hatch::Rising,
            Hatch::Falling,
            Hatch::Cross,
            Hatch::Rising
        ]
    );
}

/// The paper look (issue 49): white, thin dark outlines, the viridis ramp at full opacity, larger key
/// text, no overlay and no world grid; the colour key, the material key and the ground ticks stay.
#[test]
fn golden_paper_style() {
    let snap = two_material_snapshot();
    let (img, tf) = render_one(&snap, 480, 270, RenderOptions::paper());
    assert_golden(SUITE, "paper_two_materials", &img, GoldenOptions::default());
    let r = robot_of(&snap, 0);
    // The resting hard voxel is viridis' middle, opaque: (33, 145, 140).
    let (x, y) = tf.to_pixel(r.voxels[1].center);
    assert_rgb_near(rgb(&img, x, y), [33, 145, 140], 1, "resting voxel");
    // The sky left of the robot, from below the keys down to the ground, is white: no world grid.
    let left = tf.to_pixel(r.bbox.min).0 - 5.0;
    let ground = tf.to_pixel(Vec2::new(0.0, 0.0)).1 - 3.0;
    let sky = (0..left as u32).flat_map(|x| (60..ground as u32).map(move |y| (x, y)));
    assert!(sky.into_iter().all(|(x, y)| img.get_pixel(x, y).0[..3] == [255, 255, 255]), "grid lines in the paper sky");
    // No overlay: the top-left corner is blank.
    assert!((0..120).all(|x| (0..40).all(|y| img.get_pixel(x, y).0[..3] == [255, 255, 255])), "overlay drawn");
    // The keys stay: dark text at the top right.
    assert!((240..480).any(|x| (0..30).any(|y| img.get_pixel(x, y).0[..3].iter().all(|c| *c < 80))), "no key");
}

/// Every default layer left out (`--no-overlay --no-key --no-grid --no-ticks`): the robot on its
/// terrain and nothing else.
#[test]
fn golden_hidden_layers() {
    let snap = two_material_snapshot();
    let bare = RenderOptions {
        text: false,
        legend: false,
        materials: false,
        world_grid: false,
        ground_ticks: false,
        ..RenderOptions::default()
    };
    let (img, tf) = render_one(&snap, 480, 270, bare);
    assert_golden(SUITE, "hidden_layers", &img, GoldenOptions::default());
    // Above the ground and away from the robot every pixel is white; below it every pixel is the
    // terrain's grey apart from its outline (no ticks, no tick labels).
    let r = robot_of(&snap, 0);
    let (left, top) = tf.to_pixel(Vec2::new(r.bbox.min.x, r.bbox.max.y));
    let (right, _) = tf.to_pixel(Vec2::new(r.bbox.max.x, 0.0));
    let ground = tf.to_pixel(Vec2::new(0.0, 0.0)).1;
    for (x, y, p) in img.enumerate_pixels() {
        let (fx, fy) = (f64::from(x), f64::from(y));
        let robot = fx >= left - 3.0 && fx <= right + 3.0 && fy >= top - 3.0;
        if fy < ground - 2.0 && !robot {
            assert_eq!(p.0[..3], [255, 255, 255], "sky pixel ({x}, {y})");
        } else if fy > ground + 2.0 {
            assert_eq!(p.0[..3], [128, 128, 128], "ground pixel ({x}, {y})");
        }
    }
}

#[test]
fn snapshots_without_materials_still_load_and_new_ones_round_trip() {
    let snap = two_material_snapshot();
    let json = serde_json::to_string(&snap).unwrap();
    assert_eq!(serde_json::from_str::<Snapshot>(&json).unwrap(), snap);
    assert!(json.contains(r#""materials":["h: 25 Hz, all","s: 5 Hz, E+C"]"#));
    // Material 0 is not written; an old recording (no "material", no "materials") loads as material 0.
    let mut old = snap.clone();
    let robot = robot_mut(&mut old, 0);
    robot.materials.clear();
    robot.voxels.iter_mut().for_each(|v| v.material = 0);
    let old_json = serde_json::to_string(&old).unwrap();
    assert!(!old_json.contains("\"material"), "{old_json}");
    assert_eq!(serde_json::from_str::<Snapshot>(&old_json).unwrap(), old);
}

// ---------------------------------------------------------------------------------------------------
// Colouring by other sensors

#[test]
fn velocity_colouring_uses_the_inferred_voxel_side() {
    // x velocity ±1.5·l = ±4.5 m/s maps to the ends of the map even for a shrunk voxel (l from its outline).
    for (vx, expected) in [(4.5, [255.0, 255.0, 0.0]), (-4.5, [255.0, 0.0, 0.0]), (0.0, [0.0, 255.0, 0.0])] {
        let half = L * 0.8f64.sqrt() / 2.0;
        let snap =
            snapshot(0.0, vec![robot(0, vec![voxel([0, 0], Pose::at(20.0, half).area(0.8).velocity(vx, 0.0))], false)]);
        let options = RenderOptions { color_by: SensorKind::XVelocity, world_grid: false, ..RenderOptions::default() };
        let (img, tf) = render_one(&snap, 120, 120, options);
        let (x, y) = tf.to_pixel(Vec2::new(20.3, half + 0.2));
        assert_rgb_near(rgb(&img, x, y), over_white(expected), 2, "x-velocity fill");
    }
}

#[test]
fn custom_area_ratio_range_changes_the_fill() {
    // With the original's [0.5, 1.5], AR 0.75 is u = 0.25 → (0.5, 0.5, 0).
    let snap = single_voxel(0.75);
    let options = RenderOptions { area_ratio_range: [0.5, 1.5], world_grid: false, ..RenderOptions::default() };
    let (img, tf) = render_one(&snap, 120, 120, options);
    let (x, y) = tf.to_pixel(Vec2::new(20.3, 1.5));
    assert_rgb_near(rgb(&img, x, y), over_white([127.5, 127.5, 0.0]), 2, "fill on [0.5, 1.5]");
}

// ---------------------------------------------------------------------------------------------------
// Camera

/// Two robots: robot 0 moves right 100 m in 20 s at constant speed; robot 1 moves left 100 m with
/// constant acceleration (ending at 10 m/s) while hopping 1 m high every 2 s. Snapshots at 60 Hz.
fn moving_sequence() -> Vec<Snapshot> {
    (0..=1200)
        .map(|k| {
            let t = k as f64 / 60.0;
            let x0 = 20.0 + 5.0 * t;
            let x1 = 1500.0 - 100.0 * (t / 20.0).powi(2);
            let hop = (0.5 * std::f64::consts::PI * t).sin().abs();
            let r0 = table_robot(0, Vec2::new(x0, 0.0), false);
            let r1 = lattice_robot(1, Vec2::new(x1, hop), &[[0, 0], [1, 0]], false, |i, p| {
                p.area(1.0 + 0.2 * (t * 3.0 + i as f64).sin())
            });
            snapshot(t, vec![r0, r1])
        })
        .collect()
}

#[test]
fn follow_camera_keeps_a_moving_robot_inside_its_cell() {
    let seq = moving_sequence();
    let fps = 30.0;
    let frames = frame_count_of(&[&seq[..]], fps);
    assert_eq!(frames, 601);
    let mut r = GridRenderer::new(640, 360, 2, 2, RenderOptions::default()).unwrap();
    let (only0, only1) = ([BodyId(0)], [BodyId(1)]);
    for k in 0..frames {
        let snap = &seq[pick_index(&seq, frame_time(k, fps)).unwrap()];
        let cells = [CellFrame::new(snap).bodies(&only0), CellFrame::new(snap).bodies(&only1)];
        r.render(&cells).unwrap();
        for (cell, id) in [(0, 0), (1, 1)] {
            let tf = r.transform(cell).unwrap();
            let rect = r.cell_rect(cell).unwrap();
            for p in robot_of(snap, id).voxels.iter().flat_map(|v| v.masses.iter().flatten()) {
                let (x, y) = tf.to_pixel(*p);
                assert!(
                    x >= 1.0 && y >= 1.0 && x <= f64::from(rect.width) - 1.0 && y <= f64::from(rect.height) - 1.0,
                    "frame {k}: robot {id} corner at pixel ({x:.1}, {y:.1}) outside its {}x{} cell",
                    rect.width,
                    rect.height
                );
            }
        }
        // Pixel check every second: no voxel-outline blue on the border ring of either cell, some inside.
        if k % 30 == 0 {
            let img = pixmap_to_rgba_image(r.pixmap());
            for cell in 0..2 {
                let rect = r.cell_rect(cell).unwrap();
                let (x1, y1) = (rect.x + rect.width - 1, rect.y + rect.height - 1);
                let border = (rect.x..=x1)
                    .flat_map(|x| [(x, rect.y), (x, y1)])
                    .chain((rect.y..=y1).flat_map(|y| [(rect.x, y), (x1, y)]));
                let p = |(x, y): (u32, u32)| {
                    let q = img.get_pixel(x, y);
                    [q[0], q[1], q[2]]
                };
                assert!(border.map(p).all(|q| !is_blue(q)), "frame {k}: robot touches the border of cell {cell}");
                let inside = (rect.x..=x1).flat_map(|x| (rect.y..=y1).map(move |y| (x, y))).filter(|&c| is_blue(p(c)));
                assert!(inside.count() > 50, "frame {k}: robot not visible in cell {cell}");
            }
        }
    }
}

#[test]
fn follow_camera_smoothing_never_jumps() {
    // A robot that teleports 60 m to the right at t = 5 s and back up 20 m at t = 9 s.
    let pos = |t: f64| match t {
        t if t < 5.0 => Vec2::new(20.0, 0.0),
        t if t < 9.0 => Vec2::new(80.0, 0.0),
        _ => Vec2::new(80.0, 20.0),
    };
    let fps = 30.0;
    let aspect = 16.0 / 9.0;
    let mut cam = Camera::follow();
    let mut prev: Option<Aabb> = None;
    for k in 0..=600u64 {
        let t = frame_time(k, fps);
        let bbox = table_robot(0, pos(t), false).bbox;
        let view = cam.update(t, bbox, aspect);
        assert!((view.width() / view.height() - aspect).abs() < 1e-9, "aspect kept at frame {k}");
        let target = cam.target(aspect).unwrap();
        match prev {
            None => assert_eq!(view, target, "the first frame uses the target exactly"),
            Some(p) => {
                // The exponential filter moves a fraction α = 1 − e^(−Δt/τ) of the remaining distance.
                let alpha = 1.0 - (-(1.0 / fps) / FOLLOW_TIME_CONSTANT_S).exp();
                let (dc, remaining) = (view.center() - p.center(), target.center() - p.center());
                assert!(dc.length() <= alpha * remaining.length() + 1e-9, "frame {k}: centre jumped {dc:?}");
                assert!(dc.dot(remaining) >= -1e-12, "frame {k}: camera moved away from its target");
                assert!((view.width() - p.width()).abs() <= alpha * (target.width() - p.width()).abs() + 1e-9);
                // Absolute bound: never more than 4 m per frame even for a 60 m teleport.
                assert!(dc.length() < 4.0, "frame {k}: centre moved {} m", dc.length());
            }
        }
        prev = Some(view);
    }
    // Long after the last jump (and the 3 s window), the camera has converged on the robot: centred
    // across, and vertically with the 1.5× margin (a quarter of the box height) below the box.
    let b = table_robot(0, pos(20.0), false).bbox;
    let v = prev.unwrap();
    assert!((v.center().x - b.center().x).abs() < 0.01, "not converged: {:?} vs {:?}", v.center(), b.center());
    assert!((v.min.y - (b.min.y - 0.25 * b.height())).abs() < 0.01, "bottom {} for box {:?}", v.min.y, b);
}

#[test]
fn camera_window_covers_three_seconds_and_resets_when_time_goes_back() {
    let mut cam = Camera::follow();
    let bbox_at = |x: f64| Aabb { min: Vec2::new(x, 0.0), max: Vec2::new(x + 1.0, 1.0) };
    for k in 0..=60 {
        let t = f64::from(k) * 0.1;
        cam.update(t, bbox_at(t), 1.0);
    }
    // At t = 6 the window holds boxes from t = 3 to 6: x from 3 to 7, enlarged 1.5× → 6 m wide.
    let target = cam.target(1.0).unwrap();
    assert!((target.width() - 6.0).abs() < 1e-9, "width {}", target.width());
    assert!((target.center().x - 5.0).abs() < 1e-9);
    // A new run (time back to 0) is framed exactly, not smoothed from the old run.
    let view = cam.update(0.0, bbox_at(100.0), 1.0);
    assert!((view.center().x - 100.5).abs() < 1e-9 && (view.width() - 1.5).abs() < 1e-9);
}

#[test]
fn fixed_camera_shows_its_rectangle_centred() {
    let snap = single_voxel(1.0);
    let view = Aabb { min: Vec2::new(0.0, -5.0), max: Vec2::new(40.0, 15.0) };
    let mut r = GridRenderer::new(400, 300, 1, 1, RenderOptions::default()).unwrap();
    assert!(r.set_camera(0, Camera::fixed(view)));
    r.render(&[CellFrame::new(&snap)]).unwrap();
    let tf = r.transform(0).unwrap();
    assert_eq!(tf.view, view);
    assert!((tf.scale - 10.0).abs() < 1e-12, "s = min(400/40, 300/20)");
    assert_eq!(tf.to_pixel(Vec2::new(20.0, 5.0)), (200.0, 150.0));
    // y is flipped: higher world points are nearer the top.
    assert!(tf.to_pixel(Vec2::new(20.0, 10.0)).1 < 150.0);
    // The rectangle and no more: below y = -5 m (pixel row 250) the cell is blank, letterboxed, where
    // the ground would otherwise go on; inside the rectangle the ground is drawn.
    let at = |x, y| {
        let p = r.pixmap().pixel(x, y).unwrap().demultiply();
        [p.red(), p.green(), p.blue()]
    };
    assert_eq!(at(200, 270), [255, 255, 255], "letterbox below the rectangle");
    assert_eq!(at(200, 245), [128, 128, 128], "ground inside the rectangle");
}

// ---------------------------------------------------------------------------------------------------
// Tiling, layouts, errors

#[test]
fn cells_tile_the_image_exactly() {
    for (w, h, cols, rows) in [(1280, 720, 3, 3), (1280, 720, 2, 2), (101, 37, 4, 5), (7, 7, 7, 7)] {
        for j in 0..rows {
            let mut x = 0;
            for i in 0..cols {
                let c = cell_rect(w, h, cols, rows, i, j);
                assert_eq!(c.x, x, "cells of a row are contiguous");
                assert_eq!(c.x, i * w / cols);
                assert_eq!(c.y, j * h / rows);
                assert_eq!(c.height, (j + 1) * h / rows - j * h / rows);
                x += c.width;
            }
            assert_eq!(x, w, "a row spans the width");
        }
    }
    let c = cell_rect(1280, 720, 3, 3, 2, 1);
    assert_eq!((c.x, c.y, c.width, c.height), (853, 240, 427, 240));
}

#[test]
fn layouts_parse_and_auto_layout_is_near_square() {
    assert_eq!("2x3".parse::<GridLayout>().unwrap(), GridLayout { rows: 2, cols: 3 });
    assert_eq!(" 1 X 4 ".parse::<GridLayout>().unwrap(), GridLayout { rows: 1, cols: 4 });
    assert_eq!("3×2".parse::<GridLayout>().unwrap(), GridLayout { rows: 3, cols: 2 });
    assert_eq!(GridLayout { rows: 2, cols: 3 }.to_string(), "2x3");
    assert!(matches!("".parse::<GridLayout>(), Err(LayoutParseError::Format(_))));
    assert!(matches!("2x3x4".parse::<GridLayout>(), Err(LayoutParseError::Format(_))));
    assert!(matches!("2".parse::<GridLayout>(), Err(LayoutParseError::Format(_))));
    assert!(matches!("ax2".parse::<GridLayout>(), Err(LayoutParseError::Number { what: "rows", .. })));
    assert!(matches!("2x".parse::<GridLayout>(), Err(LayoutParseError::Number { what: "columns", .. })));
    assert!(matches!("-1x2".parse::<GridLayout>(), Err(LayoutParseError::Number { .. })));
    assert!(matches!("0x2".parse::<GridLayout>(), Err(LayoutParseError::Zero(_))));
    let msg = "2by2".parse::<GridLayout>().unwrap_err().to_string();
    assert!(msg.contains("ROWSxCOLS") && msg.contains("2by2"), "{msg}");

    let expected = [(0, 1, 1), (1, 1, 1), (2, 2, 1), (3, 2, 2), (4, 2, 2), (5, 3, 2), (6, 3, 2), (7, 3, 3), (10, 4, 3)];
    for (n, cols, rows) in expected {
        assert_eq!(auto_layout(n), GridLayout { cols, rows }, "n = {n}");
    }
    for n in 1..200 {
        let l = auto_layout(n);
        assert!(l.cells() >= n && l.cols >= l.rows && l.cols - l.rows <= 1, "n = {n}: {l:?}");
        assert!((l.cols as usize - 1) * (l.cols as usize - 1) < n, "n = {n}: not the smallest square-ish");
    }
}

#[test]
fn bad_sizes_are_errors_not_panics() {
    let o = RenderOptions::default;
    assert_eq!(GridRenderer::new(0, 720, 1, 1, o()).err(), Some(RenderError::EmptyImage { width: 0, height: 720 }));
    assert_eq!(GridRenderer::new(64, 64, 0, 2, o()).err(), Some(RenderError::EmptyGrid { cols: 0, rows: 2 }));
    assert!(matches!(GridRenderer::new(3, 64, 4, 1, o()), Err(RenderError::CellTooSmall { .. })));
    assert!(matches!(GridRenderer::new(u32::MAX, u32::MAX, 1, 1, o()), Err(RenderError::TooLarge { .. })));
    let snap = single_voxel(1.0);
    let mut r = GridRenderer::new(64, 64, 1, 1, o()).unwrap();
    let two = [CellFrame::new(&snap), CellFrame::new(&snap)];
    assert_eq!(r.render(&two).err(), Some(RenderError::TooManyCells { given: 2, capacity: 1 }));
    assert!(render_snapshot(&snap, 0, 10, o()).is_err());
    // Non-finite coordinates never panic: a NaN box (cell 0) falls back to a default view, a NaN vertex
    // (cell 1) drops only its own voxel; unused cells (cell 2) stay white. (No overlay: in a 32 px cell
    // its box would cover the voxel.)
    let plain = RenderOptions { text: false, legend: false, ..RenderOptions::default() };
    let mut r = GridRenderer::new(96, 32, 3, 1, plain).unwrap();
    let mut broken = single_voxel(1.0);
    robot_mut(&mut broken, 0).voxels[0].outline[1] = Vec2::new(f64::NAN, 0.0);
    robot_mut(&mut broken, 0).bbox.max.x = f64::NAN;
    let mut half_broken =
        snapshot(0.0, vec![lattice_robot(0, Vec2::new(20.0, 0.0), &[[0, 0], [1, 0]], false, |_, p| p)]);
    robot_mut(&mut half_broken, 0).voxels[0].outline[2] = Vec2::new(f64::NAN, f64::INFINITY);
    let img = pixmap_to_rgba_image(r.render(&[CellFrame::new(&broken), CellFrame::new(&half_broken)]).unwrap());
    let blue_in = |x0: u32, x1: u32| {
        img.enumerate_pixels().filter(|(x, _, p)| (x0..x1).contains(x) && is_blue([p[0], p[1], p[2]])).count()
    };
    assert!(blue_in(32, 64) > 10, "the intact voxel of cell 1 is drawn");
    assert!(img.enumerate_pixels().filter(|(x, _, _)| *x >= 64).all(|(_, _, p)| p.0 == [255, 255, 255, 255]));

    // Far-away geometry (1e9 m off a fixed view) and a huge label with every layer on: nothing to see, no panic.
    let mut far = snapshot(1e9, vec![table_robot(0, Vec2::new(1e9, -1e9), true)]);
    far.terrain = None;
    far.statics.push(std::sync::Arc::new(vec![Vec2::new(-1e12, 0.0), Vec2::new(1e12, 0.0), Vec2::new(0.0, 1e12)]));
    let mut r = GridRenderer::new(64, 64, 1, 1, RenderOptions::all_layers()).unwrap();
    r.set_camera(0, Camera::fixed(Aabb { min: Vec2::new(0.0, 0.0), max: Vec2::new(f64::MAX, 1.0) }));
    let label = "x".repeat(100_000);
    r.render(&[CellFrame::new(&far).label(&label)]).unwrap();
    let layers_no_overlay = RenderOptions { text: false, legend: false, ..RenderOptions::all_layers() };
    let mut r = GridRenderer::new(64, 64, 1, 1, layers_no_overlay).unwrap();
    r.set_camera(0, Camera::fixed(Aabb { min: Vec2::new(0.0, -20.0), max: Vec2::new(40.0, 20.0) }));
    let img = pixmap_to_rgba_image(r.render(&[CellFrame::new(&far)]).unwrap());
    assert!(img.pixels().all(|p| !is_blue([p[0], p[1], p[2]])), "no voxel is in view");
    // The huge triangle is clipped, not dropped: its edge y = 0 crosses the view, gray above, white below.
    let tf = r.transform(0).unwrap();
    let (x, y) = tf.to_pixel(Vec2::new(18.0, 8.0));
    assert_rgb_near(rgb(&img, x, y), [128, 128, 128], 0, "clipped far polygon");
    let (x, y) = tf.to_pixel(Vec2::new(18.0, -8.0));
    assert_rgb_near(rgb(&img, x, y), [255, 255, 255], 0, "below the far polygon");
    assert_eq!(frame_count([1e300], 30.0), u64::MAX, "saturates instead of overflowing");
}

#[test]
fn nice_grid_spacing_follows_the_spec() {
    for (cam_w, g) in [(6.0, 0.5), (100.0, 10.0), (35.0, 2.0), (14.0, 1.0), (17.0, 2.0), (80.0, 10.0), (0.3, 0.02)] {
        let got = nice_spacing(cam_w).unwrap();
        assert!((got - g).abs() < 1e-12 * g.max(1.0), "cam_w {cam_w}: {got} instead of {g}");
    }
    assert_eq!(nice_spacing(0.0), None);
    assert_eq!(nice_spacing(f64::NAN), None);
}

#[test]
fn pixmap_conversion_demultiplies() {
    let mut pm = tiny_skia::Pixmap::new(2, 1).unwrap();
    pm.fill(tiny_skia::Color::from_rgba8(255, 0, 0, 128));
    let img = pixmap_to_rgba_image(&pm);
    assert_eq!(img.get_pixel(1, 0).0, [255, 0, 0, 128]);
    assert_eq!(pm.pixel(1, 0).unwrap().red(), 128, "tiny-skia stores premultiplied colour");
}

// ---------------------------------------------------------------------------------------------------
// Frame timing

#[test]
fn frame_k_shows_the_first_snapshot_at_or_after_k_over_fps() {
    // 60 Hz snapshots, t = k·dt (not accumulated), rendered at 30 fps: frame k shows snapshot 2k.
    let dt = 1.0 / 60.0;
    let long: Vec<Snapshot> = (0..=600).map(|k| snapshot(k as f64 * dt, vec![])).collect();
    let short: Vec<Snapshot> = (0..=150).map(|k| snapshot(k as f64 * dt, vec![])).collect();
    for k in 0..=300u64 {
        assert_eq!(pick_index(&long, frame_time(k, 30.0)), Some(2 * k as usize), "frame {k}");
    }
    // At 24 fps, frame 1 (t = 0.041666) shows the snapshot at 0.05 (index 3), not the one at 0.0333.
    assert_eq!(pick_index(&long, frame_time(1, 24.0)), Some(3));
    // A run that ended keeps its last snapshot.
    assert_eq!(pick_index(&short, frame_time(200, 30.0)), Some(150));
    assert_eq!(pick_index::<Snapshot>(&[], 0.0), None);
    // The video lasts while some run still has a snapshot at or after k/fps: 10 s at 30 fps → 301 frames.
    assert_eq!(frame_count_of(&[&long[..], &short[..]], 30.0), 301);
    assert_eq!(frame_count([60.0], 30.0), 1801);
    assert_eq!(frame_count([2.5, 1.0], 30.0), 76);
    assert_eq!(frame_count([0.0], 30.0), 1);
    assert_eq!(frame_count([1.0 - 1e-12], 30.0), 31, "within the 1e-9 slack of t = 1 s");
    assert_eq!(frame_count(std::iter::empty(), 30.0), 0);
    assert_eq!(frame_count([5.0], 0.0), 0);

    // The streaming cursor agrees with the slice version and reports when its run has ended.
    let mut cursor = FrameCursor::new();
    let mut source = short.iter();
    for k in 0..=100u64 {
        let t = frame_time(k, 30.0);
        let picked = cursor.advance(t, &mut source).unwrap();
        let expected = &short[pick_index(&short, t).unwrap()];
        assert!(std::ptr::eq(*picked, expected), "frame {k}");
        assert_eq!(cursor.is_live(), k <= 75, "frame {k}");
    }
    assert_eq!(source.len(), 0, "the cursor consumed the source once");
    let mut empty = FrameCursor::<&Snapshot>::new();
    assert!(empty.advance(0.0, &mut std::iter::empty()).is_none() && !empty.is_live());
}

/// A filmstrip from hand-built snapshots: three frames of a moving robot side by side, 8 px of white
/// between them, each frame exactly what the renderer drew on its own.
#[test]
fn filmstrip_golden() {
    let seq = moving_sequence();
    let (w, h) = (320, 180);
    let mut r = GridRenderer::new(w, h, 1, 1, RenderOptions::default()).unwrap();
    let only0 = [BodyId(0)];
    let frames: Vec<tiny_skia::Pixmap> = [0usize, 600, 1200]
        .iter()
        .map(|&k| r.render(&[CellFrame::new(&seq[k]).bodies(&only0)]).unwrap().clone())
        .collect();
    let strip = Filmstrip::compose(&frames.iter().collect::<Vec<_>>()).unwrap();
    assert_eq!((strip.width(), strip.height()), (3 * w + 2 * 8, h));
    let img = pixmap_to_rgba_image(&strip);
    for (i, frame) in frames.iter().enumerate() {
        let x0 = i as u32 * (w + 8);
        let own = pixmap_to_rgba_image(frame);
        assert!((0..h).all(|y| (0..w).all(|x| img.get_pixel(x0 + x, y) == own.get_pixel(x, y))), "frame {i}");
    }
    assert!((0..h).all(|y| img.get_pixel(w + 3, y).0 == [255, 255, 255, 255]), "a white gap between frames");
    assert_golden(SUITE, "filmstrip_moving", &img, GoldenOptions::default());
}

/// A hand-built soft cell: N = 24 bodies on an ellipse (semi-axes 2.2 × 1.8 m) resting on the ground,
/// A/A₀ = 0.9.
fn squashed_cell() -> Snapshot {
    use vsr2d::snapshot::CellSnapshot;
    let (n, a, b, c) = (24, 2.2, 1.8, Vec2::new(30.0, 2.0));
    let bodies: Vec<Vec2> = (0..n)
        .map(|i| {
            let t = 2.0 * std::f64::consts::PI * i as f64 / n as f64;
            Vec2::new(c.x + a * t.sin(), c.y + b * t.cos())
        })
        .collect();
    let r_b = std::f64::consts::PI * 2.0 / n as f64;
    let bbox = Aabb::from_points(bodies.iter().flat_map(|p| [*p - Vec2::new(r_b, r_b), *p + Vec2::new(r_b, r_b)]));
    let cell = CellSnapshot {
        id: BodyId(0),
        label: "cell".into(),
        cell_type: "soft".into(),
        center: c,
        bbox,
        body_radius: r_b,
        bodies,
        area: 0.9 * std::f64::consts::PI * 4.0,
        area_ratio: 0.9,
        pressure_force: 2.2,
        perimeter_error: 0.0,
        velocity: Vec2::ZERO,
        connectors: vec![],
        pairs: vec![],
        muscles: vec![],
        links: vec![],
    };
    let mut snap = snapshot(1.0, vec![]);
    snap.bodies.push(BodySnapshot::Cell(cell));
    snap
}

#[test]
fn cells_golden_squashed_cell() {
    let snap = squashed_cell();
    let (img, _) = render_one(&snap, 320, 240, RenderOptions::default());
    assert_golden(SUITE, "cell_squashed", &img, GoldenOptions::default());
    let plain = RenderOptions { text: false, legend: false, ground_ticks: false, ..RenderOptions::default() };
    let (img, tf) = render_one(&snap, 320, 240, plain);
    // Fill at A/A₀ 0.9 on [0.75, 1.25]: u = 0.3 → (0.4, 0.6, 0) at alpha 0.75, sampled off the tick and the grid lines.
    let (x, y) = tf.to_pixel(Vec2::new(29.25, 1.25));
    assert_rgb_near(rgb(&img, x, y), over_white([102.0, 153.0, 0.0]), 2, "cell fill");
    // The membrane is dark gray (60, 60, 60) at the rightmost body (body N/4).
    let (mx, my) = tf.to_pixel(Vec2::new(32.2, 2.0));
    let darkest = (-2..=2).map(|d| *rgb(&img, mx + f64::from(d), my).iter().max().unwrap()).min().unwrap();
    assert!(darkest <= 80, "membrane not dark: {darkest}");
}
