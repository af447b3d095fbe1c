//! The path-delay oracle: for a flow whose sender asks for it
//! (`Sender::wants_path_delay`), the engine writes the queuing delay on the
//! flow's forward and reverse paths into each ACK as it reaches the sender
//! (`net::packet::Header::path_queue_ns`). A simulator can read the router ports;
//! a real network cannot.

use super::flows::FlowSlot;
use super::routes::{PathId, Routes};
use super::Engine;
use crate::net::{Link, Packet};

impl Engine {
    /// The queuing delay on route `path` now: over its router ports, the
    /// bytes waiting (the packet on the wire not counted) times 8 / the
    /// port's rate, in nanoseconds. Host NICs are not router ports.
    pub fn path_queue_ns(&self, path: u32) -> f64 {
        path_queue_ns(&self.links, &self.routes, path, 0)
    }
}

/// Write into `ack` the queuing delay on both paths of the flow in `slot`.
#[inline]
pub(super) fn stamp_path_delay(ack: &mut Packet, links: &[Link], routes: &Routes, slot: &FlowSlot) {
    ack.hdr.set_path_queue_ns(
        path_queue_ns(links, routes, slot.fwd_path, slot.sender)
            + path_queue_ns(links, routes, slot.rev_path, slot.dst),
    );
}

/// [`Engine::path_queue_ns`] over the engine's links and routes, so that it
/// can be read while a flow's slot is borrowed (`from`: the host a fabric
/// path starts at).
fn path_queue_ns(links: &[Link], routes: &Routes, path: PathId, from: u32) -> f64 {
    let stored;
    let fabric;
    let hops: &[u32] = if path & super::routes::FABRIC_PATH == 0 {
        stored = routes.path(path);
        stored
    } else {
        fabric = routes.links_of(path, from);
        &fabric
    };
    hops.iter()
        .map(|&l| &links[l as usize])
        .filter(|l| l.limited)
        .map(|l| l.queue.len_bytes() as f64 * 8e9 / l.rate_bps)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::PacketKind;

    /// The oracle (`Engine::path_queue_ns`) is the queue length times the
    /// service time, summed over the route's router ports only.
    #[test]
    fn path_queue_delay_is_queue_length_times_service_time() {
        let sc = r#"{"network": {"topology": "dumbbell", "senders": 2, "bottleneck_bps": 10e6, "access_bps": 100e6,
                     "bottleneck_delay_ms": 5, "access_delay_ms": 1, "buffer_pkts": 50},
                     "transport": {"handshake": false}, "flows": [{"sender": 0, "size_pkts": 10}]}"#;
        let mut e = Engine::new(crate::from_json(sc).unwrap());
        let idx = |e: &Engine, name: &str| e.links.iter().position(|l| l.name == name).unwrap();
        let (bn, rev, acc) = (idx(&e, "bottleneck"), idx(&e, "bottleneck-rev"), idx(&e, "access0"));
        let data = |s| Packet::new(0, PacketKind::Data, 1040, s, 0);
        let ack = |s| Packet::new(0, PacketKind::Ack, 40, s, 0);
        assert_eq!(e.path_queue_ns(0) + e.path_queue_ns(1), 0.0);
        // Six data packets at once: one on the wire, five waiting, each served
        // in 1040 x 8 / 10 Mb/s = 832 us.
        for s in 0..6 {
            e.enqueue(bn, data(s), 0);
        }
        assert_eq!(e.links[bn].queue.len_pkts(), 5);
        assert!((e.path_queue_ns(0) - 5.0 * 832_000.0).abs() < 1e-6);
        // Three ACKs on the reverse bottleneck: two waiting, 32 us each.
        for s in 0..3 {
            e.enqueue(rev, ack(s), 0);
        }
        assert!((e.path_queue_ns(1) - 2.0 * 32_000.0).abs() < 1e-6);
        // Sender 1's routes share both bottleneck ports.
        assert!((e.path_queue_ns(2) - 5.0 * 832_000.0).abs() < 1e-6);
        assert!((e.path_queue_ns(3) - 64_000.0).abs() < 1e-6);
        // A host NIC's backlog is not a router port's queue.
        for s in 0..4 {
            e.enqueue(acc, data(s), 0);
        }
        assert_eq!(e.links[acc].queue.len_pkts(), 3);
        assert!((e.path_queue_ns(0) - 5.0 * 832_000.0).abs() < 1e-6);
        // One packet served: four waiting.
        e.tx_done(bn, e.links[bn].busy_until);
        assert!((e.path_queue_ns(0) - 4.0 * 832_000.0).abs() < 1e-6);
    }
}
