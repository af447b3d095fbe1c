//! The host half of hbh (see [`super`]): e2e-ef's source, whose `mu` and
//! queue come from the first switch's report.

use crate::config::{documented, ConfigError, Entry, Table};
use crate::transport::packet_pair::{PacketPairParams, PacketPairSender};
use crate::transport::tcp::TcpReceiver;
use crate::transport::{EndpointBuilder, Receiver, SchemeEntry, Sender, TransportParams};
use std::sync::Arc;

/// `hbh`.
pub const ENTRY: SchemeEntry = Entry {
    name: "hbh",
    description: "hop-by-hop rate control (Mishra & Kanakia 1992, our reading): each switch shapes each conversation to the next switch's service rate plus (B - its queue there)/hop RTT; the source follows the first switch the same way; needs queue = \"hbh\"",
    table: Some("packet_pair"),
    params: documented::<PacketPairParams>,
    requires: Some("hbh"),
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
