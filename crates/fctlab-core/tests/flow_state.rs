//! The per-flow state the README's "Speed" section states in bytes is what
//! `std::mem::size_of` gives for this build (the numbers
//! `examples/flow_state.rs` prints), so the page cannot drift from the code.

use fctlab_core::engine::FLOW_SLOT_BYTES;
use fctlab_core::metrics::FlowRecord;
use fctlab_core::protocols::rcp::host::{RcpReceiver, RcpSender};
use fctlab_core::transport::cc::newreno::NewReno;
use fctlab_core::transport::sack::Scoreboard;
use fctlab_core::transport::tcp::{TcpReceiver, TcpSackReceiver, TcpSackSender, TcpSender};
use std::mem::size_of;

#[test]
fn readme_states_the_per_flow_state_in_bytes() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).expect("README.md");
    let tcp = size_of::<TcpSender>() + size_of::<NewReno>() + size_of::<TcpReceiver>();
    let rows = [
        ("engine slot (`FlowSlot`)", FLOW_SLOT_BYTES),
        ("flow record (`FlowRecord`)", size_of::<FlowRecord>()),
        (
            "TCP sender (`TcpSender`; the NewReno controller is zero-sized)",
            size_of::<TcpSender>() + size_of::<NewReno>(),
        ),
        ("TCP receiver (`TcpReceiver`)", size_of::<TcpReceiver>()),
        (
            "TCP SACK sender with its scoreboard",
            size_of::<TcpSackSender>() + size_of::<Scoreboard>(),
        ),
        ("TCP SACK receiver", size_of::<TcpSackReceiver>()),
        ("RCP sender (`RcpSender`)", size_of::<RcpSender>()),
        ("RCP receiver (`RcpReceiver`)", size_of::<RcpReceiver>()),
        (
            "a TCP NewReno flow in all (slot, record, endpoints)",
            FLOW_SLOT_BYTES + size_of::<FlowRecord>() + tcp,
        ),
    ];
    for (name, bytes) in rows {
        let row = format!("| {name} | {bytes} |");
        assert!(
            readme.contains(&row),
            "the README's Speed section should have the row\n{row}"
        );
    }
}
