//! Drawing and encoding on two threads: the caller draws frames while a second thread pushes the
//! finished ones into a [`FrameSink`], through a bounded queue (so memory stays at a few frames however
//! long the clip, and a slow encoder holds the drawing back rather than piling frames up).
//!
//! The sink sees the same frames in the same order whether the stages overlap or not, so its output is
//! the same bytes ([`Overlap::Serial`] exists to show it and to debug). A failing sink stops the run:
//! the drawing side sees the queue closed at its next frame and the sink's error is returned.
//!
//! Channel: `std::sync::mpsc::sync_channel` (bounded, one producer, one consumer; the standard library's
//! channel is crossbeam's algorithm since Rust 1.67), so no dependency is added. Finished frames travel
//! back on a second channel and are drawn into again, so steady state allocates nothing.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;

use tiny_skia::Pixmap;

use super::{FrameError, FrameSink};

/// Frames waiting between drawing and encoding. Two absorb the frame-to-frame variation of either
/// stage (a frame where the cameras re-frame, an x264 frame that costs more); more only add memory
/// (4 MB per frame at 1280×720).
pub const FRAME_QUEUE: usize = 2;

/// Whether drawing and encoding overlap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Overlap {
    /// Draw and encode on two threads, [`FRAME_QUEUE`] frames between them.
    #[default]
    Threaded,
    /// Draw a frame, encode it, draw the next: one thread (the same output, slower).
    Serial,
}

/// Why a pipelined run stopped: the drawing side's error or the sink's.
#[derive(Debug)]
pub enum PipelineError<E> {
    Draw(E),
    Sink(FrameError),
}

/// Runs `draw` until it reports the end, pushing every frame into `sink`; returns the frames pushed.
///
/// `draw(buffer)` puts the next frame into `buffer` (a `width` × `height` pixmap, possibly holding an
/// older frame; it may also swap in a pixmap of the same size) and returns `Ok(true)`, or `Ok(false)`
/// when there are no more frames. `progress` is called on the calling thread with the number of frames
/// the sink has taken so far. The caller finishes the sink.
pub fn run_pipeline<E>(
    sink: &mut (dyn FrameSink + Send),
    (width, height): (u32, u32),
    overlap: Overlap,
    mut draw: impl FnMut(&mut Pixmap) -> Result<bool, E>,
    progress: &mut dyn FnMut(u64),
) -> Result<u64, PipelineError<E>> {
    let alloc = || {
        Pixmap::new(width, height).ok_or_else(|| {
            PipelineError::Sink(FrameError::Encode {
                path: "frame buffer".into(),
                source: Box::new(std::io::Error::other(format!("cannot allocate a {width}×{height} frame"))),
            })
        })
    };
    let mut pushed = 0;
    if overlap == Overlap::Serial {
        let mut frame = alloc()?;
        while draw(&mut frame).map_err(PipelineError::Draw)? {
            sink.push(&frame).map_err(PipelineError::Sink)?;
            pushed += 1;
            progress(pushed);
        }
        return Ok(pushed);
    }

    let encoded = AtomicU64::new(0);
    std::thread::scope(|scope| {
        let (to_sink, queue) = mpsc::sync_channel::<Pixmap>(FRAME_QUEUE);
        let (recycle, spare) = mpsc::channel::<Pixmap>();
        let encoded = &encoded;
        let encoder = scope.spawn(move || -> Result<(), FrameError> {
            for frame in queue {
                sink.push(&frame)?;
                encoded.fetch_add(1, Ordering::Release);
                // The drawing side may have finished and gone: then the buffer is simply dropped.
                let _ = recycle.send(frame);
            }
            Ok(())
        });
        let mut drawn = Ok(());
        loop {
            let mut frame = match spare.try_recv() {
                Ok(frame) => frame,
                Err(_) => match alloc() {
                    Ok(frame) => frame,
                    Err(e) => {
                        drawn = Err(e);
                        break;
                    }
                },
            };
            match draw(&mut frame) {
                Ok(true) => {}
                Ok(false) => break,
                Err(e) => {
                    drawn = Err(PipelineError::Draw(e));
                    break;
                }
            }
            // A closed queue means the sink failed: its error is returned below.
            if to_sink.send(frame).is_err() {
                break;
            }
            progress(encoded.load(Ordering::Acquire));
        }
        drop(to_sink);
        let sunk = match encoder.join() {
            Ok(result) => result,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        // The sink's error first: when it failed, drawing stopped because of it.
        sunk.map_err(PipelineError::Sink)?;
        drawn?;
        pushed = encoded.load(Ordering::Acquire);
        progress(pushed);
        Ok(pushed)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records a hash of every frame it takes; fails at frame `fail_at`.
    #[derive(Default)]
    struct Recorder {
        frames: Vec<u8>,
        fail_at: Option<u64>,
    }

    impl FrameSink for Recorder {
        fn push(&mut self, frame: &Pixmap) -> Result<(), FrameError> {
            if self.fail_at == Some(self.frames.len() as u64) {
                return Err(FrameError::Io { path: "disk".into(), source: std::io::Error::other("disk full") });
            }
            self.frames.push(frame.data()[0]);
            Ok(())
        }
        fn frame_count(&self) -> u64 {
            self.frames.len() as u64
        }
        fn finish(self: Box<Self>) -> Result<(), FrameError> {
            Ok(())
        }
    }

    /// Frame k is filled with the byte k.
    fn counter(n: u8, drawn: &mut u8) -> impl FnMut(&mut Pixmap) -> Result<bool, String> + '_ {
        move |frame: &mut Pixmap| {
            if *drawn == n {
                return Ok(false);
            }
            frame.data_mut().fill(*drawn);
            *drawn += 1;
            Ok(true)
        }
    }

    #[test]
    fn both_paths_push_every_frame_in_order() {
        for overlap in [Overlap::Serial, Overlap::Threaded] {
            let mut sink = Recorder::default();
            let (mut drawn, mut seen) = (0, Vec::new());
            let pushed =
                run_pipeline(&mut sink, (4, 3), overlap, counter(50, &mut drawn), &mut |n| seen.push(n)).unwrap();
            assert_eq!(pushed, 50);
            assert_eq!(sink.frames, (0..50).collect::<Vec<u8>>(), "{overlap:?}");
            assert_eq!(seen.last(), Some(&50), "{overlap:?}: progress ends at the frame count");
            assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{overlap:?}: progress never goes back");
        }
    }

    #[test]
    fn a_failing_sink_stops_the_drawing_with_its_error() {
        for overlap in [Overlap::Serial, Overlap::Threaded] {
            let mut sink = Recorder { fail_at: Some(5), ..Recorder::default() };
            let mut drawn = 0;
            let result = run_pipeline(&mut sink, (4, 3), overlap, counter(200, &mut drawn), &mut |_| {});
            match result {
                Err(PipelineError::Sink(FrameError::Io { source, .. })) => assert_eq!(source.to_string(), "disk full"),
                other => panic!("{overlap:?}: expected the sink's error, got {other:?}"),
            }
            assert_eq!(sink.frames.len(), 5);
            // Frame 5 failed; at most the queue and the frame being drawn are beyond it.
            assert!(usize::from(drawn) <= 6 + FRAME_QUEUE + 1, "{overlap:?}: drew {drawn} frames after the failure");
        }
    }

    #[test]
    fn a_drawing_error_is_returned_after_the_frames_before_it_are_pushed() {
        let mut sink = Recorder::default();
        let mut k = 0;
        let draw = |frame: &mut Pixmap| {
            if k == 7 {
                return Err("simulation diverged".to_string());
            }
            frame.data_mut().fill(k);
            k += 1;
            Ok(true)
        };
        let result = run_pipeline(&mut sink, (4, 3), Overlap::Threaded, draw, &mut |_| {});
        assert!(matches!(result, Err(PipelineError::Draw(ref e)) if e == "simulation diverged"), "{result:?}");
        assert_eq!(sink.frames, (0..7).collect::<Vec<u8>>());
    }
}
