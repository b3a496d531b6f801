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

/// SHA-256 of what passes through a writer, for the digests of a batch's
/// manifest: a trace is hashed as it is written, not read back.
pub struct Sha256Tee<W> {
    inner: W,
    hasher: sha2::Sha256,
}

impl<W: std::io::Write> Sha256Tee<W> {
    pub fn new(inner: W) -> Self {
        use sha2::Digest;
        Sha256Tee { inner, hasher: sha2::Sha256::new() }
    }

    /// The digest of everything written, as 64 lowercase hex digits.
    pub fn hex(self) -> String {
        use sha2::Digest;
        hex(&self.hasher.finalize())
    }
}

impl<W: std::io::Write> std::io::Write for Sha256Tee<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        use sha2::Digest;
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// SHA-256 of `bytes`, as 64 lowercase hex digits.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex(&sha2::Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
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

    #[test]
    fn sha256_known_values() {
        use std::io::Write;
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        let mut tee = Sha256Tee::new(Vec::new());
        tee.write_all(b"a").unwrap();
        tee.write_all(b"bc").unwrap();
        assert_eq!(tee.hex(), sha256_hex(b"abc"));
    }
}
