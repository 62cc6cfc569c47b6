//! An I/O backend over plain files that records every change on its way to the file, for the
//! tests that check which writes a call makes (and in what order).

use std::path::Path;
use std::sync::{Arc, Mutex};

use blosc2::frame::io::{ByteStore, FileIo, Io, OpenMode};
use blosc2::Result;

/// A change of a file: bytes written at a position, or a truncation to a length.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    Write(u64, Vec<u8>),
    Truncate(u64),
}

/// The changes recorded so far, shared by the backend and the test.
pub type Log = Arc<Mutex<Vec<Op>>>;

/// Plain files (`FileIo`), with each change appended to the log.
pub struct Recording(pub Log);

/// Takes the changes recorded so far out of the log.
pub fn take(log: &Log) -> Vec<Op> {
    std::mem::take(&mut *log.lock().unwrap())
}

struct RecordingStore {
    inner: Box<dyn ByteStore>,
    log: Log,
}

impl Io for Recording {
    fn open(&self, path: &Path, mode: OpenMode) -> Result<Box<dyn ByteStore>> {
        Ok(Box::new(RecordingStore {
            inner: FileIo.open(path, mode)?,
            log: self.0.clone(),
        }))
    }
}

impl ByteStore for RecordingStore {
    fn size(&self) -> Result<u64> {
        self.inner.size()
    }
    fn read_at(&self, pos: u64, buf: &mut [u8]) -> Result<usize> {
        self.inner.read_at(pos, buf)
    }
    fn write_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        self.log.lock().unwrap().push(Op::Write(pos, data.to_vec()));
        self.inner.write_at(pos, data)
    }
    fn truncate(&mut self, len: u64) -> Result<()> {
        self.log.lock().unwrap().push(Op::Truncate(len));
        self.inner.truncate(len)
    }
    // A file: changes go in the kill-safe order.
    fn ordered_writes(&self) -> bool {
        self.inner.ordered_writes()
    }
}
