//! A frame whose every chunk was deleted still reads back (with 0 chunks), in memory and on disk.

use blosc2::chunk::CParams;
use blosc2::schunk::{Schunk, Storage};

fn storage(contiguous: bool) -> Storage {
    Storage {
        contiguous,
        cparams: CParams {
            typesize: 4,
            ..Default::default()
        },
        ..Default::default()
    }
}

#[test]
fn emptied_contiguous_frame_reads_back() {
    let data: Vec<u8> = (0..4000u32).flat_map(|i| i.to_le_bytes()).collect();
    let mut sc = Schunk::new(storage(true)).unwrap();
    sc.append_buffer(&data).unwrap();
    assert_eq!(sc.delete_chunk(0).unwrap(), 0);
    let frame = sc.to_buffer().unwrap().into_owned();
    // What c-blosc2 3.3.5 writes for the same steps: header, then the trailer, no offsets index
    // (and the header's cbytes still counts the deleted chunk, as the reference leaves it).
    let hex = include_str!("data/frames/emptied_reference.hex").trim();
    let want: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    assert_eq!(frame, want);
    let back = Schunk::from_vec(frame).unwrap();
    assert_eq!(back.nchunks(), 0);
    assert_eq!(back.nbytes(), 0);
}
