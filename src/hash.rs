//! Fixed hash functions: the same value for the same input on every platform
//! and in every version, because traces and file hashes depend on them.

/// The splitmix64 finaliser: a fixed bijective mixer of 64-bit words.
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// FNV-1a, 64 bits.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h = Fnv1a64::default();
    h.update(bytes);
    h.finish()
}

/// FNV-1a, 64 bits, over bytes given a piece at a time (as a writer: a
/// trace can be hashed as it is written, without holding it).
#[derive(Clone, Copy, Debug)]
pub struct Fnv1a64 {
    h: u64,
    len: u64,
}

impl Default for Fnv1a64 {
    fn default() -> Fnv1a64 {
        Fnv1a64 { h: 0xcbf2_9ce4_8422_2325, len: 0 }
    }
}

impl Fnv1a64 {
    pub fn update(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.h ^= u64::from(b);
            self.h = self.h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        self.len += bytes.len() as u64;
    }

    pub fn finish(&self) -> u64 {
        self.h
    }

    /// How many bytes it was given.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl std::io::Write for Fnv1a64 {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a64_known_values() {
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        let mut pieces = Fnv1a64::default();
        pieces.update(b"cr");
        pieces.update(b"owd");
        assert_eq!((pieces.finish(), pieces.len()), (fnv1a64(b"crowd"), 5));
    }
}
