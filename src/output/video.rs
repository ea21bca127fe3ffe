//! H.264/mp4 export through FFmpeg, plus probing and decoding helpers used by tests and verification.
//!
//! The H.264 encoder is whichever of [`H264Encoder`]'s the linked FFmpeg has, x264 first: a source build
//! on Debian's FFmpeg encodes with x264 (`libx264`); the portable wheel's minimal FFmpeg
//! (scripts/build-ffmpeg.sh) has only OpenH264 (`libopenh264`, BSD-2-Clause), which honours the rate
//! factor as a constant quantiser and has no presets or tunes (see [`VideoSettings::validate_for`]).
//!
//! [`Mp4Encoder`] streams: each pushed frame is converted and handed to the encoder at once, so memory stays flat
//! however long the clip. The file is written under a hidden temporary name next to the destination and
//! renamed on a successful [`Mp4Encoder::finish`]; on error or drop the temporary file is deleted, so a
//! half-written mp4 never appears under the final name.
//!
//! Colour: RGB is converted to limited-range BT.601 Y'CbCr here, in Rust, rather than by swscale, so the
//! bytes sent to x264 do not depend on which SIMD path swscale picks on a given CPU. The stream is tagged
//! accordingly (BT.601 matrix, BT.709 primaries, sRGB transfer, limited range) so players do not guess
//! BT.709 for HD sizes.
//!
//! Reproducibility: the same frames, settings and `threads` give byte-identical files on one machine. x264
//! picks its assembly by CPU, so other CPUs (and other FFmpeg/x264 builds) may give other bytes; compare
//! videos across machines by decoded frames, not by hash.
//!
//! FFmpeg's log level is process-wide; the first use of this module sets it to "error".

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use ffmpeg::codec;
use ffmpeg::format::Pixel;
use ffmpeg::software::scaling;
use ffmpeg::util::frame;
use ffmpeg::{color, encoder, media, Dictionary, Packet, Rational};
use ffmpeg_next as ffmpeg;
use tiny_skia::Pixmap;

use crate::output::atomic;
use crate::output::{FrameError, FrameSink, OutputError};

pub use crate::output::check_output_writable;

/// The H.264 encoders vsr2d drives, in the order it looks for them in the linked FFmpeg.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum H264Encoder {
    /// x264 through FFmpeg's `libx264` (GPL-2.0-or-later): Debian's FFmpeg, what source builds link.
    X264,
    /// OpenH264 through FFmpeg's `libopenh264` (BSD-2-Clause): the portable wheel's minimal FFmpeg.
    OpenH264,
}

impl H264Encoder {
    /// Every encoder, in order of preference.
    pub const ALL: [H264Encoder; 2] = [H264Encoder::X264, H264Encoder::OpenH264];

    /// FFmpeg's name of the encoder.
    pub(crate) fn ffmpeg_name(self) -> &'static str {
        match self {
            H264Encoder::X264 => "libx264",
            H264Encoder::OpenH264 => "libopenh264",
        }
    }

    /// The encoder's own name, as messages give it.
    pub fn name(self) -> &'static str {
        match self {
            H264Encoder::X264 => "x264",
            H264Encoder::OpenH264 => "OpenH264",
        }
    }
}

impl std::fmt::Display for H264Encoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The highest frame rate accepted (keeps `fps` well inside FFmpeg's `i32` rationals).
pub(crate) const MAX_FPS: u32 = 1000;

/// x264's tunes, and `none` for none.
pub const TUNES: [&str; 9] =
    ["none", "film", "animation", "grain", "stillimage", "fastdecode", "zerolatency", "psnr", "ssim"];

/// x264's presets, fastest first.
pub const PRESETS: [&str; 10] =
    ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"];

/// Encoding parameters. Build with `VideoSettings::new(w, h)` or `VideoSettings { width, height,
/// ..Default::default() }`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VideoSettings {
    /// Frame width in pixels; must be even (yuv420p halves the chroma resolution).
    pub width: u32,
    /// Frame height in pixels; must be even.
    pub height: u32,
    /// Frames per second, 1 to 1000 (default 30).
    pub fps: u32,
    /// x264 preset, one of [`PRESETS`] (default [`super::DEFAULT_X264_PRESET`]).
    pub preset: String,
    /// x264 constant rate factor, 0 (lossless) to 51 (worst); default [`super::DEFAULT_X264_CRF`].
    pub crf: u8,
    /// x264 tune, one of [`TUNES`] (default [`super::DEFAULT_X264_TUNE`]).
    pub tune: String,
    /// Encoder threads (default 1; with OpenH264 its slices per frame, all encoded on one thread). The same input and the same thread count give byte-identical files;
    /// 0 means "auto", which depends on the CPU count and so is not reproducible across machines.
    pub threads: u32,
}

impl Default for VideoSettings {
    fn default() -> Self {
        VideoSettings {
            width: 640,
            height: 360,
            fps: 30,
            preset: super::DEFAULT_X264_PRESET.into(),
            crf: super::DEFAULT_X264_CRF,
            tune: super::DEFAULT_X264_TUNE.into(),
            threads: 1,
        }
    }
}

impl VideoSettings {
    /// Default settings at the given size.
    pub fn new(width: u32, height: u32) -> Self {
        VideoSettings { width, height, ..Default::default() }
    }

    /// Checks the settings without touching FFmpeg.
    pub fn validate(&self) -> Result<(), VideoError> {
        let (width, height) = (self.width, self.height);
        if width == 0 || height == 0 {
            return Err(VideoError::ZeroSize { width, height });
        }
        if (width | height) & 1 == 1 {
            // Round down to even, except that 1 becomes 2.
            let even = |v: u32| if v == 1 { 2 } else { v & !1 };
            return Err(VideoError::OddSize {
                width,
                height,
                suggested_width: even(width),
                suggested_height: even(height),
            });
        }
        if !(1..=MAX_FPS).contains(&self.fps) {
            return Err(VideoError::FpsOutOfRange { fps: self.fps });
        }
        if !PRESETS.contains(&self.preset.as_str()) {
            return Err(VideoError::UnknownPreset { preset: self.preset.clone() });
        }
        if self.crf > 51 {
            return Err(VideoError::CrfOutOfRange { crf: self.crf });
        }
        if !TUNES.contains(&self.tune.as_str()) {
            return Err(VideoError::UnknownTune { tune: self.tune.clone() });
        }
        Ok(())
    }

    /// [`validate`](Self::validate), then what `encoder` can honour. x264 takes every valid setting.
    /// OpenH264 has no CRF, presets or tunes: the rate factor becomes a constant quantiser (QP = crf,
    /// so 0, x264's lossless, is refused: OpenH264 has no lossless mode); it has one speed, so a preset
    /// other than the default [`super::DEFAULT_X264_PRESET`] is refused; and it never uses B-frames
    /// or lookahead, which is what the default tune `zerolatency` asks of x264, so any other tune is
    /// refused. Each refusal is a [`VideoError::NotWithEncoder`] naming the setting.
    pub fn validate_for(&self, encoder: H264Encoder) -> Result<(), VideoError> {
        self.validate()?;
        if encoder == H264Encoder::OpenH264 {
            let refuse = |setting: &'static str, value: String, reason: &'static str| {
                Err(VideoError::NotWithEncoder { setting, value, encoder, reason })
            };
            if self.crf == 0 {
                return refuse("crf", "0".into(), "it has no lossless mode; give a crf of 1 to 51 (a constant QP)");
            }
            if self.preset != super::DEFAULT_X264_PRESET {
                return refuse(
                    "preset",
                    self.preset.clone(),
                    "it has no presets (one speed); leave the preset at its default, or use a source build of vsr2d, which encodes with x264",
                );
            }
            if self.tune != super::DEFAULT_X264_TUNE {
                return refuse(
                    "tune",
                    self.tune.clone(),
                    "it has no tunes (it never uses B-frames or lookahead, as the default `zerolatency`); \
                     leave the tune at its default, or use a source build of vsr2d, which encodes with x264",
                );
            }
        }
        Ok(())
    }
}

/// Errors of the video module. Each message says what to change.
#[derive(Debug, thiserror::Error)]
pub enum VideoError {
    #[error("video size {width}×{height} has a zero side; give a positive, even width and height")]
    ZeroSize { width: u32, height: u32 },
    #[error(
        "video size {width}×{height} is odd; H.264 with yuv420p chroma needs an even width and height. \
         Render at {suggested_width}×{suggested_height} instead"
    )]
    OddSize { width: u32, height: u32, suggested_width: u32, suggested_height: u32 },
    #[error("video frame rate {fps} is out of range; give 1 to 1000 frames per second (e.g. 30)")]
    FpsOutOfRange { fps: u32 },
    #[error(
        "unknown x264 preset `{preset}`; use one of ultrafast, superfast, veryfast, faster, fast, medium, \
         slow, slower, veryslow, placebo"
    )]
    UnknownPreset { preset: String },
    #[error("x264 crf {crf} is out of range; use 0 (lossless) to 51 (smallest), 23 is the usual default")]
    CrfOutOfRange { crf: u8 },
    #[error(
        "unknown x264 tune `{tune}`; use one of none, film, animation, grain, stillimage, fastdecode, \
         zerolatency, psnr, ssim"
    )]
    UnknownTune { tune: String },
    #[error("the {setting} `{value}` cannot be honoured by this build's H.264 encoder, {encoder}: {reason}")]
    NotWithEncoder { setting: &'static str, value: String, encoder: H264Encoder, reason: &'static str },
    #[error(
        "this FFmpeg build has no H.264 encoder (neither `libx264` nor `libopenh264`), which mp4 export \
         needs. On Debian/Ubuntu install libavcodec59 (or libavcodec-extra59 / libavcodec-extra), or write \
         a GIF or a PNG sequence instead"
    )]
    EncoderMissing,
    #[error(transparent)]
    Output(#[from] OutputError),
    #[error("could not create a temporary file next to `{path}`: {source}")]
    TempFile {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("FFmpeg failed while {action} `{path}`: {source}")]
    Ffmpeg {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: ffmpeg::Error,
    },
    #[error(
        "frame {index} is {got_width}×{got_height} but the video is {width}×{height}; render every frame at \
         the size given in VideoSettings"
    )]
    FrameSize { index: u64, width: u32, height: u32, got_width: u32, got_height: u32 },
    #[error("no frames were pushed, so no video was written to `{path}`")]
    NoFrames { path: PathBuf },
    #[error("encoding to `{path}` already failed and was discarded; nothing was written, start a new encoder")]
    Aborted { path: PathBuf },
    #[error(
        "could not move the finished video into place at `{path}`: {source}; was the directory removed or \
         made read-only during the run?"
    )]
    Persist {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("`{path}` has no video stream")]
    NoVideoStream { path: PathBuf },
}

impl VideoError {
    /// Bad settings and unusable output paths are the caller's input; a missing codec or an FFmpeg
    /// failure is a failure while running.
    pub fn is_input(&self) -> bool {
        matches!(
            self,
            VideoError::ZeroSize { .. }
                | VideoError::OddSize { .. }
                | VideoError::FpsOutOfRange { .. }
                | VideoError::UnknownPreset { .. }
                | VideoError::CrfOutOfRange { .. }
                | VideoError::UnknownTune { .. }
                | VideoError::NotWithEncoder { .. }
                | VideoError::Output(_)
        )
    }
}

/// Initialises FFmpeg once per process and quiets its logging to errors only (libx264 otherwise prints
/// statistics to stderr). The log level is process-wide.
fn init() -> Result<(), VideoError> {
    static INIT: OnceLock<Result<(), ffmpeg::Error>> = OnceLock::new();
    let result = INIT.get_or_init(|| {
        let result = ffmpeg::init();
        ffmpeg::util::log::set_level(ffmpeg::util::log::Level::Error);
        result
    });
    (*result).map_err(|source| VideoError::Ffmpeg { action: "initialising", path: PathBuf::new(), source })
}

/// The H.264 encoder the linked FFmpeg has (the first of [`H264Encoder::ALL`]) and FFmpeg's handle of it.
fn find_encoder() -> Result<(H264Encoder, ffmpeg::Codec), VideoError> {
    init()?;
    H264Encoder::ALL
        .into_iter()
        .find_map(|e| encoder::find_by_name(e.ffmpeg_name()).map(|codec| (e, codec)))
        .ok_or(VideoError::EncoderMissing)
}

/// The H.264 encoder mp4 files are made with in this build: x264 where the linked FFmpeg has it (source
/// builds on Debian's FFmpeg), else OpenH264 (the portable wheel).
pub fn h264_encoder() -> Result<H264Encoder, VideoError> {
    find_encoder().map(|(e, _)| e)
}

/// One line on what this build makes mp4 files with: the H.264 encoder and the linked libavcodec's
/// version and licence as FFmpeg reports them (`vsr2d --version`, the Python package's `build_info()`),
/// e.g. "mp4: H.264 by OpenH264 through FFmpeg's libavcodec 59.37.100 (LGPL version 2.1 or later)".
pub fn encoder_description() -> String {
    let v = ffmpeg::codec::version();
    let libavcodec = format!("libavcodec {}.{}.{}", v >> 16, (v >> 8) & 0xff, v & 0xff);
    match find_encoder() {
        Ok((encoder, _)) => {
            format!("mp4: H.264 by {encoder} through FFmpeg's {libavcodec} ({})", ffmpeg::codec::license())
        }
        Err(e) => format!("mp4: unavailable ({e})"),
    }
}

/// Everything that can be checked before a simulation starts: the settings, that an H.264 encoder exists
/// and can honour them, and that `path` can be written. Call it first so a bad path does not cost a
/// whole run.
pub fn preflight(path: impl AsRef<Path>, settings: &VideoSettings) -> Result<(), VideoError> {
    settings.validate()?;
    let (encoder, _) = find_encoder()?;
    settings.validate_for(encoder)?;
    check_output_writable(path)?;
    Ok(())
}

/// An encode in progress. Field order matters: the muxer (which holds the open file) drops before
/// `temp`, whose drop deletes the unfinished file.
struct Active {
    ffmpeg: Encoding,
    temp: atomic::TempPath,
}

/// Streams frames into an H.264/mp4 file. See the module docs for the temporary-file behaviour.
///
/// The inherent [`push`](Self::push) and [`finish`](Self::finish) return [`VideoError`]; the
/// [`FrameSink`] implementation wraps them in [`FrameError`]. After any error the encoder is discarded
/// (temporary file deleted) and later calls return [`VideoError::Aborted`].
pub struct Mp4Encoder {
    active: Option<Active>,
    path: PathBuf,
    settings: VideoSettings,
    frames: u64,
}

impl std::fmt::Debug for Mp4Encoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mp4Encoder")
            .field("path", &self.path)
            .field("settings", &self.settings)
            .field("frames", &self.frames)
            .field("active", &self.active.is_some())
            .finish()
    }
}

impl Mp4Encoder {
    /// Opens an encoder that will publish its video at `path` on [`finish`](Self::finish). The container
    /// is always mp4, whatever the extension.
    pub fn new(path: impl AsRef<Path>, settings: VideoSettings) -> Result<Self, VideoError> {
        let path = path.as_ref().to_owned();
        settings.validate()?;
        let (encoder, codec) = find_encoder()?;
        settings.validate_for(encoder)?;
        check_output_writable(&path)?;

        let temp = atomic::staging_temp(&path, ".part")
            .map_err(|source| VideoError::TempFile { path: path.clone(), source })?
            .into_temp_path();
        // If opening fails, `temp` is dropped here, which deletes the file FFmpeg may have started.
        let active = Active { ffmpeg: Self::open(&temp, &path, encoder, codec, &settings)?, temp };
        Ok(Mp4Encoder { active: Some(active), path, settings, frames: 0 })
    }

    fn open(
        temp: &Path,
        path: &Path,
        which: H264Encoder,
        codec: ffmpeg::Codec,
        settings: &VideoSettings,
    ) -> Result<Encoding, VideoError> {
        let ff = |action: &'static str| move |source| VideoError::Ffmpeg { action, path: path.to_owned(), source };
        let mut octx = ffmpeg::format::output_as(temp, "mp4").map_err(ff("creating"))?;
        let global_header = octx.format().flags().contains(ffmpeg::format::Flags::GLOBAL_HEADER);
        let time_base = Rational::new(1, settings.fps as i32);

        let mut enc = codec::context::Context::new_with_codec(codec)
            .encoder()
            .video()
            .map_err(ff("setting up the encoder for"))?;
        enc.set_width(settings.width);
        enc.set_height(settings.height);
        enc.set_format(Pixel::YUV420P);
        enc.set_time_base(time_base);
        enc.set_frame_rate(Some(Rational::new(settings.fps as i32, 1)));
        enc.set_colorspace(color::Space::SMPTE170M);
        enc.set_color_range(color::Range::MPEG);
        enc.set_color_primaries(color::Primaries::BT709);
        enc.set_color_transfer_characteristic(color::TransferCharacteristic::IEC61966_2_1);
        if global_header {
            enc.set_flags(codec::Flags::GLOBAL_HEADER);
        }
        let mut options = Dictionary::new();
        // OpenH264 encodes its slices on one thread: with its own threads the bytes differed from run to
        // run (measured: three runs at 2 threads, three files), and reruns must give the same file.
        let threads = match which {
            H264Encoder::X264 => settings.threads,
            H264Encoder::OpenH264 => 1,
        };
        options.set("threads", &threads.to_string());
        match which {
            H264Encoder::X264 => {
                options.set("preset", &settings.preset);
                options.set("crf", &settings.crf.to_string());
                if settings.tune != "none" {
                    options.set("tune", &settings.tune);
                }
                if let Some(cpu) = x264_cpu_without_avx512() {
                    options.set("x264-params", &format!("asm={cpu}"));
                }
            }
            H264Encoder::OpenH264 => {
                // `validate_for` has checked what OpenH264 cannot honour. The rate factor is a constant
                // quantiser: the quality mode's QP clipped to [crf, crf].
                options.set("rc_mode", "quality");
                options.set("qmin", &settings.crf.to_string());
                options.set("qmax", &settings.crf.to_string());
                // CABAC, hence the High profile (FFmpeg's wrapper otherwise picks Constrained Baseline).
                options.set("coder", "cabac");
                // An IDR frame at least every 250 frames, x264's default keyframe interval (OpenH264's
                // own is only the first frame): players seek without decoding from the start.
                options.set("g", "250");
                // A fixed slice count: left at 0, OpenH264 picks one from the CPU count, and the bytes
                // would differ between machines. 0 threads ("auto") keeps that automatic choice.
                options.set("slices", &settings.threads.to_string());
            }
        }
        let encoder = enc.open_with(options).map_err(ff(match which {
            H264Encoder::X264 => "opening libx264 for",
            H264Encoder::OpenH264 => "opening libopenh264 for",
        }))?;

        let stream_index = {
            let mut stream = octx.add_stream(codec).map_err(ff("adding a video stream to"))?;
            stream.set_parameters(&encoder);
            stream.set_time_base(time_base);
            stream.set_avg_frame_rate(Rational::new(settings.fps as i32, 1));
            stream.index()
        };
        // faststart moves the index to the front so browsers can start playing before the whole file loads.
        let mut header_options = Dictionary::new();
        header_options.set("movflags", "+faststart");
        octx.write_header_with(header_options).map_err(ff("writing the header of"))?;
        // The muxer picks its own stream time base (e.g. 1/15360); packets are rescaled to it.
        let stream_time_base = octx.stream(stream_index).map(|s| s.time_base()).unwrap_or(time_base);

        let yuv = frame::Video::new(Pixel::YUV420P, settings.width, settings.height);
        if yuv.planes() != 3 {
            return Err(VideoError::Ffmpeg {
                action: "allocating a frame for",
                path: path.to_owned(),
                source: ffmpeg::Error::Other { errno: ffmpeg::util::error::ENOMEM },
            });
        }
        Ok(Encoding { octx, encoder, yuv, packet: Packet::empty(), stream_index, stream_time_base })
    }

    /// Where the video appears after a successful [`finish`](Self::finish).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The settings the encoder was opened with.
    pub fn settings(&self) -> &VideoSettings {
        &self.settings
    }

    /// How many frames were accepted so far.
    pub fn frame_count(&self) -> u64 {
        self.frames
    }

    /// Converts `frame` and hands it to x264 at once; finished packets are written to the temporary file.
    pub fn push(&mut self, frame: &Pixmap) -> Result<(), VideoError> {
        let result = self.push_inner(frame);
        if result.is_err() {
            // Discard the encode: deletes the temporary file now rather than at drop.
            self.active = None;
        }
        result
    }

    fn push_inner(&mut self, frame: &Pixmap) -> Result<(), VideoError> {
        let index = self.frames;
        let (width, height) = (self.settings.width, self.settings.height);
        let active = &mut self.active.as_mut().ok_or_else(|| VideoError::Aborted { path: self.path.clone() })?.ffmpeg;
        if (frame.width(), frame.height()) != (width, height) {
            return Err(VideoError::FrameSize {
                index,
                width,
                height,
                got_width: frame.width(),
                got_height: frame.height(),
            });
        }
        rgba_to_yuv420p(frame.data(), width as usize, height as usize, &mut active.yuv);
        active.yuv.set_pts(Some(index as i64));
        let path = &self.path;
        active.encoder.send_frame(&active.yuv).map_err(|source| VideoError::Ffmpeg {
            action: "encoding a frame of",
            path: path.clone(),
            source,
        })?;
        active.drain(path, self.settings.fps)?;
        self.frames += 1;
        Ok(())
    }

    /// Flushes x264, finishes the mp4 and renames it to its final path (replacing any file there).
    pub fn finish(mut self) -> Result<(), VideoError> {
        let path = self.path.clone();
        let Active { ffmpeg: mut active, temp } =
            self.active.take().ok_or_else(|| VideoError::Aborted { path: path.clone() })?;
        if self.frames == 0 {
            return Err(VideoError::NoFrames { path });
        }
        let path_ref = path.as_path();
        let ff = |action: &'static str| move |source| VideoError::Ffmpeg { action, path: path_ref.to_owned(), source };
        active.encoder.send_eof().map_err(ff("flushing the encoder for"))?;
        active.drain(&path, self.settings.fps)?;
        active.octx.write_trailer().map_err(ff("writing the index of"))?;
        // Close the file before publishing it.
        drop(active);
        atomic::publish(temp, &path).map_err(|source| VideoError::Persist { path: path.clone(), source })
    }
}

/// The CPU features to give x264 so that it stays off its AVX-512 code, or `None` to leave x264's own
/// detection alone (no AVX-512 on this CPU, or not x86-64).
///
/// Why: with AVX-512, the x264 in Debian 12 (core 164) produced different bytes for the same input and
/// `threads=1` depending on leftover heap contents (reproduced with `MALLOC_PERTURB_`), i.e. some AVX-512
/// routine reads uninitialised memory. With AVX-512 masked the output no longer depends on the heap. Only
/// features the CPU reports are listed, so x264 can never be handed an instruction set the CPU lacks.
fn x264_cpu_without_avx512() -> Option<String> {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        if !has!("avx512f") {
            return None;
        }
        // x264's names (common/cpu.c); x264 adds SSE2Fast itself when SSSE3 is present.
        let features = [
            (true, "MMX2"), // part of the x86-64 baseline
            (has!("sse"), "SSE"),
            (has!("sse2"), "SSE2"),
            (has!("sse3"), "SSE3"),
            (has!("ssse3"), "SSSE3"),
            (has!("sse4.1"), "SSE4.1"),
            (has!("sse4.2"), "SSE4.2"),
            (has!("avx"), "AVX"),
            (has!("fma"), "FMA3"),
            (has!("lzcnt"), "LZCNT"),
            (has!("bmi1"), "BMI1"),
            (has!("bmi2"), "BMI2"),
            (has!("avx2"), "AVX2"),
        ];
        let names: Vec<&str> = features.iter().filter(|(present, _)| *present).map(|(_, name)| *name).collect();
        Some(names.join(","))
    }
    #[cfg(not(target_arch = "x86_64"))]
    None
}

/// The FFmpeg side of an encode: muxer, x264 and reusable frame and packet.
struct Encoding {
    octx: ffmpeg::format::context::Output,
    encoder: encoder::video::Encoder,
    yuv: frame::Video,
    packet: Packet,
    stream_index: usize,
    stream_time_base: Rational,
}

impl Encoding {
    /// Writes every packet x264 has ready.
    fn drain(&mut self, path: &Path, fps: u32) -> Result<(), VideoError> {
        let encoder_time_base = Rational::new(1, fps as i32);
        loop {
            match self.encoder.receive_packet(&mut self.packet) {
                Ok(()) => {}
                Err(ffmpeg::Error::Other { errno: ffmpeg::util::error::EAGAIN }) | Err(ffmpeg::Error::Eof) => {
                    return Ok(())
                }
                Err(source) => return Err(VideoError::Ffmpeg { action: "encoding", path: path.to_owned(), source }),
            }
            self.packet.set_stream(self.stream_index);
            // x264 leaves durations at 0; without one the last frame gets no duration and ffprobe reports
            // a frame rate like 3600/119.
            if self.packet.duration() == 0 {
                self.packet.set_duration(1);
            }
            self.packet.rescale_ts(encoder_time_base, self.stream_time_base);
            self.packet.write_interleaved(&mut self.octx).map_err(|source| VideoError::Ffmpeg {
                action: "writing",
                path: path.to_owned(),
                source,
            })?;
        }
    }
}

impl FrameSink for Mp4Encoder {
    fn push(&mut self, frame: &Pixmap) -> Result<(), FrameError> {
        Mp4Encoder::push(self, frame).map_err(FrameError::from)
    }

    fn frame_count(&self) -> u64 {
        self.frames
    }

    fn finish(self: Box<Self>) -> Result<(), FrameError> {
        Mp4Encoder::finish(*self).map_err(FrameError::from)
    }
}

/// 16.16 fixed point, rounded to nearest.
const fn fixed(x: f64) -> i32 {
    let scaled = x * 65536.0;
    if scaled >= 0.0 {
        (scaled + 0.5) as i32
    } else {
        (scaled - 0.5) as i32
    }
}

// Limited-range BT.601 (Kr = 0.299, Kb = 0.114) for 8-bit R'G'B' in 0..=255:
// Y = 16 + 219/255·(Kr R + Kg G + Kb B), Cb = 128 + 224/255·(B − Y')/(2(1−Kb)), Cr likewise with R.
const Y_R: i32 = fixed(219.0 / 255.0 * 0.299);
const Y_G: i32 = fixed(219.0 / 255.0 * 0.587);
const Y_B: i32 = fixed(219.0 / 255.0 * 0.114);
const CB_R: i32 = fixed(-224.0 / 255.0 * 0.299 / 1.772);
const CB_G: i32 = fixed(-224.0 / 255.0 * 0.587 / 1.772);
const CB_B: i32 = fixed(224.0 / 255.0 * 0.5);
const CR_R: i32 = fixed(224.0 / 255.0 * 0.5);
const CR_G: i32 = fixed(-224.0 / 255.0 * 0.587 / 1.402);
const CR_B: i32 = fixed(-224.0 / 255.0 * 0.114 / 1.402);

/// Converts tightly packed RGBA rows (tiny-skia's layout, even width and height) into the planes of a
/// YUV420P frame, writing each row at the frame's own stride. Alpha is ignored: with premultiplied input
/// that is compositing over black. Chroma is the mean of each 2×2 block.
fn rgba_to_yuv420p(rgba: &[u8], width: usize, height: usize, out: &mut frame::Video) {
    let (y_stride, cb_stride, cr_stride) = (out.stride(0), out.stride(1), out.stride(2));
    let row_bytes = width * 4;
    let mut cb_row = vec![0u8; width / 2];
    let mut cr_row = vec![0u8; width / 2];
    for (pair, rows) in rgba.chunks_exact(2 * row_bytes).take(height / 2).enumerate() {
        let (top, bottom) = rows.split_at(row_bytes);
        let y_rows = &mut out.data_mut(0)[2 * pair * y_stride..];
        let (y_top, y_bottom) = y_rows.split_at_mut(y_stride);
        luma_row(top, &mut y_top[..width]);
        luma_row(bottom, &mut y_bottom[..width]);

        let blocks = top.chunks_exact(8).zip(bottom.chunks_exact(8));
        for ((a, b), (cb, cr)) in blocks.zip(cb_row.iter_mut().zip(cr_row.iter_mut())) {
            // 4× the block mean of each channel; the extra factor is shifted out below.
            let sum = |c: usize| (a[c] as i32) + (a[4 + c] as i32) + (b[c] as i32) + (b[4 + c] as i32);
            let (r, g, b) = (sum(0), sum(1), sum(2));
            *cb = (128 + ((CB_R * r + CB_G * g + CB_B * b + (1 << 17)) >> 18)).clamp(16, 240) as u8;
            *cr = (128 + ((CR_R * r + CR_G * g + CR_B * b + (1 << 17)) >> 18)).clamp(16, 240) as u8;
        }
        out.data_mut(1)[pair * cb_stride..][..width / 2].copy_from_slice(&cb_row);
        out.data_mut(2)[pair * cr_stride..][..width / 2].copy_from_slice(&cr_row);
    }
}

fn luma_row(rgba: &[u8], y: &mut [u8]) {
    for (px, out) in rgba.chunks_exact(4).zip(y.iter_mut()) {
        let v = 16 + ((Y_R * px[0] as i32 + Y_G * px[1] as i32 + Y_B * px[2] as i32 + (1 << 15)) >> 16);
        *out = v.clamp(16, 235) as u8;
    }
}

/// What [`probe`] found in a video file.
#[derive(Debug, Clone, PartialEq)]
pub struct VideoInfo {
    pub width: u32,
    pub height: u32,
    /// Average frame rate as a fraction (numerator, denominator), e.g. (30, 1).
    pub frame_rate: (i32, i32),
    /// `frame_rate` as a number.
    pub fps: f64,
    /// Number of video packets in the stream (one per frame for H.264), counted by demuxing.
    pub frames: u64,
    /// Stream duration in seconds (0 if the container does not say).
    pub duration_secs: f64,
    /// Codec name as FFmpeg spells it, e.g. `h264`.
    pub codec: String,
    /// Pixel format name as FFmpeg spells it, e.g. `yuv420p`.
    pub pix_fmt: String,
}

fn open_input(path: &Path) -> Result<(ffmpeg::format::context::Input, usize), VideoError> {
    init()?;
    let ictx = ffmpeg::format::input(path).map_err(|source| VideoError::Ffmpeg {
        action: "opening",
        path: path.to_owned(),
        source,
    })?;
    let index = ictx
        .streams()
        .best(media::Type::Video)
        .map(|s| s.index())
        .ok_or_else(|| VideoError::NoVideoStream { path: path.to_owned() })?;
    Ok((ictx, index))
}

fn open_decoder(
    ictx: &ffmpeg::format::context::Input,
    index: usize,
    path: &Path,
) -> Result<ffmpeg::decoder::Video, VideoError> {
    let ff = |action: &'static str| move |source| VideoError::Ffmpeg { action, path: path.to_owned(), source };
    let stream = ictx.stream(index).ok_or_else(|| VideoError::NoVideoStream { path: path.to_owned() })?;
    codec::context::Context::from_parameters(stream.parameters())
        .map_err(ff("reading the stream parameters of"))?
        .decoder()
        .video()
        .map_err(ff("opening a decoder for"))
}

/// Reads a video's size, frame rate, frame count, codec and pixel format.
pub fn probe(path: impl AsRef<Path>) -> Result<VideoInfo, VideoError> {
    let path = path.as_ref();
    let (mut ictx, index) = open_input(path)?;
    let decoder = open_decoder(&ictx, index, path)?;
    let (frame_rate, duration_secs) = {
        let stream = ictx.stream(index).ok_or_else(|| VideoError::NoVideoStream { path: path.to_owned() })?;
        let rate = stream.avg_frame_rate();
        let duration = stream.duration().max(0) as f64 * f64::from(stream.time_base());
        ((rate.numerator(), rate.denominator()), duration)
    };
    let codec = decoder.id().name().to_owned();
    let pix_fmt = decoder.format().descriptor().map(|d| d.name().to_owned()).unwrap_or_else(|| "none".into());
    let (width, height) = (decoder.width(), decoder.height());

    let mut frames = 0;
    while let Some(packet) = read_packet(&mut ictx, path)? {
        if packet.stream() == index {
            frames += 1;
        }
    }
    let fps = if frame_rate.1 == 0 { 0.0 } else { f64::from(frame_rate.0) / f64::from(frame_rate.1) };
    Ok(VideoInfo { width, height, frame_rate, fps, frames, duration_secs, codec, pix_fmt })
}

/// Reads the next packet, `None` at the end of the file. Unlike `Input::packets`, I/O errors surface.
/// Each call returns a fresh packet: `av_read_frame` overwrites its argument without releasing it.
fn read_packet(ictx: &mut ffmpeg::format::context::Input, path: &Path) -> Result<Option<Packet>, VideoError> {
    let mut packet = Packet::empty();
    match packet.read(ictx) {
        Ok(()) => Ok(Some(packet)),
        Err(ffmpeg::Error::Eof) => Ok(None),
        Err(source) => Err(VideoError::Ffmpeg { action: "reading", path: path.to_owned(), source }),
    }
}

/// Decodes every frame of the best video stream to straight RGBA, calling `on_frame(index, image)` in
/// display order. Conversion assumes BT.601 limited range, which is what [`Mp4Encoder`] writes.
pub fn decode_frames_with(
    path: impl AsRef<Path>,
    mut on_frame: impl FnMut(u64, image::RgbaImage),
) -> Result<u64, VideoError> {
    let path = path.as_ref();
    let (mut ictx, index) = open_input(path)?;
    let mut decoder = open_decoder(&ictx, index, path)?;
    let mut converter = RgbaConverter::default();
    let mut decoded = frame::Video::empty();
    let mut count = 0u64;
    let ff = |action: &'static str| move |source| VideoError::Ffmpeg { action, path: path.to_owned(), source };

    let mut receive = |decoder: &mut ffmpeg::decoder::Video| -> Result<(), VideoError> {
        loop {
            match decoder.receive_frame(&mut decoded) {
                Ok(()) => {}
                Err(ffmpeg::Error::Other { errno: ffmpeg::util::error::EAGAIN }) | Err(ffmpeg::Error::Eof) => {
                    return Ok(())
                }
                Err(source) => return Err(ff("decoding")(source)),
            }
            let image = converter.convert(&decoded).map_err(ff("converting a frame of"))?;
            on_frame(count, image);
            count += 1;
        }
    };

    while let Some(packet) = read_packet(&mut ictx, path)? {
        if packet.stream() == index {
            decoder.send_packet(&packet).map_err(ff("decoding"))?;
            receive(&mut decoder)?;
        }
    }
    decoder.send_eof().map_err(ff("flushing the decoder for"))?;
    receive(&mut decoder)?;
    Ok(count)
}

/// Decodes every frame to straight RGBA (see [`decode_frames_with`]). Holds the whole clip in memory; meant
/// for tests and short clips.
pub fn decode_frames(path: impl AsRef<Path>) -> Result<Vec<image::RgbaImage>, VideoError> {
    let mut frames = Vec::new();
    decode_frames_with(path, |_, image| frames.push(image))?;
    Ok(frames)
}

/// A swscale context to RGBA, rebuilt whenever the decoded format or size changes.
#[derive(Default)]
struct RgbaConverter {
    scaler: Option<(scaling::Context, Pixel, u32, u32)>,
    rgba: Option<frame::Video>,
}

impl RgbaConverter {
    fn convert(&mut self, src: &frame::Video) -> Result<image::RgbaImage, ffmpeg::Error> {
        let (format, width, height) = (src.format(), src.width(), src.height());
        let stale = !matches!(&self.scaler, Some((_, f, w, h)) if (*f, *w, *h) == (format, width, height));
        if stale {
            // Bicubic, full-resolution chroma interpolation, accurate rounding and bit-exact C code: the
            // default fast path repeats chroma samples (about 2 dB worse on coloured edges) and its output
            // depends on the CPU's SIMD path.
            let flags = scaling::Flags::BICUBIC
                | scaling::Flags::FULL_CHR_H_INT
                | scaling::Flags::ACCURATE_RND
                | scaling::Flags::BITEXACT;
            let scaler = scaling::Context::get(format, width, height, Pixel::RGBA, width, height, flags)?;
            self.scaler = Some((scaler, format, width, height));
            self.rgba = Some(frame::Video::empty());
        }
        let (Some((scaler, ..)), Some(rgba)) = (self.scaler.as_mut(), self.rgba.as_mut()) else {
            return Err(ffmpeg::Error::Bug);
        };
        scaler.run(src, rgba)?;
        // swscale pads rows to its alignment: copy `width * 4` bytes out of every `stride` bytes.
        let row_bytes = width as usize * 4;
        if rgba.planes() == 0 || rgba.stride(0) < row_bytes {
            // The RGBA buffer could not be allocated.
            return Err(ffmpeg::Error::Other { errno: ffmpeg::util::error::ENOMEM });
        }
        let stride = rgba.stride(0);
        let mut pixels = Vec::with_capacity(row_bytes * height as usize);
        for row in rgba.data(0).chunks(stride).take(height as usize) {
            pixels.extend_from_slice(&row[..row_bytes]);
        }
        image::RgbaImage::from_raw(width, height, pixels).ok_or(ffmpeg::Error::Bug)
    }
}
