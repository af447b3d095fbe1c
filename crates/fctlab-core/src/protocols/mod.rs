//! Router-assisted protocols, one folder each: the header layout they carry in
//! [`crate::net::Packet::hdr`] (in the folder's `mod.rs`), the router half (a
//! queue discipline, `router.rs`) and the host half (a transport, `host.rs`).

pub mod e2e_ef;
pub mod hbh;
pub mod rcp;
pub mod xcp;
