//! mp4 export and PNG sequences: round trips through the real encoder and decoder, and the failure paths
//! (bad sizes, unwritable outputs, aborted encodes) that must never leave a partial file behind.

use std::f32::consts::PI;
use std::fs;
use std::path::{Path, PathBuf};

use tiny_skia::{Color, FillRule, Paint, PathBuilder, Pixmap, Rect, Transform};
use vsr2d::output::png::PngSequence;
use vsr2d::output::video::{decode_frames, h264_encoder, probe, H264Encoder, Mp4Encoder, VideoError, VideoSettings};
use vsr2d::output::{check_output_writable, FrameError, FrameSink, OutputError};

const W: u32 = 320;
const H: u32 = 240;

fn scratch_dir() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("temp dir under CARGO_TARGET_TMPDIR")
}

/// Names of every entry in `dir`, sorted (hidden temporary files included).
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

/// An opaque test frame: a background whose colour drifts, a disc crossing the frame, a spinning bar and a
/// static stripe pattern (fine detail that chroma subsampling must not destroy).
fn synthetic_frame(i: u32, width: u32, height: u32) -> Pixmap {
    let mut pixmap = Pixmap::new(width, height).unwrap();
    let t = i as f32 / 64.0;
    pixmap.fill(Color::from_rgba8((30.0 + 150.0 * t) as u8, 60, (200.0 - 120.0 * t) as u8, 255));

    let mut paint = Paint { anti_alias: true, ..Paint::default() };
    for k in 0..8 {
        paint.set_color_rgba8(240, 240, 240, 255);
        let x = 8.0 + 10.0 * k as f32;
        pixmap.fill_rect(Rect::from_xywh(x, 8.0, 4.0, 40.0).unwrap(), &paint, Transform::identity(), None);
    }

    let (w, h) = (width as f32, height as f32);
    paint.set_color_rgba8(250, 200, 30, 255);
    let disc = PathBuilder::from_circle(w * (0.15 + 0.7 * t), h * 0.6 + 30.0 * (2.0 * PI * t).sin(), h * 0.18).unwrap();
    pixmap.fill_path(&disc, &paint, FillRule::Winding, Transform::identity(), None);

    paint.set_color_rgba8(20, 200, 90, 255);
    let bar = Rect::from_xywh(-w * 0.3, -h * 0.04, w * 0.6, h * 0.08).unwrap();
    let spin = Transform::from_rotate(360.0 * t).post_translate(w * 0.6, h * 0.3);
    pixmap.fill_rect(bar, &paint, spin, None);
    pixmap
}

fn clip(frames: u32, width: u32, height: u32) -> Vec<Pixmap> {
    (0..frames).map(|i| synthetic_frame(i, width, height)).collect()
}

/// PSNR in dB over the RGB channels (both images opaque, so premultiplied equals straight).
fn psnr(decoded: &image::RgbaImage, source: &Pixmap) -> f64 {
    assert_eq!((decoded.width(), decoded.height()), (source.width(), source.height()));
    let mut squared = 0.0f64;
    for (a, b) in decoded.as_raw().chunks_exact(4).zip(source.data().chunks_exact(4)) {
        for c in 0..3 {
            let d = a[c] as f64 - b[c] as f64;
            squared += d * d;
        }
    }
    let mse = squared / (decoded.width() * decoded.height() * 3) as f64;
    if mse == 0.0 {
        f64::INFINITY
    } else {
        10.0 * (255.0 * 255.0 / mse).log10()
    }
}

/// The encoder can be moved to a writer thread.
#[allow(dead_code)]
fn sinks_are_send(encoder: Mp4Encoder, frames: PngSequence) -> impl Send {
    (encoder, frames)
}

fn encode(path: &Path, frames: &[Pixmap], settings: VideoSettings) {
    let mut encoder = Mp4Encoder::new(path, settings).unwrap();
    for frame in frames {
        encoder.push(frame).unwrap();
    }
    encoder.finish().unwrap();
}

#[test]
fn mp4_round_trip_keeps_size_rate_count_and_pixels() {
    let dir = scratch_dir();
    let path = dir.path().join("clip.mp4");
    let source = clip(64, W, H);

    // Through the trait object, as a caller choosing between sinks would use it.
    let mut sink: Box<dyn FrameSink> = Box::new(Mp4Encoder::new(&path, VideoSettings::new(W, H)).unwrap());
    for frame in &source {
        sink.push(frame).unwrap();
    }
    assert_eq!(sink.frame_count(), 64);
    sink.finish().unwrap();
    assert_eq!(entries(dir.path()), ["clip.mp4"], "only the final file is left");

    let info = probe(&path).unwrap();
    assert_eq!((info.width, info.height), (W, H));
    assert_eq!(info.frame_rate, (30, 1));
    assert_eq!(info.fps, 30.0);
    assert_eq!(info.frames, 64);
    assert_eq!(info.codec, "h264");
    assert_eq!(info.pix_fmt, "yuv420p");
    assert!((info.duration_secs - 64.0 / 30.0).abs() < 1e-3, "duration {}", info.duration_secs);

    let decoded = decode_frames(&path).unwrap();
    assert_eq!(decoded.len(), 64);
    let matching: Vec<f64> = decoded.iter().zip(&source).map(|(d, s)| psnr(d, s)).collect();
    let worst = matching.iter().cloned().fold(f64::INFINITY, f64::min);
    assert!(worst > 30.0, "worst PSNR against the source frame is {worst:.1} dB; per frame: {matching:.1?}");

    // The check has teeth: against a different frame of the clip, every decoded frame scores far lower.
    let best_mismatch = decoded
        .iter()
        .enumerate()
        .map(|(i, d)| psnr(d, &source[(i + 16) % source.len()]))
        .fold(f64::NEG_INFINITY, f64::max);
    assert!(best_mismatch < 22.0, "a wrong frame scored {best_mismatch:.1} dB");
    assert!(worst - best_mismatch > 10.0);
}

#[test]
fn same_input_and_thread_count_give_identical_bytes() {
    let dir = scratch_dir();
    let source = clip(24, W, H);
    let settings = VideoSettings { threads: 1, ..VideoSettings::new(W, H) };
    let (a, b) = (dir.path().join("a.mp4"), dir.path().join("b.mp4"));
    encode(&a, &source, settings.clone());
    encode(&b, &source, settings);
    let (a, b) = (fs::read(a).unwrap(), fs::read(b).unwrap());
    assert!(a.len() > 1000);
    assert!(a == b, "two encodes of the same frames differ ({} vs {} bytes)", a.len(), b.len());
}

#[test]
fn odd_or_zero_size_and_bad_settings_are_refused_before_encoding() {
    let dir = scratch_dir();
    let path = dir.path().join("odd.mp4");
    match Mp4Encoder::new(&path, VideoSettings::new(321, 241)) {
        Err(e @ VideoError::OddSize { .. }) => {
            let VideoError::OddSize { suggested_width, suggested_height, .. } = e else { unreachable!() };
            assert_eq!((suggested_width, suggested_height), (320, 240));
            let message = e.to_string();
            assert!(message.contains("even") && message.contains("320×240"), "{message}");
        }
        other => panic!("expected OddSize, got {other:?}"),
    }
    assert!(matches!(VideoSettings::new(1, 2).validate(), Err(VideoError::OddSize { suggested_width: 2, .. })));
    assert!(matches!(VideoSettings::new(0, 240).validate(), Err(VideoError::ZeroSize { .. })));
    let bad_preset = VideoSettings { preset: "warp".into(), ..VideoSettings::new(W, H) };
    assert!(matches!(bad_preset.validate(), Err(VideoError::UnknownPreset { .. })));
    let bad_crf = VideoSettings { crf: 52, ..VideoSettings::new(W, H) };
    assert!(matches!(bad_crf.validate(), Err(VideoError::CrfOutOfRange { crf: 52 })));
    let bad_tune = VideoSettings { tune: "fastest".into(), ..VideoSettings::new(W, H) };
    assert!(matches!(bad_tune.validate(), Err(VideoError::UnknownTune { .. })));
    let no_fps = VideoSettings { fps: 0, ..VideoSettings::new(W, H) };
    assert!(matches!(no_fps.validate(), Err(VideoError::FpsOutOfRange { fps: 0 })));
    assert!(VideoSettings::default().validate().is_ok());
    assert!(entries(dir.path()).is_empty(), "a refused encoder creates no file");
}

/// OpenH264 (the portable wheel's encoder) has no CRF, presets or tunes: what it cannot honour is refused
/// with the setting named, what it can (the defaults, any crf 1..=51 as a constant QP) passes; x264 takes
/// every valid setting. The source build the tests run links Debian's FFmpeg: x264.
#[test]
fn settings_openh264_cannot_honour_are_refused_by_name() {
    assert_eq!(h264_encoder().unwrap(), H264Encoder::X264, "the source build encodes with x264");
    let defaults = VideoSettings::new(W, H);
    assert!(defaults.validate_for(H264Encoder::OpenH264).is_ok());
    assert!(VideoSettings { crf: 51, ..defaults.clone() }.validate_for(H264Encoder::OpenH264).is_ok());
    for (settings, setting, value) in [
        (VideoSettings { preset: "medium".into(), ..defaults.clone() }, "preset", "medium"),
        (VideoSettings { tune: "none".into(), ..defaults.clone() }, "tune", "none"),
        (VideoSettings { tune: "film".into(), ..defaults.clone() }, "tune", "film"),
        (VideoSettings { crf: 0, ..defaults.clone() }, "crf", "0"),
    ] {
        assert!(settings.validate_for(H264Encoder::X264).is_ok(), "x264 takes {setting} {value}");
        let e = settings.validate_for(H264Encoder::OpenH264).unwrap_err();
        assert!(
            matches!(&e, VideoError::NotWithEncoder { setting: s, value: v, encoder: H264Encoder::OpenH264, .. }
                if *s == setting && v == value),
            "{e:?}"
        );
        assert!(e.is_input(), "a setting the encoder cannot honour is the caller's input");
        let message = e.to_string();
        assert!(message.contains(&format!("{setting} `{value}`")) && message.contains("OpenH264"), "{message}");
    }
    // An invalid setting is refused as such whatever the encoder.
    let bad = VideoSettings { preset: "warp".into(), ..defaults };
    assert!(matches!(bad.validate_for(H264Encoder::OpenH264), Err(VideoError::UnknownPreset { .. })));
}

#[test]
fn unwritable_outputs_are_refused_up_front() {
    let dir = scratch_dir();
    let missing = dir.path().join("no/such/dir/out.mp4");
    assert!(matches!(check_output_writable(&missing), Err(OutputError::DirMissing { .. })));
    let message = check_output_writable(&missing).unwrap_err().to_string();
    assert!(message.contains("does not exist"), "{message}");
    assert!(matches!(
        Mp4Encoder::new(&missing, VideoSettings::new(W, H)),
        Err(VideoError::Output(OutputError::DirMissing { .. }))
    ));

    let file = dir.path().join("plain-file");
    fs::write(&file, b"x").unwrap();
    assert!(matches!(check_output_writable(file.join("out.mp4")), Err(OutputError::NotADirectory { .. })));
    assert!(matches!(check_output_writable(dir.path()), Err(OutputError::IsADirectory { .. })));
    assert!(check_output_writable(dir.path().join("fine.mp4")).is_ok());
    assert!(check_output_writable(&file).is_ok(), "an existing file may be replaced");
    assert_eq!(entries(dir.path()), ["plain-file"], "the write check cleans up after itself");

    // procfs refuses new files even to root, so this case holds wherever the tests run.
    #[cfg(target_os = "linux")]
    if Path::new("/proc/self").exists() {
        let result = check_output_writable("/proc/vsr2d-test.mp4");
        assert!(matches!(result, Err(OutputError::NotWritable { .. })), "{result:?}");
    }

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let locked = dir.path().join("read-only");
        fs::create_dir(&locked).unwrap();
        fs::set_permissions(&locked, fs::Permissions::from_mode(0o555)).unwrap();
        // Root ignores permission bits; only assert where the OS actually refuses the write.
        let os_refuses = fs::write(locked.join("probe"), b"x").is_err();
        let _ = fs::remove_file(locked.join("probe"));
        let result = check_output_writable(locked.join("out.mp4"));
        fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
        if os_refuses {
            assert!(matches!(result, Err(OutputError::NotWritable { .. })), "{result:?}");
        } else {
            assert!(result.is_ok());
        }
    }
}

#[test]
fn failed_or_abandoned_encodes_leave_no_file() {
    let dir = scratch_dir();
    let path = dir.path().join("broken.mp4");
    let good = clip(3, W, H);

    // A wrong-size frame midway aborts the encode and deletes its temporary file at once.
    let mut encoder = Mp4Encoder::new(&path, VideoSettings::new(W, H)).unwrap();
    assert_eq!(entries(dir.path()).len(), 1, "one hidden temporary file while encoding");
    assert!(entries(dir.path())[0].starts_with(".broken.mp4."));
    for frame in &good {
        encoder.push(frame).unwrap();
    }
    let wrong = Pixmap::new(W + 2, H).unwrap();
    match encoder.push(&wrong) {
        Err(VideoError::FrameSize { index: 3, width: W, height: H, got_width, got_height: H }) => {
            assert_eq!(got_width, W + 2)
        }
        other => panic!("expected FrameSize, got {other:?}"),
    }
    assert!(entries(dir.path()).is_empty(), "temporary file removed on error: {:?}", entries(dir.path()));
    assert!(matches!(encoder.push(&good[0]), Err(VideoError::Aborted { .. })));
    assert!(matches!(encoder.finish(), Err(VideoError::Aborted { .. })));
    assert!(!path.exists());
    assert!(entries(dir.path()).is_empty());

    // An existing file under the final name survives a failed encode untouched.
    fs::write(&path, b"previous video").unwrap();
    let mut sink: Box<dyn FrameSink> = Box::new(Mp4Encoder::new(&path, VideoSettings::new(W, H)).unwrap());
    sink.push(&good[0]).unwrap();
    assert!(matches!(sink.push(&wrong), Err(FrameError::Video(VideoError::FrameSize { .. }))));
    assert!(matches!(sink.finish(), Err(FrameError::Video(VideoError::Aborted { .. }))));
    assert_eq!(fs::read(&path).unwrap(), b"previous video");
    fs::remove_file(&path).unwrap();

    // Dropped without finish: nothing is published and the temporary file goes away.
    let mut encoder = Mp4Encoder::new(&path, VideoSettings::new(W, H)).unwrap();
    for frame in &good {
        encoder.push(frame).unwrap();
    }
    drop(encoder);
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));

    // Finishing with no frames is an error, not an empty mp4.
    let encoder = Mp4Encoder::new(&path, VideoSettings::new(W, H)).unwrap();
    assert!(matches!(encoder.finish(), Err(VideoError::NoFrames { .. })));
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn png_sequence_writes_exact_frames() {
    let dir = scratch_dir();
    let frames_dir: PathBuf = dir.path().join("frames");
    let source = clip(5, W, H);

    let mut sink: Box<dyn FrameSink> = Box::new(PngSequence::create(&frames_dir).unwrap());
    for frame in &source {
        sink.push(frame).unwrap();
    }
    assert_eq!(sink.frame_count(), 5);
    sink.finish().unwrap();

    let expected: Vec<String> = (0..5).map(|i| format!("frame_{i:06}.png")).collect();
    assert_eq!(entries(&frames_dir), expected, "exactly the frames, no temporary files");
    for (name, frame) in expected.iter().zip(&source) {
        let decoded = image::open(frames_dir.join(name)).unwrap().to_rgba8();
        assert_eq!((decoded.width(), decoded.height()), (W, H));
        assert!(decoded.as_raw() == frame.data(), "{name} differs from its source");
    }

    // A second run into the same directory must not silently mix with these frames.
    assert!(matches!(PngSequence::create(&frames_dir), Err(FrameError::StaleFrames { count: 5, .. })));
    let mut again = PngSequence::replace(&frames_dir).unwrap();
    FrameSink::push(&mut again, &source[4]).unwrap();
    assert_eq!(entries(&frames_dir), ["frame_000000.png"]);

    // Frames of another size are refused.
    let small = Pixmap::new(W / 2, H / 2).unwrap();
    assert!(matches!(FrameSink::push(&mut again, &small), Err(FrameError::SizeChanged { index: 1, .. })));
}

#[test]
fn write_png_stores_straight_alpha() {
    let dir = scratch_dir();
    let path = dir.path().join("translucent.png");
    let mut pixmap = Pixmap::new(4, 2).unwrap();
    pixmap.fill(Color::from_rgba8(200, 100, 0, 128));
    assert_eq!(&pixmap.data()[..4], [100, 50, 0, 128], "tiny-skia stores premultiplied colour");
    vsr2d::output::png::write_png(&pixmap, &path).unwrap();
    let decoded = image::open(&path).unwrap().to_rgba8();
    let px = decoded.get_pixel(0, 0).0;
    assert_eq!(px[3], 128);
    for (got, want) in px[..3].iter().zip([200u8, 100, 0]) {
        assert!(got.abs_diff(want) <= 1, "{px:?}");
    }
    assert_eq!(entries(dir.path()), ["translucent.png"]);
}
