//! [`AlignedBytes`]: an owned buffer the zero-copy readers accept.

use std::fmt;
use std::ops::Deref;

/// Owned bytes at a 16-byte aligned address, as [`Policy::from_bytes`] and
/// [`Store::from_slice`] want them: what the writers return (a compiled
/// policy, a store), and a copy of bytes that came from elsewhere (a
/// network read, an unaligned buffer).
///
/// It reads as a `[u8]` (`&bytes[..]`, `bytes.len()`, `&*bytes`).
///
/// [`Policy::from_bytes`]: crate::Policy::from_bytes
/// [`Store::from_slice`]: crate::Store::from_slice
#[derive(Clone, Default)]
pub struct AlignedBytes(rkyv::util::AlignedVec<16>);

impl AlignedBytes {
    /// An empty buffer with room for `capacity` bytes.
    pub fn with_capacity(capacity: usize) -> AlignedBytes {
        AlignedBytes(rkyv::util::AlignedVec::with_capacity(capacity))
    }

    /// A 16-byte aligned copy of `bytes`.
    pub fn copy_from_slice(bytes: &[u8]) -> AlignedBytes {
        let mut out = AlignedBytes::with_capacity(bytes.len());
        out.extend_from_slice(bytes);
        out
    }

    /// Appends `bytes` (the start stays aligned).
    pub fn extend_from_slice(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }

    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        self.0.as_slice()
    }

    #[cfg(feature = "build")]
    pub(crate) fn from_rkyv(v: rkyv::util::AlignedVec<16>) -> AlignedBytes {
        AlignedBytes(v)
    }
}

impl Deref for AlignedBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        self.0.as_slice()
    }
}

impl PartialEq for AlignedBytes {
    fn eq(&self, other: &AlignedBytes) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for AlignedBytes {}

impl AsRef<[u8]> for AlignedBytes {
    fn as_ref(&self) -> &[u8] {
        self.0.as_slice()
    }
}

impl fmt::Debug for AlignedBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "AlignedBytes({} bytes)", self.0.len())
    }
}

#[cfg(test)]
mod tests {
    use super::AlignedBytes;

    #[test]
    fn copies_are_aligned_and_equal() {
        let src = vec![7u8; 1001];
        for start in 0..16 {
            let b = AlignedBytes::copy_from_slice(&src[start..]);
            assert_eq!(b.as_ptr() as usize % 16, 0);
            assert_eq!(&b[..], &src[start..]);
        }
        let mut b = AlignedBytes::with_capacity(1);
        b.extend_from_slice(b"ab");
        b.extend_from_slice(b"c");
        assert_eq!(b.as_slice(), b"abc");
    }
}
