//! Per-flow state in bytes (`std::mem::size_of`): what a flow in progress
//! costs the engine for TCP (NewReno, and with SACK) and for RCP.
//! `cargo run --release -p fctlab-core --example flow_state`.
use fctlab_core::engine::FLOW_SLOT_BYTES;
use fctlab_core::metrics::FlowRecord;
use fctlab_core::protocols::rcp::host::{RcpReceiver, RcpSender};
use fctlab_core::transport::cc::newreno::NewReno;
use fctlab_core::transport::sack::Scoreboard;
use fctlab_core::transport::tcp::{TcpReceiver, TcpSackReceiver, TcpSender};
use std::mem::size_of;

fn main() {
    let tcp = size_of::<TcpSender>() + size_of::<NewReno>() + size_of::<TcpReceiver>();
    let sack = size_of::<TcpSender>() + size_of::<Scoreboard>() + size_of::<TcpSackReceiver>();
    let rcp = size_of::<RcpSender>() + size_of::<RcpReceiver>();
    println!("engine slot per flow (FlowSlot)           {:>5} B", FLOW_SLOT_BYTES);
    println!(
        "flow record (FlowRecord)                  {:>5} B",
        size_of::<FlowRecord>()
    );
    println!(
        "TcpSender                                 {:>5} B",
        size_of::<TcpSender>()
    );
    println!(
        "  NewReno controller (boxed)              {:>5} B",
        size_of::<NewReno>()
    );
    println!(
        "TcpReceiver                               {:>5} B",
        size_of::<TcpReceiver>()
    );
    println!(
        "TcpSender (SACK) + Scoreboard (boxed)     {:>5} B",
        size_of::<TcpSender>() + size_of::<Scoreboard>()
    );
    println!(
        "TcpSackReceiver                           {:>5} B",
        size_of::<TcpSackReceiver>()
    );
    println!(
        "RcpSender                                 {:>5} B",
        size_of::<RcpSender>()
    );
    println!(
        "RcpReceiver                               {:>5} B",
        size_of::<RcpReceiver>()
    );
    println!(
        "per TCP NewReno flow, endpoints           {:>5} B (+ slot {} + record {})",
        tcp,
        FLOW_SLOT_BYTES,
        size_of::<FlowRecord>()
    );
    println!("per TCP SACK flow, endpoints              {:>5} B", sack);
    println!("per RCP flow, endpoints                   {:>5} B", rcp);
}
