//! Packets, links, router ports and topologies.

pub mod link;
pub mod packet;
pub mod queue;
pub mod routing;
pub mod topology;

pub use link::{Link, LinkTotals};
pub use packet::{Packet, PacketKind};
pub use topology::{LinkSpec, Topology};

/// Index of a link in the network.
pub type LinkId = u32;
/// Index of a node in the network.
pub type NodeId = u32;
