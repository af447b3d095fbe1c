//! The host half of e2e-ef (see [`super`]): packet-pair's source
//! ([`crate::transport::packet_pair`]) with `mu` and the bottleneck queue
//! taken from the routers' stamps, which the receiver echoes on every ACK.

use crate::config::{documented, ConfigError, Entry, Table};
use crate::transport::packet_pair::{PacketPairParams, PacketPairSender};
use crate::transport::tcp::TcpReceiver;
use crate::transport::{EndpointBuilder, Receiver, SchemeEntry, Sender, TransportParams};
use std::sync::Arc;

/// `e2e-ef`.
pub const ENTRY: SchemeEntry = Entry {
    name: "e2e-ef",
    description: "end-to-end explicit feedback (Mishra & Kanakia 1992, our reading): packet-pair's rate law mu + (B - n_b)/RTT with mu and n_b stamped by fair-queueing routers; needs queue = \"fq-ef\"",
    table: Some("packet_pair"),
    params: documented::<PacketPairParams>,
    requires: Some("fq-ef"),
    factory,
};

fn factory(t: Table, p: &TransportParams) -> Result<EndpointBuilder, ConfigError> {
    let c: PacketPairParams = t.parse()?;
    let p = TransportParams {
        delayed_ack: false,
        ecn: false,
        ..p.clone()
    };
    Ok(Arc::new(move |id, size| {
        (
            Box::new(PacketPairSender::explicit(id, size, p.clone(), c.clone())) as Box<dyn Sender>,
            Box::new(TcpReceiver::new(id, size, &p)) as Box<dyn Receiver>,
        )
    }))
}
