//! Store builds and WARC input: one test binary (the allocation-counting
//! tests keep binaries of their own, since each installs a global
//! allocator).

mod build;
mod host_key;
mod survey;
mod warc;
