//! The viewer's compact numbers: every series of a page is a *channel* of `frames × columns` values,
//! rounded to a quantum, stored column by column as differences from the frame before (or, when smaller,
//! differences of those differences), each a zigzag LEB128 varint; all channels are deflated together
//! (zlib) and written as base64. The page's script undoes the same steps (`decodeChannels` in
//! templates/viewer.html) with the browser's own `DecompressionStream`.

use serde::Serialize;

/// Quantised values are clamped to ±2⁴⁰ quanta, and a non-finite value is stored as [`NAN_CODE`], so
/// that second differences stay below 2⁵³, where the script's numbers are still exact integers.
const LIMIT: i64 = 1 << 40;
/// The quantised code of NaN (and ±∞): one past the clamp range.
const NAN_CODE: i64 = LIMIT + 1;

/// Where one channel lies in the decompressed blob, and how to read it back.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ChannelInfo {
    /// Byte offset and length of its varints in the decompressed blob.
    pub offset: usize,
    pub len: usize,
    pub frames: usize,
    pub cols: usize,
    pub quantum: f64,
    /// 1: first differences along time; 2: second differences.
    pub order: u8,
}

/// Collects channels row by row (one frame at a time) and encodes them.
#[derive(Debug, Default)]
pub(crate) struct Blob {
    bytes: Vec<u8>,
    pub channels: Vec<ChannelInfo>,
}

/// A channel being filled, one frame (row) at a time.
#[derive(Debug, Clone)]
pub struct Channel {
    cols: usize,
    quantum: f64,
    /// Quantised values, frame-major.
    codes: Vec<i64>,
}

impl Channel {
    pub fn new(cols: usize, quantum: f64) -> Channel {
        Channel { cols, quantum, codes: Vec::new() }
    }

    pub fn cols(&self) -> usize {
        self.cols
    }

    pub fn frames(&self) -> usize {
        self.codes.len().checked_div(self.cols).unwrap_or(0)
    }

    /// Appends one frame's values; missing columns are NaN, extra ones are dropped.
    pub(crate) fn push_row(&mut self, row: impl IntoIterator<Item = f64>) {
        let start = self.codes.len();
        let q = self.quantum;
        self.codes.extend(row.into_iter().take(self.cols).map(|v| quantise(v, q)));
        self.codes.resize(start + self.cols, NAN_CODE);
    }

    /// The value a page reads back at (frame, column).
    pub fn decoded(&self, frame: usize, col: usize) -> f64 {
        dequantise(self.codes[frame * self.cols + col], self.quantum)
    }
}

fn quantise(v: f64, q: f64) -> i64 {
    if !v.is_finite() {
        return NAN_CODE;
    }
    ((v / q).round()).clamp(-(LIMIT as f64), LIMIT as f64) as i64
}

fn dequantise(code: i64, q: f64) -> f64 {
    if code == NAN_CODE {
        f64::NAN
    } else {
        code as f64 * q
    }
}

fn push_varint(out: &mut Vec<u8>, d: i64) {
    let mut z = if d >= 0 { (d as u64) << 1 } else { ((-(d + 1)) as u64) << 1 | 1 };
    loop {
        let b = (z & 0x7f) as u8;
        z >>= 7;
        if z == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// The varints of one column of `codes` (frame-major, `cols` wide) as differences of order `order`.
fn encode_column(codes: &[i64], cols: usize, col: usize, order: u8, out: &mut Vec<u8>) {
    let (mut prev, mut prev_delta) = (0i64, 0i64);
    for code in codes.iter().skip(col).step_by(cols) {
        let delta = code - prev;
        push_varint(out, if order == 2 { delta - prev_delta } else { delta });
        prev = *code;
        prev_delta = delta;
    }
}

impl Blob {
    /// Adds a channel; returns its index (what the page's data names it by).
    pub fn add(&mut self, channel: &Channel) -> usize {
        let encode = |order: u8| {
            let mut out = Vec::with_capacity(channel.codes.len());
            for col in 0..channel.cols {
                encode_column(&channel.codes, channel.cols, col, order, &mut out);
            }
            out
        };
        let (first, second) = (encode(1), encode(2));
        let (order, bytes) = if second.len() < first.len() { (2, second) } else { (1, first) };
        self.channels.push(ChannelInfo {
            offset: self.bytes.len(),
            len: bytes.len(),
            frames: channel.frames(),
            cols: channel.cols,
            quantum: channel.quantum,
            order,
        });
        self.bytes.extend_from_slice(&bytes);
        self.channels.len() - 1
    }

    /// Bytes before compression.
    pub(crate) fn raw_len(&self) -> usize {
        self.bytes.len()
    }

    /// The zlib stream of all channels, as base64.
    pub(crate) fn to_base64(&self) -> String {
        // Level 9: flate2's `Compression::best()`, which wrote these pages before.
        base64(&crate::output::zlib(&self.bytes, 9))
    }
}

/// Standard base64 with padding (RFC 4648 §4), what the browser's `atob` reads.
pub(crate) fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_rfc_examples() {
        // RFC 4648 §10.
        let cases =
            [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE=")];
        for (plain, encoded) in cases {
            assert_eq!(base64(plain.as_bytes()), encoded);
        }
    }

    #[test]
    fn varints_are_zigzag_leb128() {
        let mut out = Vec::new();
        for d in [0, -1, 1, -64, 64, 300] {
            push_varint(&mut out, d);
        }
        // zigzag: 0, 1, 2, 127, 128 (two bytes), 600 (two bytes).
        assert_eq!(out, [0, 1, 2, 127, 0x80, 1, 0xd8, 4]);
    }

    #[test]
    fn columns_are_differences_and_smooth_motion_takes_second_differences() {
        let mut c = Channel::new(2, 0.5);
        for k in 0..4 {
            c.push_row([k as f64 * 1.0, f64::NAN]);
        }
        assert_eq!(c.decoded(3, 0), 3.0);
        assert!(c.decoded(1, 1).is_nan());
        let mut blob = Blob::default();
        blob.add(&c);
        let info = &blob.channels[0];
        // Column 0 is 0, 2, 4, 6 quanta: first differences 0, 2, 2, 2 (4 bytes), second 0, 2, 0, 0; column 1
        // is NaN throughout: NAN_CODE then zeros. Order 2 is chosen only when strictly smaller.
        assert_eq!((info.frames, info.cols, info.quantum), (4, 2, 0.5));
        assert_eq!(info.order, 1);
        assert_eq!(&blob.bytes[..4], &[0, 4, 4, 4]);
        let mut fast = Channel::new(1, 1.0);
        for k in 0..5 {
            fast.push_row([k as f64 * 100.0]);
        }
        blob.add(&fast);
        // 0, 100, 200, …: first differences need two bytes each after the first, second differences one.
        assert_eq!(blob.channels[1].order, 2);
        assert_eq!(blob.channels[1].offset, blob.channels[0].len);
    }
}
