//! Deterministic URL workloads derived from a rule set's own patterns.
//!
//! Used by the differential tests and the benchmarks: for each pattern it
//! makes hits (wildcards filled at random), near misses (cut, one byte
//! changed, `$` boundaries crossed), query strings, percent-encoded and
//! non-ASCII variants, and fully random paths. Seeded, so a failure is
//! reproducible from its seed.

/// A small, seedable PRNG (SplitMix64): deterministic across platforms.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// Seeds the generator.
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True with probability `1/n`.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    /// A random element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const FILL: &[&[u8]] = &[
    b"",
    b"a",
    b"x",
    b"/",
    b"ab",
    b"index",
    b".php",
    b".html",
    b"?",
    b"=",
    b"&",
    b"-",
    b"_",
    b"%2F",
    b"%41",
    b"%e3%83%84",
    "ツ".as_bytes(),
    b"*",
    b"$",
    b";",
    b"/a/b",
    b"Z9",
];

fn fill(rng: &mut Rng, out: &mut Vec<u8>) {
    for _ in 0..rng.below(3) {
        let piece = *rng.pick::<&[u8]>(FILL);
        out.extend_from_slice(piece);
    }
}

/// One URL path made from `pattern`, with a random variation.
pub fn from_pattern(rng: &mut Rng, pattern: &[u8]) -> Vec<u8> {
    let body = pattern.strip_suffix(b"$").unwrap_or(pattern);
    let mut p = Vec::with_capacity(body.len() + 16);
    if body.first() != Some(&b'/') {
        p.push(b'/');
    }
    for &b in body {
        if b == b'*' {
            fill(rng, &mut p);
        } else {
            p.push(b);
        }
    }
    match rng.below(10) {
        // Exact hit.
        0 | 1 => {}
        // Past a `$` boundary, or a longer path.
        2 | 3 => fill(rng, &mut p),
        // Cut short.
        4 if p.len() > 1 => p.truncate(1 + rng.below(p.len() - 1)),
        // One byte changed.
        5 if p.len() > 1 => {
            let i = 1 + rng.below(p.len() - 1);
            p[i] = *rng.pick(b"aZ/.%?$*0~");
        }
        // A query string.
        6 => {
            p.extend_from_slice(b"?q=");
            fill(rng, &mut p);
        }
        // Decode one %XX, or encode one byte.
        7 => {
            if let Some(i) = p.iter().position(|&b| b == b'%') {
                if i + 2 < p.len() {
                    p.splice(i..i + 3, [b'X']);
                }
            } else if p.len() > 1 {
                let i = 1 + rng.below(p.len() - 1);
                let b = p[i];
                let hex = format!("%{b:02X}").into_bytes();
                p.splice(i..=i, hex);
            }
        }
        // Non-ASCII.
        8 => p.extend_from_slice("é/ü".as_bytes()),
        _ => fill(rng, &mut p),
    }
    p
}

/// A random path over a small alphabet.
pub fn random_path(rng: &mut Rng) -> Vec<u8> {
    let mut p = vec![b'/'];
    for _ in 0..rng.below(12) {
        p.push(*rng.pick(b"abcxyz/._-?=&%*$#;0123456789AB~"));
    }
    p
}

/// `count` URLs for a file whose rule patterns are `patterns`: pattern-derived
/// paths (most of them), random paths, and absolute URLs with fragments.
pub fn workload<'a>(
    seed: u64,
    patterns: impl IntoIterator<Item = &'a [u8]>,
    count: usize,
) -> Vec<Vec<u8>> {
    let mut rng = Rng::new(seed);
    let patterns: Vec<&[u8]> = patterns.into_iter().collect();
    let mut urls = Vec::with_capacity(count);
    for _ in 0..count {
        let mut path = if !patterns.is_empty() && !rng.one_in(5) {
            let pat = *rng.pick(&patterns);
            from_pattern(&mut rng, pat)
        } else {
            random_path(&mut rng)
        };
        if rng.one_in(3) {
            let mut url = b"https://example.com".to_vec();
            url.append(&mut path);
            if rng.one_in(4) {
                url.extend_from_slice(b"#frag");
            }
            path = url;
        }
        urls.push(path);
    }
    urls
}
