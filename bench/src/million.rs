//! The million-host store's inputs (docs/PERFORMANCE.md): host `i` of
//! [`MILLION`] is `host{i}.example{i mod 97}.com`; 85% answer 200 with the
//! corpus bodies round robin, 8% 404, 4% 503 and 3% redirect to another
//! host of the store. The report and `bench --bin store_build` build it.

use robocc_store::HostInput;

/// Hosts of the store.
pub const MILLION: usize = 1_000_000;

/// Host `i`'s name.
pub fn host(i: usize) -> String {
    format!("host{i}.example{}.com", i % 97)
}

/// A fixed spread of statuses: a multiplicative hash of `i`, in 0..1024;
/// below 870 is status 200.
pub fn roll(i: usize) -> u64 {
    (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 54
}

/// Host `i` without its body.
pub fn input(i: usize) -> HostInput {
    let mut h = HostInput {
        host: host(i),
        ..HostInput::default()
    };
    match roll(i) {
        0..870 => h.status = 200,
        870..952 => h.status = 404,
        952..993 => h.status = 503,
        _ => {
            h.status = 301;
            h.location = Some(format!("https://{}/robots.txt", host((i * 7919) % MILLION)));
        }
    }
    h
}

/// Every host, a 200's body being `bodies[i % bodies.len()]`'s.
pub fn hosts(bodies: &[HostInput]) -> impl Iterator<Item = HostInput> + '_ {
    (0..MILLION).map(|i| {
        let mut h = input(i);
        if h.status == 200 {
            h.body = bodies[i % bodies.len()].body.clone();
        }
        h
    })
}
