//! Any bytes as a JSON Lines recording (`render --from`): the reader returns snapshots or an error
//! naming the line, never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vsr2d::output::record::JsonlReader;

fuzz_target!(|data: &[u8]| {
    let reader = JsonlReader::from_reader(std::path::Path::new("fuzz.jsonl"), std::io::Cursor::new(data.to_vec()));
    for snapshot in reader {
        match snapshot {
            Ok(s) => {
                // What render reads of every snapshot before drawing.
                let _ = s.bodies_bbox(None);
                let _ = s.voxel_robots().count();
            }
            Err(e) => {
                let _ = e.to_string();
                break;
            }
        }
    }
});
