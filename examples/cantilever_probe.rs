use vsr2d::cantilever::experiment::{run, BeamSetup};
use vsr2d::material::Preset;
use vsr2d::scaffolding::Scaffolding;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let iters: usize = args.get(1).map(|s| s.parse().unwrap()).unwrap_or(4);
    for (w, h) in [(5, 2), (10, 2), (10, 4)] {
        for fs in [4.0, 8.0, 30.0] {
            let mat = BeamSetup::material(Preset::Default, fs, Scaffolding::ALL);
            let mut s = BeamSetup::static_case(w, h, mat, 30.0, 60.0, 1.0 / 60.0);
            s.solver_iterations = iters;
            let t = std::time::Instant::now();
            let st = run(&s).unwrap();
            let mut d = BeamSetup::dynamic_case(w, h, mat, 800.0, 15.0, 1.0 / 60.0);
            d.solver_iterations = iters;
            let dy = run(&d).unwrap();
            let peak = dy.iter().cloned().fold(0.0f64, |a, b| a.min(b));
            println!(
                "{w}x{h} fs {fs:>4} it {iters}: static {:.6} (at 30s {:.6})  dyn peak {:.5} final {:.5} [{:.2}s]",
                st.last().unwrap(),
                st[1800],
                peak,
                dy.last().unwrap(),
                t.elapsed().as_secs_f64()
            );
        }
    }
}
