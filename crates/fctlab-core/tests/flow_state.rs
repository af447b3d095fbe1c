//! The per-flow state the performance page states in bytes is what
//! `std::mem::size_of` gives for this build (the numbers
//! `examples/flow_state.rs` prints): the page includes the table this test
//! renders (`docs/snippets/flow-state.md`), and the test fails when the
//! committed table is not this build's. `FCTLAB_BLESS=1` writes it again.

use fctlab_core::engine::FLOW_SLOT_BYTES;
use fctlab_core::metrics::FlowRecord;
use fctlab_core::protocols::rcp::host::{RcpReceiver, RcpSender};
use fctlab_core::transport::cc::newreno::NewReno;
use fctlab_core::transport::sack::Scoreboard;
use fctlab_core::transport::tcp::{TcpReceiver, TcpSackReceiver, TcpSackSender, TcpSender};
use std::mem::size_of;

#[test]
fn the_docs_state_the_per_flow_state_in_bytes() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/snippets/flow-state.md");
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
    let mut table = String::from("| per flow | bytes |\n| --- | --- |\n");
    for (name, bytes) in rows {
        table.push_str(&format!("| {name} | {bytes} |\n"));
    }
    if std::env::var_os("FCTLAB_BLESS").is_some() {
        std::fs::write(path, &table).expect("write the table");
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert_eq!(
        committed, table,
        "docs/snippets/flow-state.md is not this build's per-flow state; \
         FCTLAB_BLESS=1 cargo test --release -p fctlab-core --test flow_state writes it"
    );
}
