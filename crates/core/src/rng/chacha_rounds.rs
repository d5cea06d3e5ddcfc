//! What the vectorised ChaCha8 generators (`chacha_avx512`, `chacha_wide`)
//! share: the key and constant words, and the schedule of ChaCha8's rounds
//! over a state of any lane type.

/// ChaCha's constant words ("expand 32-byte k").
pub const SIGMA: [u32; 4] = [0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574];

/// The key words of a 32-byte seed (little-endian), as `rand_chacha` reads it.
pub fn key_words(seed: &[u8; 32]) -> [u32; 8] {
    std::array::from_fn(|i| {
        u32::from_le_bytes([
            seed[4 * i],
            seed[4 * i + 1],
            seed[4 * i + 2],
            seed[4 * i + 3],
        ])
    })
}

/// ChaCha8's eight rounds (four column and four diagonal ones, alternating)
/// on state `x`, with the lane type's quarter round on words a, b, c, d.
#[inline(always)]
pub fn eight_rounds<V>(
    x: &mut [V; 16],
    quarter: impl Fn(&mut [V; 16], usize, usize, usize, usize),
) {
    for _ in 0..4 {
        quarter(x, 0, 4, 8, 12);
        quarter(x, 1, 5, 9, 13);
        quarter(x, 2, 6, 10, 14);
        quarter(x, 3, 7, 11, 15);
        quarter(x, 0, 5, 10, 15);
        quarter(x, 1, 6, 11, 12);
        quarter(x, 2, 7, 8, 13);
        quarter(x, 3, 4, 9, 14);
    }
}
